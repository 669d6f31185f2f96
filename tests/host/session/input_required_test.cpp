// Multi round-trip requests: resultType, answering inputRequests, and the retry's params.
#include "session/input_required.hpp"

#include <mcph/error.hpp>
#include <mcph/json.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using mcph::Error;
using mcph::Json;
using mcph::JsonValue;
using mcph::parse_json;
using mcph::to_json;
using namespace mcph::session;

// The error names the request ("tools/call from 's'"), built only when there is one.
std::string result_type_error(const char* result) {
    const std::string method = "tools/call";
    const std::string server = "s";
    try {
        result_type(parse_json(result), RequestLabel{method, server});
    } catch (const Error& e) {
        return e.what();
    }
    return "no error";
}

TEST(ResultType, MissingIsCompleteUnknownIsAProtocolErrorNamingTheRequest) {
    const std::string method = "tools/call";
    const std::string server = "s";
    const RequestLabel label{method, server};
    EXPECT_EQ(result_type(parse_json(R"({"content":[]})"), label), ResultType::Complete);
    EXPECT_EQ(result_type(parse_json(R"({"resultType":"complete"})"), label), ResultType::Complete);
    EXPECT_EQ(result_type(parse_json(R"({"resultType":"input_required"})"), label), ResultType::InputRequired);
    EXPECT_EQ(result_type(parse_json(R"({"resultType":"task"})"), label), ResultType::Task);
    EXPECT_EQ(result_type_error(R"({"resultType":"partial"})"), "tools/call from 's': unknown resultType 'partial'");
    EXPECT_EQ(result_type_error(R"({"resultType":7})"), "tools/call from 's': resultType is not a string");
}

TEST(InputRequests, EachEntryIsAnsweredAndTheStateKeptByteForByte) {
    Json result = parse_json(R"({"resultType":"input_required",
        "inputRequests":{"who":{"method":"elicitation/create","params":{"message":"name?"}},
                         "llm":{"method":"sampling/createMessage","params":{"maxTokens":5}}},
        "requestState":"opaque \u2713 \"state\" with \\ and \n and \u0000 inside"})");
    const std::string state(result["requestState"].GetString(), result["requestState"].GetStringLength());
    ASSERT_NE(state.find('\0'), std::string::npos) << "the state holds a NUL byte: it must survive as bytes, not as a C string";
    std::vector<std::string> asked;
    InputRound round = answer_input_requests(
        result,
        [&](const std::string& method, const JsonValue&) {
            asked.push_back(method);
            return parse_json(method == "elicitation/create" ? R"({"action":"accept","content":{"n":"x"}})" : R"({"role":"assistant"})");
        },
        [](const std::string&) { ADD_FAILURE(); }, "c");
    EXPECT_EQ(asked.size(), 2u);
    ASSERT_TRUE(round.request_state);
    EXPECT_EQ(*round.request_state, state);
    Json retry = retry_params(parse_json(R"({"name":"t","arguments":{"a":1}})"), round);
    EXPECT_EQ(std::string(retry["requestState"].GetString(), retry["requestState"].GetStringLength()), state);
    EXPECT_EQ(retry["inputResponses"]["who"]["action"], "accept");
    EXPECT_EQ(retry["inputResponses"]["llm"]["role"], "assistant");
    EXPECT_EQ(retry["arguments"]["a"].GetInt(), 1) << "the original params are kept";
}

TEST(InputRequests, NoStateMeansNoStateInTheRetry) {
    InputRound round = answer_input_requests(
        parse_json(R"({"resultType":"input_required","inputRequests":{"r":{"method":"roots/list"}}})"),
        [](const std::string&, const JsonValue&) { return parse_json(R"({"roots":[]})"); }, [](const std::string&) {}, "c");
    // An earlier round's state must not leak into this one.
    Json retry = retry_params(parse_json(R"({"name":"t","requestState":"old","inputResponses":{"x":{}}})"), round);
    EXPECT_FALSE(retry.HasMember("requestState"));
    EXPECT_FALSE(retry["inputResponses"].HasMember("x"));
    EXPECT_TRUE(retry["inputResponses"].HasMember("r"));
}

TEST(InputRequests, AnEntryThatCannotBeAnsweredIsLeftOutAndReported) {
    std::vector<std::string> warnings;
    InputRound round = answer_input_requests(
        parse_json(R"({"inputRequests":{"s":{"method":"sampling/createMessage","params":{}},"m":{"params":{}}}})"),
        [](const std::string&, const JsonValue&) -> Json { throw Error(mcph::ErrorKind::Remote, "declined", -1); },
        [&](const std::string& w) { warnings.push_back(w); }, "c");
    EXPECT_EQ(round.responses.MemberCount(), 0u);
    EXPECT_EQ(warnings.size(), 2u);
}

TEST(InputRequests, MalformedAndOversizedResultsAreRefused) {
    auto none = [](const std::string&, const JsonValue&) { return Json(rapidjson::kObjectType); };
    auto quiet = [](const std::string&) {};
    EXPECT_THROW(answer_input_requests(parse_json(R"({"resultType":"input_required"})"), none, quiet, "c"), Error)
        << "neither inputRequests nor requestState";
    EXPECT_THROW(answer_input_requests(parse_json(R"({"inputRequests":[]})"), none, quiet, "c"), Error);
    EXPECT_THROW(answer_input_requests(parse_json(R"({"requestState":5})"), none, quiet, "c"), Error);
    std::string many = "{\"inputRequests\":{";
    for (std::size_t i = 0; i <= kMaxInputRequestsPerRound; ++i)
        many += (i ? "," : "") + std::string("\"k") + std::to_string(i) + "\":{\"method\":\"roots/list\"}";
    many += "}}";
    EXPECT_THROW(answer_input_requests(parse_json(many), none, quiet, "c"), Error);
    Json big(rapidjson::kObjectType);
    const std::string huge(kMaxRequestStateBytes + 1, 'x');
    big.AddMember("requestState", JsonValue(huge.c_str(), static_cast<rapidjson::SizeType>(huge.size()), big.GetAllocator()),
                  big.GetAllocator());
    try {
        answer_input_requests(big, none, quiet, "c");
        ADD_FAILURE();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("bound"), std::string::npos) << e.what();
    }
}

TEST(InputRequests, OnlyThreeMethodsMayAskForInput) {
    EXPECT_TRUE(supports_input_required("tools/call"));
    EXPECT_TRUE(supports_input_required("prompts/get"));
    EXPECT_TRUE(supports_input_required("resources/read"));
    EXPECT_FALSE(supports_input_required("tools/list"));
    EXPECT_FALSE(supports_input_required("server/discover"));
}

}  // namespace
