// Table-driven tests of the SSE parser: every case is also fed split at every byte boundary and
// one byte at a time, and must give the same events.
#include "sse_parser.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using mcph::http::SseParser;

struct Seen {
    std::string type, data, id;
    bool operator==(const Seen& o) const { return type == o.type && data == o.data && id == o.id; }
};
std::ostream& operator<<(std::ostream& os, const Seen& s) {
    return os << "{" << s.type << "|" << s.data << "|" << s.id << "}";
}

struct Collector final : SseParser::Sink {
    std::vector<Seen> events;
    std::vector<uint64_t> retries;
    void on_event(const SseParser::Event& e) override {
        events.push_back({std::string(e.type), std::string(e.data), std::string(e.last_event_id)});
    }
    void on_retry(uint64_t ms) override { retries.push_back(ms); }
};

struct Case {
    const char* name;
    std::string input;
    std::vector<Seen> events;          // after finish()
    std::vector<uint64_t> retries = {};
    size_t before_finish = SIZE_MAX;   // events expected before finish(); SIZE_MAX: all of them
};

const std::vector<Case>& cases() {
    static const std::vector<Case> all = {
        {"single", "data: {\"a\":1}\n\n", {{"message", "{\"a\":1}", ""}}},
        {"no space after colon", "data:x\n\n", {{"message", "x", ""}}},
        {"only one space stripped", "data:  x\n\n", {{"message", " x", ""}}},
        {"multi-line data", "data: a\ndata: b\ndata:\ndata: c\n\n", {{"message", "a\nb\n\nc", ""}}},
        {"crlf", "data: a\r\ndata: b\r\n\r\n", {{"message", "a\nb", ""}}},
        {"cr only", "data: a\rdata: b\r\r", {{"message", "a\nb", ""}}},
        {"mixed line ends", "id: 1\r\ndata: a\rdata: b\n\r\n", {{"message", "a\nb", "1"}}},
        {"comments ignored", ": keep-alive\n:\ndata: x\n: more\n\n", {{"message", "x", ""}}},
        {"event type", "event: ping\ndata: x\n\nevent: message\ndata: y\n\n",
         {{"ping", "x", ""}, {"message", "y", ""}}},
        {"type resets after dispatch", "event: other\ndata: x\n\ndata: y\n\n",
         {{"other", "x", ""}, {"message", "y", ""}}},
        {"id persists", "id: 7\ndata: a\n\ndata: b\n\n", {{"message", "a", "7"}, {"message", "b", "7"}}},
        {"empty id resets", "id: 7\ndata: a\n\nid\ndata: b\n\n", {{"message", "a", "7"}, {"message", "b", ""}}},
        {"id with NUL ignored", std::string("id: 1\ndata: a\n\nid: 2\0x\ndata: b\n\n", 32),
         {{"message", "a", "1"}, {"message", "b", "1"}}},
        {"priming event: id only", "id: p0\n\n", {{"message", "", "p0"}}},
        {"retry", "retry: 2500\ndata: x\n\n", {{"message", "x", ""}}, {2500}},
        {"retry not a number", "retry: 25x\nretry: -1\nretry:\ndata: x\n\n", {{"message", "x", ""}}},
        {"retry alone is no event", "retry: 10\n\n", {}, {10}},
        {"unknown field ignored", "foo: bar\ndata: x\n\n", {{"message", "x", ""}}},
        {"field without colon", "data\n\n", {{"message", "", ""}}},
        {"blank lines between", "\n\n\ndata: x\n\n\n\n", {{"message", "x", ""}}},
        {"bom skipped", "\xEF\xBB\xBF" "data: x\n\n", {{"message", "x", ""}}},
        {"bom only at start", "data: \xEF\xBB\xBFx\n\n", {{"message", "\xEF\xBB\xBFx", ""}}},
        {"no trailing blank line: dispatched at a clean end", "data: x\n", {{"message", "x", ""}}, {}, 0},
        {"unterminated last line: dispatched at a clean end", "data: a\n\ndata: b", {{"message", "a", ""},
                                                                                      {"message", "b", ""}}, {}, 1},
        {"utf-8 passes through", "data: h\xC3\xA9llo \xE2\x9C\x93\n\n", {{"message", "h\xC3\xA9llo \xE2\x9C\x93", ""}}},
    };
    return all;
}

void run(const Case& c, const std::vector<std::string>& chunks) {
    SseParser parser(1 << 20);
    Collector sink;
    for (const std::string& chunk : chunks) ASSERT_EQ(parser.feed(chunk, sink), SseParser::Status::Ok);
    if (c.before_finish != SIZE_MAX) {
        EXPECT_EQ(sink.events.size(), c.before_finish) << c.name;
    }
    ASSERT_EQ(parser.finish(sink), SseParser::Status::Ok);
    EXPECT_EQ(sink.events, c.events) << c.name;
    EXPECT_EQ(sink.retries, c.retries) << c.name;
}

TEST(SseParser, WholeInput) {
    for (const Case& c : cases()) run(c, {c.input});
}

TEST(SseParser, SplitAtEveryByte) {
    for (const Case& c : cases())
        for (size_t cut = 0; cut <= c.input.size(); ++cut) {
            SCOPED_TRACE(std::string(c.name) + " cut at " + std::to_string(cut));
            run(c, {c.input.substr(0, cut), c.input.substr(cut)});
        }
}

