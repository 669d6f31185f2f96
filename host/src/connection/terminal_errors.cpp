#include "connection/terminal_errors.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace mcph::connection {
namespace {

// Needles are specific phrases, never a bare "timed out", "closed" or "terminated": the host's own
// request timeout ("tools/call to 'x' timed out after 60000 ms") means a slow tool, not a dead link,
// and servers put such words in ordinary JSON-RPC errors.
constexpr std::array kSignals = {
    // ECONNRESET: the peer dropped the TCP connection.
    TerminalSignal{"connection reset", "ECONNRESET", "strerror/Asio 'Connection reset by peer'; curl 'Recv failure: ...'"},
    TerminalSignal{"econnreset", "ECONNRESET", "the errno name, from in-process or proxied servers"},
    // ETIMEDOUT: nothing came back at the TCP or transfer level.
    TerminalSignal{"connection timed out", "ETIMEDOUT", "strerror ETIMEDOUT; curl 'Connection timed out after N milliseconds'"},
    TerminalSignal{"timeout was reached", "ETIMEDOUT", "curl_easy_strerror(CURLE_OPERATION_TIMEDOUT)"},
    TerminalSignal{"operation timed out", "ETIMEDOUT", "curl 'Operation timed out after N milliseconds with M bytes received'"},
    TerminalSignal{"ping timeout", "ETIMEDOUT", "transport-ws: 'ping timeout: the server sent nothing, not even a pong'"},
    TerminalSignal{"etimedout", "ETIMEDOUT", "the errno name"},
    // EPIPE: writing to a peer that is gone.
    TerminalSignal{"broken pipe", "EPIPE", "strerror EPIPE; transport-stdio 'write to the server's stdin failed'; curl 'Send failure'"},
    TerminalSignal{"failed sending data to the peer", "EPIPE", "curl_easy_strerror(CURLE_SEND_ERROR)"},
    TerminalSignal{"epipe", "EPIPE", "the errno name"},
    // EHOSTUNREACH: no way to the host. A failed DNS lookup is the same for our purpose: the server
    // cannot be reached, and a later attempt may succeed once the network is back.
    TerminalSignal{"no route to host", "EHOSTUNREACH", "strerror EHOSTUNREACH"},
    TerminalSignal{"network is unreachable", "EHOSTUNREACH", "strerror ENETUNREACH"},
    TerminalSignal{"ehostunreach", "EHOSTUNREACH", "the errno name"},
    TerminalSignal{"enetunreach", "EHOSTUNREACH", "the errno name"},
    TerminalSignal{"couldn't resolve host", "EHOSTUNREACH", "curl_easy_strerror(CURLE_COULDNT_RESOLVE_HOST)"},
    TerminalSignal{"could not resolve host", "EHOSTUNREACH", "curl error buffer 'Could not resolve host: x'"},
    TerminalSignal{"couldn't resolve proxy", "EHOSTUNREACH", "curl_easy_strerror(CURLE_COULDNT_RESOLVE_PROXY)"},
    TerminalSignal{"cannot resolve '", "EHOSTUNREACH", "transport-ws connect probe 'cannot resolve 'host': <gai_strerror>'"},
    TerminalSignal{"name or service not known", "EHOSTUNREACH", "gai_strerror(EAI_NONAME), Asio host_not_found"},
    TerminalSignal{"temporary failure in name resolution", "EHOSTUNREACH", "gai_strerror(EAI_AGAIN)"},
    TerminalSignal{"dns lookup of '", "EHOSTUNREACH", "connection/reachability.cpp"},
    // ECONNREFUSED: nothing listens there (yet, or any more).
    TerminalSignal{"connection refused", "ECONNREFUSED", "strerror ECONNREFUSED; curl 'Failed to connect to h port p ...: Connection refused'"},
    TerminalSignal{"couldn't connect to server", "ECONNREFUSED", "curl_easy_strerror(CURLE_COULDNT_CONNECT)"},
    TerminalSignal{"unable to connect", "ECONNREFUSED", "libwebsockets via transport-ws"},
    TerminalSignal{"tcp connect to ", "ECONNREFUSED", "connection/reachability.cpp"},
    TerminalSignal{"econnrefused", "ECONNREFUSED", "the errno name"},
    // Body Timeout Error: the HTTP transports' own transfer timeout ("timed out after N ms
    // (timeoutMs) waiting for POST url", "the SSE stream from url was silent for N ms (timeoutMs)").
    TerminalSignal{"(timeoutms)", "Body Timeout Error", "transport-http, transport-sse (the timeoutMs setting)"},
    TerminalSignal{"body timeout", "Body Timeout Error", "undici's name, from proxied servers"},
    // terminated: the connection ended in the middle of an exchange.
    TerminalSignal{"failure when receiving data from the peer", "terminated", "curl_easy_strerror(CURLE_RECV_ERROR)"},
    TerminalSignal{"transferred a partial file", "terminated", "curl_easy_strerror(CURLE_PARTIAL_FILE)"},
    TerminalSignal{"transfer closed with outstanding read data", "terminated", "curl error buffer for CURLE_PARTIAL_FILE"},
    TerminalSignal{"server returned nothing", "terminated", "curl_easy_strerror(CURLE_GOT_NOTHING)"},
    TerminalSignal{"connection lost", "terminated", "transport-ws (closed without a close frame, write failed)"},
    TerminalSignal{"closed the connection with code", "terminated", "transport-ws: a close code other than 1000"},
    TerminalSignal{"process exited", "terminated", "transport-stdio ExitStatus::describe()"},
    TerminalSignal{"process killed by signal", "terminated", "transport-stdio ExitStatus::describe()"},
    TerminalSignal{"closed its stdout", "terminated", "transport-stdio 'process closed its stdout but is still running'"},
    TerminalSignal{"transport is closed", "terminated", "every transport's send() after the link ended"},
    // SSE stream disconnected / Failed to reconnect SSE stream.
    TerminalSignal{"sse stream disconnected", "SSE stream disconnected", "transport-sse: the legacy stream ended"},
    TerminalSignal{"ended before the response", "SSE stream disconnected", "transport-http: a POST's SSE stream ended early"},
    TerminalSignal{"failed to reconnect sse stream", "Failed to reconnect SSE stream", "the seed's own text"},
    TerminalSignal{"resumptions", "Failed to reconnect SSE stream", "transport-http: '...; gave up after N resumptions'"},
    TerminalSignal{"cannot be resumed", "Failed to reconnect SSE stream", "transport-http: '...; it cannot be resumed (no event id)'"},
};

bool equal_ignoring_case(char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
}

bool contains_ignoring_case(std::string_view haystack, std::string_view needle) {
    return std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(), equal_ignoring_case) !=
           haystack.end();
}

}  // namespace

std::span<const TerminalSignal> terminal_signals() { return kSignals; }

std::optional<TerminalSignal> match_terminal_signal(std::string_view message) {
    for (const TerminalSignal& s : kSignals)
        if (contains_ignoring_case(message, s.needle)) return s;
    return std::nullopt;
}

bool is_terminal_connection_error(std::string_view message) { return match_terminal_signal(message).has_value(); }

}  // namespace mcph::connection
