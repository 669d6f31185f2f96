// json::borrowing_copy: the params of a synchronous tools/call refer to the caller's long strings
// instead of copying them, copy everything else, and keep the write bound.
#include "json/json_access.hpp"

#include <mcph/json.hpp>

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace {

using mcph::Json;
using mcph::JsonValue;

TEST(BorrowingCopy, LongStringsAreReferredToShortOnesCopied) {
    Json args = mcph::parse_json(R"({"text":")" + std::string(1 << 20, 'x') + R"(","tag":"short","list":[1,2.5,null,true,")" +
                                 std::string(300, 'y') + R"("],"nested":{"k":"v"}})");
    Json params(rapidjson::kObjectType);
    auto copied = mcph::json::borrowing_copy(args, params.GetAllocator(), mcph::json::kWriteDepth);
    ASSERT_TRUE(copied);
    params.AddMember("arguments", *copied, params.GetAllocator());
    const JsonValue& got = params["arguments"];
    EXPECT_EQ(got["text"].GetString(), args["text"].GetString()) << "the 1 MiB string must be the caller's bytes";
    EXPECT_EQ(got["list"][4].GetString(), args["list"][4].GetString());
    EXPECT_NE(got["tag"].GetString(), args["tag"].GetString()) << "a short string is copied";
    EXPECT_EQ(mcph::to_json(got), mcph::to_json(args));
    // A clone of the params (the session-expiry retry's) shares the borrowed bytes too.
    Json retry = mcph::clone_json(params);
    EXPECT_EQ(retry["arguments"]["text"].GetString(), args["text"].GetString());
}

TEST(BorrowingCopy, RefusesPastTheDepthBoundAndNonFiniteNumbers) {
    Json deep(rapidjson::kObjectType);
    JsonValue* at = &deep;
    for (int i = 0; i < 50; ++i) {
        at->AddMember("d", JsonValue(rapidjson::kObjectType), deep.GetAllocator());
        at = &(*at)["d"];
    }
    Json target;
    EXPECT_FALSE(mcph::json::borrowing_copy(deep, target.GetAllocator(), 40));
    EXPECT_TRUE(mcph::json::borrowing_copy(deep, target.GetAllocator(), 60));

    Json nan(rapidjson::kObjectType);
    nan.AddMember("x", JsonValue(std::numeric_limits<double>::quiet_NaN()), nan.GetAllocator());
    EXPECT_FALSE(mcph::json::borrowing_copy(nan, target.GetAllocator(), 10));
}

}  // namespace