TEST(SseParser, OneByteAtATime) {
    for (const Case& c : cases()) {
        std::vector<std::string> bytes;
        for (char ch : c.input) bytes.emplace_back(1, ch);
        run(c, bytes);
    }
}

TEST(SseParser, EventsComeOutBeforeTheStreamEnds) {
    SseParser parser(1024);
    Collector sink;
    parser.feed("data: first\n\ndata: sec", sink);
    ASSERT_EQ(sink.events.size(), 1u);
    EXPECT_EQ(sink.events[0].data, "first");
    parser.feed("ond\n\n", sink);
    ASSERT_EQ(sink.events.size(), 2u);
    EXPECT_EQ(sink.events[1].data, "second");
}

TEST(SseParser, CrAtChunkEndThenLfIsOneLineBreak) {
    SseParser parser(1024);
    Collector sink;
    parser.feed("data: a\r", sink);
    parser.feed("\ndata: b\r", sink);
    parser.feed("\n\r", sink);
    parser.feed("\n", sink);
    ASSERT_EQ(sink.events.size(), 1u);
    EXPECT_EQ(sink.events[0].data, "a\nb");
}

TEST(SseParser, OversizedLineIsRefused) {
    SseParser parser(100);
    Collector sink;
    EXPECT_EQ(parser.feed("data: " + std::string(60, 'x'), sink), SseParser::Status::Ok);
    EXPECT_EQ(parser.feed(std::string(60, 'x'), sink), SseParser::Status::TooLarge);
}

TEST(SseParser, OversizedEventAcrossLinesIsRefused) {
    SseParser parser(100);
    Collector sink;
    std::string line = "data: " + std::string(40, 'x') + "\n";
    EXPECT_EQ(parser.feed(line, sink), SseParser::Status::Ok);
    EXPECT_EQ(parser.feed(line, sink), SseParser::Status::Ok);
    EXPECT_EQ(parser.feed(line, sink), SseParser::Status::TooLarge);
    EXPECT_TRUE(sink.events.empty());
}

TEST(SseParser, LimitIsPerEvent) {
    SseParser parser(100);
    Collector sink;
    for (int i = 0; i < 50; ++i)
        ASSERT_EQ(parser.feed("data: " + std::string(80, 'x') + "\n\n", sink), SseParser::Status::Ok);
    EXPECT_EQ(sink.events.size(), 50u);
}

TEST(SseParser, LastEventIdIsTracked) {
    SseParser parser(1024);
    Collector sink;
    parser.feed("id: 1\ndata: a\n\nid: 2\n", sink);
    EXPECT_EQ(parser.last_event_id(), "1");  // the second event is not dispatched yet
    parser.feed("\n", sink);
    EXPECT_EQ(parser.last_event_id(), "2");
}

// Issue #10 item 7: `id:` and `event:` values count against the bound like data does — whether the
// line comes whole or piece by piece — and the id a stream keeps between events counts too.
TEST(SseParser, OversizedIdIsRefused) {
    for (size_t piece : {size_t{1}, size_t{7}, size_t{4096}}) {
        SseParser parser(100);
        Collector sink;
        std::string input = "id: " + std::string(200, '7') + "\ndata: x\n\n";
        SseParser::Status st = SseParser::Status::Ok;
        for (size_t i = 0; i < input.size() && st == SseParser::Status::Ok; i += piece)
            st = parser.feed(input.substr(i, piece), sink);
        EXPECT_EQ(st, SseParser::Status::TooLarge) << "pieces of " << piece;
        EXPECT_TRUE(sink.events.empty());
    }
}

TEST(SseParser, OversizedEventTypeIsRefused) {
    SseParser parser(100);
    Collector sink;
    EXPECT_EQ(parser.feed("event: " + std::string(200, 't') + "\ndata: x\n\n", sink), SseParser::Status::TooLarge);
    EXPECT_TRUE(sink.events.empty());
}

TEST(SseParser, IdTypeAndDataShareTheBound) {
    SseParser parser(100);
    Collector sink;
    EXPECT_EQ(parser.feed("id: " + std::string(40, 'i') + "\nevent: " + std::string(30, 't') + "\n", sink),
              SseParser::Status::Ok);
    EXPECT_EQ(parser.feed("data: " + std::string(40, 'd') + "\n", sink), SseParser::Status::TooLarge);
}

TEST(SseParser, TheKeptLastIdCountsAgainstLaterEvents) {
    SseParser parser(100);
    Collector sink;
    ASSERT_EQ(parser.feed("id: " + std::string(60, 'i') + "\ndata: a\n\n", sink), SseParser::Status::Ok);
    ASSERT_EQ(sink.events.size(), 1u);
    EXPECT_EQ(sink.events[0].id, std::string(60, 'i'));
    EXPECT_EQ(parser.feed("data: " + std::string(50, 'd') + "\n\n", sink), SseParser::Status::TooLarge);
    // A shorter id replaces it and frees the room again.
    SseParser again(100);
    ASSERT_EQ(again.feed("id: " + std::string(60, 'i') + "\ndata: a\n\nid: 2\ndata: b\n\n", sink),
              SseParser::Status::Ok);
    EXPECT_EQ(again.feed("data: " + std::string(50, 'd') + "\n\n", sink), SseParser::Status::Ok);
    EXPECT_EQ(again.last_event_id(), "2");
}

}  // namespace
