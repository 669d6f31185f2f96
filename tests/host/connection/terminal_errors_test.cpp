#include "connection/terminal_errors.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <string>

namespace {

using mcph::connection::is_terminal_connection_error;
using mcph::connection::match_terminal_signal;
using mcph::connection::terminal_signals;

// Texts as our transports and their libraries really produce them, with the seed signal expected.
TEST(TerminalErrors, TransportFailuresAreTerminal) {
    const struct {
        const char* message;
        const char* signal;
    } cases[] = {
        {"Couldn't connect to server: Failed to connect to 127.0.0.1 port 9 after 0 ms: Connection refused (POST http://127.0.0.1:9/mcp)",
         "ECONNREFUSED"},
        {"Couldn't connect to server (POST http://x/mcp)", "ECONNREFUSED"},
        {"connection refused (localhost port 9)", "ECONNREFUSED"},  // transport-ws connect probe
        {"unable to connect", "ECONNREFUSED"},                      // libwebsockets
        {"TCP connect to 127.0.0.1:9 failed: connection refused (tried 1 address)", "ECONNREFUSED"},
        {"connect ECONNREFUSED 127.0.0.1:3000", "ECONNREFUSED"},
        {"Failure when receiving data from the peer: Recv failure: Connection reset by peer (GET http://h/mcp)",
         "ECONNRESET"},
        {"OpenSSL SSL_read: Connection reset by peer, errno 104", "ECONNRESET"},
        {"read ECONNRESET", "ECONNRESET"},
        {"Timeout was reached: Connection timed out after 10001 milliseconds (POST http://h/mcp)", "ETIMEDOUT"},
        {"Timeout was reached: Operation timed out after 3000 milliseconds with 0 bytes received", "ETIMEDOUT"},
        {"ping timeout: the server sent nothing, not even a pong, for 30000 ms after a ping", "ETIMEDOUT"},
        {"write to the server's stdin failed: Broken pipe", "EPIPE"},
        {"Failed sending data to the peer: Send failure: Broken pipe (POST http://h/mcp)", "EPIPE"},
        {"Couldn't connect to server: Failed to connect to 10.1.1.1 port 80: No route to host", "EHOSTUNREACH"},
        {"No route to host", "EHOSTUNREACH"},
        {"Network is unreachable", "EHOSTUNREACH"},
        {"Couldn't resolve host name: Could not resolve host: nonexistent.invalid (POST http://nonexistent.invalid/)",
         "EHOSTUNREACH"},
        {"cannot resolve 'example.invalid': Name or service not known", "EHOSTUNREACH"},
        {"DNS lookup of 'x.invalid' failed: Host not found (authoritative)", "EHOSTUNREACH"},
        {"timed out after 30000 ms (timeoutMs) waiting for POST http://h/mcp", "Body Timeout Error"},
        {"timed out: the SSE stream from http://h/mcp was silent for 30000 ms (timeoutMs)", "Body Timeout Error"},
        {"BodyTimeoutError: Body Timeout Error", "Body Timeout Error"},
        {"the JSON response from http://h/mcp was cut: Transferred a partial file", "terminated"},
        {"transfer closed with outstanding read data remaining", "terminated"},
        {"Server returned nothing (no headers, no data) (POST http://h/mcp)", "terminated"},
        {"connection lost (closed without a WebSocket close frame)", "terminated"},
        {"the server closed the connection with code 1011 (internal error)", "terminated"},
        {"process exited with code 1; stderr: Traceback ...", "terminated"},
        {"process killed by signal 9 (SIGKILL)", "terminated"},
        {"process closed its stdout but is still running", "terminated"},
        {"send failed: the transport is closed", "terminated"},
        {"SSE stream disconnected: the server ended the stream (http://h/sse)", "SSE stream disconnected"},
        {"the SSE stream from http://h/mcp ended before the response; it cannot be resumed (no event id)",
         "SSE stream disconnected"},
        {"resuming the stream from http://h/mcp failed: HTTP 502 ; gave up after 5 resumptions",
         "Failed to reconnect SSE stream"},
        {"Failed to reconnect SSE stream: 5 attempts", "Failed to reconnect SSE stream"},
    };
    for (const auto& c : cases) {
        auto m = match_terminal_signal(c.message);
        ASSERT_TRUE(m.has_value()) << c.message;
        EXPECT_EQ(m->signal, c.signal) << c.message << " matched '" << m->needle << "'";
        EXPECT_TRUE(is_terminal_connection_error(c.message));
    }
}

TEST(TerminalErrors, ServerAnswersAndSlowRequestsAreNot) {
    const char* cases[] = {
        "",
        "Invalid params",
        "Method not found",
        "Internal error",
        "HTTP 500 from http://h/mcp: Internal Server Error",
        "HTTP 502 from http://h/mcp: Bad Gateway",
        "HTTP 404 from http://h/mcp: the session expired",
        "HTTP 401 from http://h/mcp (WWW-Authenticate: Bearer)",
        "tools/call to 'slow' timed out after 60000 ms (notifications/cancelled sent; if the server is just slow, "
        "raise the request timeout)",
        "malformed JSON from http://h/mcp: {oops",
        "unexpected content type 'text/html' from http://h/mcp",
        "the server closed the connection (1000 normal closure)",
        "session with 'x' was closed",
        "request cancelled by the caller",
        "the tool terminated early",
        "the server refused the WebSocket upgrade with HTTP 403",
    };
    for (const char* message : cases) {
        auto m = match_terminal_signal(message);
        EXPECT_FALSE(m.has_value()) << "'" << message << "' matched '" << (m ? m->needle : "") << "'";
    }
}

TEST(TerminalErrors, MatchingIgnoresCase) {
    EXPECT_TRUE(is_terminal_connection_error("CONNECTION RESET BY PEER"));
    EXPECT_TRUE(is_terminal_connection_error("sse STREAM disconnected"));
    EXPECT_TRUE(is_terminal_connection_error("econnrefused"));
}

// Every entry documented; needles kept lowercase so the table reads as one style.
TEST(TerminalErrors, TableIsWellFormed) {
    ASSERT_FALSE(terminal_signals().empty());
    for (const auto& s : terminal_signals()) {
        EXPECT_FALSE(s.needle.empty());
        EXPECT_FALSE(s.signal.empty()) << s.needle;
        EXPECT_FALSE(s.source.empty()) << s.needle;
        for (char ch : s.needle)
            EXPECT_EQ(ch, std::tolower(static_cast<unsigned char>(ch))) << "needle '" << s.needle << "' must be lowercase";
    }
}

}  // namespace
