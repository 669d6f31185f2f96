// The SAX pass that finds request and response ids, and the synthesized error response.
#include "jsonrpc_shape.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

namespace {

using mcph::http::error_response;
using mcph::http::inspect_message;
using Ids = std::vector<std::string>;

TEST(JsonRpcShape, RequestNotificationResponse) {
    auto r = inspect_message(R"({"jsonrpc":"2.0","id":1,"method":"ping"})");
    EXPECT_TRUE(r.valid);
    EXPECT_EQ(r.request_ids, Ids{"1"});
    EXPECT_TRUE(r.response_ids.empty());

    auto n = inspect_message(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    EXPECT_TRUE(n.valid);
    EXPECT_TRUE(n.request_ids.empty());
    EXPECT_TRUE(n.response_ids.empty());

    auto s = inspect_message(R"({"jsonrpc":"2.0","id":"a\"b","result":{"id":99,"method":"x"}})");
    EXPECT_TRUE(s.valid);
    EXPECT_TRUE(s.request_ids.empty());
    EXPECT_EQ(s.response_ids, Ids{R"("a\"b")"});
}

// Found by fuzz/jsonrpc_shape_fuzz.cpp: the recursive SAX parse overflowed the stack.
TEST(JsonRpcShape, DeepNestingIsRefusedWithoutExhaustingTheStack) {
    auto nested = [](size_t levels) {
        return R"({"id":3,"result":)" + std::string(levels, '[') + std::string(levels, ']') + "}";
    };
    auto ok = inspect_message(nested(100));
    EXPECT_TRUE(ok.valid);
    EXPECT_EQ(ok.response_ids, Ids{"3"});
    EXPECT_FALSE(inspect_message(nested(1000000)).valid);
    EXPECT_FALSE(inspect_message(std::string(1000000, '[')).valid);
}

TEST(JsonRpcShape, MemberOrderAndNestingDoNotConfuseIt) {
    auto r = inspect_message(R"({"params":{"id":5,"method":"m"},"method":"tools/call","id":"x-1","jsonrpc":"2.0"})");
    EXPECT_EQ(r.request_ids, Ids{R"("x-1")"});
    auto e = inspect_message(R"({"error":{"code":1,"message":"m","data":[{"id":3}]},"id":7})");
    EXPECT_EQ(e.response_ids, Ids{"7"});
}

TEST(JsonRpcShape, Batch) {
    auto b = inspect_message(R"([{"id":1,"method":"a"},{"method":"n"},{"id":2,"result":{}},{"id":3,"method":"b"}])");
    EXPECT_TRUE(b.valid);
    EXPECT_EQ(b.request_ids, (Ids{"1", "3"}));
    EXPECT_EQ(b.response_ids, Ids{"2"});
}

TEST(JsonRpcShape, NullAndContainerIdsAreNoIds) {
    auto r = inspect_message(R"({"id":null,"error":{"code":-32700,"message":"parse"}})");
    EXPECT_TRUE(r.valid);
    EXPECT_TRUE(r.response_ids.empty());
    auto o = inspect_message(R"({"id":{"x":1},"method":"m"})");
    EXPECT_TRUE(o.request_ids.empty());
}

TEST(JsonRpcShape, Invalid) {
    EXPECT_FALSE(inspect_message("").valid);
    EXPECT_FALSE(inspect_message("{").valid);
    EXPECT_FALSE(inspect_message("{\"id\":1} x").valid);
    EXPECT_FALSE(inspect_message("42").valid);
    EXPECT_FALSE(inspect_message("\"str\"").valid);
    EXPECT_FALSE(inspect_message(std::string("{\"id\":1}\0{}", 11)).valid);
    EXPECT_TRUE(inspect_message("  {\"id\":1,\"result\":0}\n").valid);
}

TEST(JsonRpcShape, ErrorResponseIsValidJsonRpc) {
    std::string m = error_response(R"("q\"1")", "HTTP 500 from http://x: \"boom\"\n", 500);
    rapidjson::Document d;
    d.Parse(m.c_str());
    ASSERT_FALSE(d.HasParseError()) << m;
    EXPECT_STREQ(d["jsonrpc"].GetString(), "2.0");
    EXPECT_STREQ(d["id"].GetString(), "q\"1");
    EXPECT_EQ(d["error"]["code"].GetInt(), -32000);
    EXPECT_STREQ(d["error"]["message"].GetString(), "HTTP 500 from http://x: \"boom\"\n");
    EXPECT_EQ(d["error"]["data"]["httpStatus"].GetInt(), 500);
    std::string n = error_response("12", "x", 0);
    d.Parse(n.c_str());
    EXPECT_EQ(d["id"].GetInt(), 12);
    EXPECT_EQ(d["error"]["data"]["httpStatus"].GetInt(), 0);  // 0: no HTTP response at all
    EXPECT_EQ(inspect_message(m).response_ids, Ids{R"("q\"1")"});
}

// Issue #9: nesting is bounded (mcph::json_bounds::kMaxDepth) and parsed under that bound, so a
// 100,000-deep message is refused with a reason instead of overflowing the stack.
std::string nested(size_t depth, const std::string& inner = "1") {
    return std::string(depth, '[') + inner + std::string(depth, ']');
}

TEST(JsonRpcShape, DeepNestingIsRefusedNamingTheBound) {
    for (size_t depth : {size_t{129}, size_t{100000}, size_t{1000000}}) {
        auto r = inspect_message(nested(depth));
        EXPECT_FALSE(r.valid) << depth;
        EXPECT_NE(r.problem.find("nested deeper than 128 levels"), std::string::npos) << r.problem;
    }
    // Inside a message object (depth counts from the root).
    std::string deep_params = R"({"jsonrpc":"2.0","id":5,"method":"x","params":)" + nested(200) + "}";
    auto m = inspect_message(deep_params);
    EXPECT_FALSE(m.valid);
    EXPECT_TRUE(m.request_ids.empty());
    // Unterminated: a million '[' and nothing else.
    auto u = inspect_message(std::string(1000000, '['));
    EXPECT_FALSE(u.valid);
    EXPECT_NE(u.problem.find("deeper"), std::string::npos) << u.problem;
}

TEST(JsonRpcShape, NestingUpToTheBoundIsFine) {
    auto r = inspect_message(nested(128));
    EXPECT_TRUE(r.valid) << r.problem;
    std::string ok = R"({"jsonrpc":"2.0","id":5,"method":"x","params":)" + nested(120) + "}";
    auto m = inspect_message(ok);
    EXPECT_TRUE(m.valid) << m.problem;
    EXPECT_EQ(m.request_ids, Ids{"5"});
}

TEST(JsonRpcShape, ProblemSaysWhy) {
    EXPECT_NE(inspect_message("{\"a\":").problem.find("malformed JSON"), std::string::npos);
    EXPECT_NE(inspect_message("42").problem.find("neither an object nor an array"), std::string::npos);
    EXPECT_TRUE(inspect_message("{}").problem.empty());
}

// notifications/cancelled names the request the host gave up on (the transport stops resuming it),
// whatever the member order; other notifications and requests name none.
TEST(JsonRpcShape, CancelledRequestIds) {
    auto c = inspect_message(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12,"reason":"timeout"}})");
    EXPECT_TRUE(c.valid);
    EXPECT_EQ(c.cancelled_ids, Ids{"12"});
    auto reordered = inspect_message(R"({"params":{"reason":"x","requestId":"a"},"method":"notifications/cancelled","jsonrpc":"2.0"})");
    EXPECT_EQ(reordered.cancelled_ids, Ids{R"("a")"});
    auto nested = inspect_message(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"x":{"requestId":3}}})");
    EXPECT_TRUE(nested.cancelled_ids.empty());
    auto other = inspect_message(R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"requestId":4}})");
    EXPECT_TRUE(other.cancelled_ids.empty());
    auto request = inspect_message(R"({"jsonrpc":"2.0","id":9,"method":"notifications/cancelled","params":{"requestId":5}})");
    EXPECT_TRUE(request.cancelled_ids.empty());
    auto batch = inspect_message(R"([{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":6}},{"jsonrpc":"2.0","id":7,"method":"ping"}])");
    EXPECT_EQ(batch.cancelled_ids, Ids{"6"});
    EXPECT_EQ(batch.request_ids, Ids{"7"});
}

}  // namespace

