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

}  // namespace
