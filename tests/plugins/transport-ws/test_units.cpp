// Unit tests of the plugin's pure parts: config and URL parsing, header validation, message
// reassembly, the bounded send queue and the frame chunking.
#include "config.hpp"
#include "frame_writer.hpp"
#include "handshake_headers.hpp"
#include "message_assembler.hpp"
#include "send_queue.hpp"

#include <libwebsockets.h>
#include <mcph/plugin_helper.hpp>

#include <gtest/gtest.h>

namespace mcph::ws {
namespace {

std::string error_of(const std::string& json) {
    try {
        parse_config(json);
    } catch (const mcph::plugin::Error& e) {
        EXPECT_EQ(e.status(), MCPH_ERR_INVALID_ARGUMENT);
        return e.what();
    }
    return "";
}

TEST(WsConfig, Defaults) {
    WsConfig c = parse_config(R"({"type":"ws","url":"ws://example.com/mcp"})");
    EXPECT_EQ(c.type, "ws");
    EXPECT_FALSE(c.endpoint.tls);
    EXPECT_EQ(c.endpoint.address, "example.com");
    EXPECT_EQ(c.endpoint.port, 80);
    EXPECT_EQ(c.endpoint.host_header, "example.com");
    EXPECT_EQ(c.endpoint.path, "/mcp");
    EXPECT_EQ(c.connect_timeout.count(), 10000);
    EXPECT_EQ(c.ping_interval.count(), 30000);
    EXPECT_EQ(c.loop_idle.count(), 2000);
    EXPECT_EQ(parse_config(R"({"url":"ws://x/","loopIdleMs":0})").loop_idle.count(), 0) << "0: never retire";
    EXPECT_EQ(c.max_message_bytes, size_t{128} << 20);
    EXPECT_EQ(c.subprotocol, "mcp");
}

TEST(WsConfig, EndpointParts) {
    Endpoint e = parse_endpoint("wss://[::1]:8443/a/b?x=1&y=2");
    EXPECT_TRUE(e.tls);
    EXPECT_EQ(e.address, "::1");
    EXPECT_EQ(e.port, 8443);
    EXPECT_EQ(e.host_header, "[::1]:8443");
    EXPECT_EQ(e.path, "/a/b?x=1&y=2");
    e = parse_endpoint("wss://host.example");
    EXPECT_EQ(e.port, 443);
    EXPECT_EQ(e.path, "/");
    EXPECT_EQ(e.host_header, "host.example");
    e = parse_endpoint("ws://h:80/");
    EXPECT_EQ(e.host_header, "h");  // default port not repeated
}

TEST(WsConfig, BadFieldsAreNamed) {
    EXPECT_NE(error_of(R"({"type":"ws"})").find("'url' is required"), std::string::npos);
    EXPECT_NE(error_of(R"({"url":"http://x/"})").find("'url' must start with ws:// or wss://"), std::string::npos);
    EXPECT_NE(error_of(R"({"url":"ws://"})").find("'url'"), std::string::npos);
    EXPECT_NE(error_of(R"({"url":"ws://u:p@x/"})").find("credentials"), std::string::npos);
    EXPECT_NE(error_of(R"({"url":"ws://x/#f"})").find("fragment"), std::string::npos);
    EXPECT_NE(error_of(R"({"url":"ws://x/ y"})").find("'url'"), std::string::npos);
    EXPECT_NE(error_of(R"({"url":"ws://x/","headers":[]})").find("'headers'"), std::string::npos);
    EXPECT_NE(error_of(R"({"url":"ws://x/","headers":{"A":1}})").find("'headers.A'"), std::string::npos);
    EXPECT_NE(error_of(R"({"url":"ws://x/","headers":{"A":"x\r\nB: y"}})").find("line break"), std::string::npos);
    EXPECT_NE(error_of(R"({"url":"ws://x/","headers":{"Sec-WebSocket-Key":"x"}})").find("cannot be overridden"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"url":"ws://x/","headers":{"a b":"x"}})").find("invalid name"), std::string::npos);
    EXPECT_NE(error_of(R"({"url":"ws://x/","pingIntervalMs":-1})").find("'pingIntervalMs'"), std::string::npos);
    EXPECT_NE(error_of(R"({"url":"ws://x/","connectTimeoutMs":0})").find("'connectTimeoutMs'"), std::string::npos);
    EXPECT_NE(error_of(R"({"url":"ws://x/","loopIdleMs":-1})").find("'loopIdleMs'"), std::string::npos);
    EXPECT_NE(error_of(R"({"url":"ws://x/","loopIdleMs":86400001})").find("'loopIdleMs'"), std::string::npos);
    EXPECT_NE(error_of(R"({"url":"ws://x/","loopIdleMs":1.5})").find("'loopIdleMs'"), std::string::npos);
    EXPECT_NE(error_of(R"({"url":"ws://x/","maxMessageBytes":"1"})").find("'maxMessageBytes'"), std::string::npos);
    EXPECT_NE(error_of(R"({"url":"ws://x/","caFile":5})").find("'caFile'"), std::string::npos);
    EXPECT_NE(error_of(R"({"url":"ws://x/","subprotocol":"a,b"})").find("'subprotocol'"), std::string::npos);
    EXPECT_NE(error_of(R"({"type":"sse","url":"ws://x/"})").find("'type'"), std::string::npos);
    EXPECT_NE(error_of("[1]").find("JSON object"), std::string::npos);
    EXPECT_NE(error_of("{").find("not valid JSON"), std::string::npos);
}

TEST(WsConfig, WsIde) {
    WsConfig c = parse_config(R"({"type":"ws-ide","url":"ws://127.0.0.1:1/","ideName":"VS Code","ideRunningInWindows":true})");
    EXPECT_EQ(c.type, "ws-ide");
    EXPECT_EQ(c.ide_name, "VS Code");
    EXPECT_TRUE(c.ide_running_in_windows);
    EXPECT_NE(error_of(R"({"type":"ws-ide","url":"ws://x/"})").find("'ideName' is required"), std::string::npos);
    EXPECT_NE(error_of(R"({"type":"ws-ide","url":"ws://x/","ideName":""})").find("'ideName'"), std::string::npos);
    EXPECT_NE(error_of(R"({"type":"ws-ide","url":"ws://x/","ideName":"x","ideRunningInWindows":"yes"})")
                  .find("'ideRunningInWindows' must be true or false"),
              std::string::npos);
    // On plain "ws" the IDE fields are not ours to judge: ignored like any unknown field.
    EXPECT_NO_THROW(parse_config(R"({"type":"ws","url":"ws://x/","ideRunningInWindows":"yes"})"));
}

TEST(HandshakeHeaders, Validation) {
    EXPECT_EQ(header_problem("Authorization", "Bearer abc"), "");
    EXPECT_NE(header_problem("", "x"), "");
    EXPECT_NE(header_problem("X:Y", "x"), "");
    EXPECT_NE(header_problem("X", std::string("a\0b", 3)), "");
    EXPECT_TRUE(is_reserved_header("HOST"));
    EXPECT_TRUE(is_reserved_header("sec-websocket-protocol"));
    EXPECT_FALSE(is_reserved_header("Origin"));
}

TEST(MessageAssembler, SinglePieceIsAViewWithoutCopy) {
    MessageAssembler a(100);
    std::string data = "{\"a\":1}";
    ASSERT_EQ(a.feed(data, true, false), MessageAssembler::Step::Message);
    EXPECT_EQ(a.message().data(), data.data());
}

TEST(MessageAssembler, PiecesAreJoined) {
    MessageAssembler a(100);
    EXPECT_EQ(a.feed("ab", false, false), MessageAssembler::Step::Partial);
    EXPECT_EQ(a.feed("cd", false, true /* ignored on continuations */), MessageAssembler::Step::Partial);
    ASSERT_EQ(a.feed("ef", true, false), MessageAssembler::Step::Message);
    EXPECT_EQ(a.message(), "abcdef");
    ASSERT_EQ(a.feed("x", true, false), MessageAssembler::Step::Message);
    EXPECT_EQ(a.message(), "x");
}

TEST(MessageAssembler, LimitIsExactAndChecked) {
    MessageAssembler a(4);
    EXPECT_EQ(a.feed("ab", false, false), MessageAssembler::Step::Partial);
    ASSERT_EQ(a.feed("cd", true, false), MessageAssembler::Step::Message);
    EXPECT_EQ(a.feed("abc", false, false), MessageAssembler::Step::Partial);
    EXPECT_EQ(a.feed("de", true, false), MessageAssembler::Step::TooLarge);
    EXPECT_EQ(a.feed("abcde", true, false), MessageAssembler::Step::TooLarge);
}

TEST(MessageAssembler, BinaryMessagesAreSkippedWhole) {
    MessageAssembler a(4);
    EXPECT_EQ(a.feed("0123456789", false, true), MessageAssembler::Step::Partial);  // not buffered: no limit
    EXPECT_TRUE(a.skipping_binary());
    EXPECT_EQ(a.feed("0123456789", true, false), MessageAssembler::Step::Skipped);
    ASSERT_EQ(a.feed("ok", true, false), MessageAssembler::Step::Message);
    EXPECT_EQ(a.message(), "ok");
}

TEST(SendQueue, BoundedButAlwaysTakesOneMessage) {
    SendQueue q(10);
    auto big = make_outgoing(std::string(25, 'x'));
    ASSERT_TRUE(q.push(big));  // empty queue: accepted even though larger than the capacity
    auto small = make_outgoing("abc");
    EXPECT_FALSE(q.push(small));
    ASSERT_NE(small, nullptr);  // left with the caller on refusal
    auto m = q.pop();
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->payload_size(), 25u);
    EXPECT_FALSE(q.push(small));  // still counted until written
    q.done(25);
    EXPECT_TRUE(q.push(small));
    EXPECT_EQ(q.pending_bytes(), 3u);
}

TEST(FrameWriter, ChunksCarryTheRightFlags) {
    FrameWriter w;
    std::string payload(kChunkBytes * 2 + 5, 'p');
    w.begin(make_outgoing(payload));
    FrameChunk c = w.next();
    EXPECT_EQ(c.size, kChunkBytes);
    EXPECT_EQ(c.flags, LWS_WRITE_TEXT | LWS_WRITE_NO_FIN);
    EXPECT_EQ(w.advance(c.size), 0u);
    c = w.next();
    EXPECT_EQ(c.flags, LWS_WRITE_CONTINUATION | LWS_WRITE_NO_FIN);
    EXPECT_EQ(w.advance(c.size), 0u);
    c = w.next();
    EXPECT_EQ(c.size, 5u);
    EXPECT_EQ(c.flags, LWS_WRITE_CONTINUATION);
    EXPECT_TRUE(c.last);
    EXPECT_EQ(w.advance(c.size), payload.size());
    EXPECT_FALSE(w.busy());

    w.begin(make_outgoing("{}"));
    c = w.next();
    EXPECT_EQ(c.flags, LWS_WRITE_TEXT);  // a small message is one final frame
}

}  // namespace
}  // namespace mcph::ws