namespace {

// Issue #16: the scanner replaced a RapidJSON SAX pass. The ids it finds are spelled as RapidJSON
// would write them (what the tracker keys on), and what it refuses RapidJSON refuses.
TEST(JsonRpcShapeScanner, IdsAreCanonicalWhateverTheSpelling) {
    EXPECT_EQ(inspect_message(R"({"id":"a\u0041\/","result":1})").response_ids, Ids{R"("aA/")"});
    EXPECT_EQ(inspect_message(R"({"\u0069d":4,"result":1})").response_ids, Ids{"4"});
    EXPECT_EQ(inspect_message(R"({"id":-0,"result":1})").response_ids, Ids{"0"});
    EXPECT_EQ(inspect_message(R"({"id":1e2,"result":1})").response_ids, Ids{"100.0"});
    EXPECT_EQ(inspect_message(R"({"id":-17,"result":1})").response_ids, Ids{"-17"});
    EXPECT_EQ(inspect_message(R"({"id":18446744073709551615,"result":1})").response_ids, Ids{"18446744073709551615"});
    EXPECT_EQ(inspect_message(R"({"id":"caf)" "\xC3\xA9" R"(","method":"m"})").request_ids, Ids{"\"caf\xC3\xA9\""});
    auto c = inspect_message(R"({"method":"notifications/cancel\u006ced","params":{"requestId":"r\"1"}})");
    EXPECT_EQ(c.cancelled_ids, Ids{R"("r\"1")"});
    EXPECT_EQ(inspect_message(R"({"id":true,"method":"m"})").request_ids, Ids{});
}

TEST(JsonRpcShapeScanner, RefusesWhatTheGrammarRefuses) {
    const char* bad[] = {
        R"({"id":1,})", R"({"id" 1})", R"({id:1})", R"([1,])", R"([01])", R"([1.])", R"([1e])", R"([-])",
        R"([tru])", R"([nul])", R"(["a\x"])", R"(["\u12G4"])", R"(["\uD800"])", R"(["\uD800\u0041"])",
        R"(["unterminated)", R"({"a":1}})", R"([1e400])", R"([-1e400])", R"({"a":[1,2})", R"([1 2])", R"(["a\)",
    };
    for (const char* text : bad) {
        auto r = inspect_message(text);
        EXPECT_FALSE(r.valid) << text;
        EXPECT_NE(r.problem.find("malformed JSON"), std::string::npos) << text << ": " << r.problem;
        rapidjson::Document d;
        d.Parse(text);
        EXPECT_TRUE(d.HasParseError()) << "the oracle accepts " << text;
    }
    EXPECT_FALSE(inspect_message(std::string("[\"a\x01\"]")).valid);  // a raw control character
    EXPECT_FALSE(inspect_message(std::string("[\"a\0\"]", 5)).valid);
    const char* good[] = {
        R"([1.5e-3,-0.0,0,1E+2,true,false,null,"",{},[]])", R"({"a":{"b":[{"c":"\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00"}]}})",
        " \t\r\n[ 1 , { \"k\" : [ ] } ] \n", R"(["\uDC00"])",
    };
    for (const char* text : good) EXPECT_TRUE(inspect_message(text).valid) << text << ": " << inspect_message(text).problem;
}

// A 1 MiB result: strings of every length around the 16-byte steps, escapes at the edges.
TEST(JsonRpcShapeScanner, LongStringsAreSkippedExactly) {
    for (size_t n : {size_t{0}, size_t{15}, size_t{16}, size_t{17}, size_t{31}, size_t{1} << 20}) {
        std::string text(n, 'x');
        auto ok = inspect_message(R"({"jsonrpc":"2.0","id":9,"result":{"text":")" + text + R"(\"","id":3}})");
        EXPECT_TRUE(ok.valid) << n << ok.problem;
        EXPECT_EQ(ok.response_ids, Ids{"9"});
        std::string with_quote = text;
        with_quote.insert(with_quote.size() / 2, "\"");
        EXPECT_FALSE(inspect_message(R"({"id":9,"result":")" + with_quote + R"("})").valid) << n;
        std::string with_control = text + "\n";
        EXPECT_FALSE(inspect_message(R"({"id":9,"result":")" + with_control + R"("})").valid) << n;
    }
}

TEST(JsonRpcShapeScanner, CountsItsRuns) {
    const std::uint64_t before = mcph::http::inspect_message_count();
    inspect_message("{}");
    EXPECT_EQ(mcph::http::inspect_message_count(), before + 1);
}

}  // namespace

#include <mcph/bounded_json.hpp>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <random>

namespace {

// The ids a RapidJSON DOM finds, spelled by its Writer: the oracle for the scanner.
Ids dom_ids(const rapidjson::Value& message, bool requests) {
    Ids out;
    auto one = [&](const rapidjson::Value& m) {
        if (!m.IsObject() || !m.HasMember("id") || m.HasMember("method") != requests) return;
        const rapidjson::Value& id = m["id"];
        if (!id.IsString() && !id.IsNumber()) return;
        rapidjson::StringBuffer b;
        rapidjson::Writer<rapidjson::StringBuffer> w(b);
        id.Accept(w);
        out.emplace_back(b.GetString(), b.GetSize());
    };
    if (message.IsArray())
        for (const auto& m : message.GetArray()) one(m);
    else
        one(message);
    return out;
}

// Thousands of mutations of real messages (bytes flipped, inserted, cut): the scanner accepts
// exactly what the bounded RapidJSON parse accepts, and finds the same ids.
TEST(JsonRpcShapeScanner, AgreesWithRapidJsonOnMutatedMessages) {
    const std::string seeds[] = {
        R"({"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"h\u00e9llo \"q\" \\ / \n"}],"isError":false}})",
        R"([{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{"name":"x","arguments":{"n":-1.5e3,"b":[true,null]}}},{"id":2,"result":{}}])",
        R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r","reason":"t"}})",
        R"({"id":12345678901234567890,"error":{"code":-32601,"message":"m","data":[[[{}]]]}})",
    };
    const char alphabet[] = "{}[]\",:\\u0123456789eE+-.tfnrl \n\x01\xC3";
    std::mt19937 rng(16);
    size_t compared = 0;
    for (int round = 0; round < 20000; ++round) {
        std::string text = seeds[round % 4];
        const int edits = 1 + static_cast<int>(rng() % 3);
        for (int e = 0; e < edits; ++e) {
            const size_t at = rng() % (text.size() + 1);
            const char c = alphabet[rng() % (sizeof alphabet - 1)];
            switch (rng() % 3) {
                case 0: if (at < text.size()) text[at] = c; break;
                case 1: text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c); break;
                default: if (at < text.size()) text.erase(at, 1); break;
            }
        }
        rapidjson::Document d;
        const bool oracle = mcph::json_bounds::parse(d, text) && (d.IsObject() || d.IsArray());
        auto shape = inspect_message(text);
        ASSERT_EQ(shape.valid, oracle) << text << "\n" << shape.problem;
        if (!oracle) continue;
        ++compared;
        EXPECT_EQ(shape.request_ids, dom_ids(d, true)) << text;
        EXPECT_EQ(shape.response_ids, dom_ids(d, false)) << text;
    }
    EXPECT_GT(compared, 2000u);  // the mutations left enough valid messages to compare ids on
}

}  // namespace
