// The form's checks on their own (host/cli/elicitation_form.cpp): each kind of field and bound, and
// the accept / decline / cancel flow with a scripted reader — the pty tests (cli_forms_test.cpp)
// prove the same through the real binary.
#include "elicitation_form.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <sstream>

namespace mcph::cli {
namespace {

FormField field_of(const char* schema_json) {
    Json schema;
    schema.Parse(schema_json);
    Json wrapper(rapidjson::kObjectType);
    auto& a = wrapper.GetAllocator();
    JsonValue props(rapidjson::kObjectType);
    props.AddMember("f", JsonValue(schema, a), a);
    wrapper.AddMember("properties", props, a);
    std::string error;
    auto fields = read_form_fields(wrapper, error);
    EXPECT_EQ(error, "") << schema_json;
    EXPECT_EQ(fields.size(), 1u) << schema_json;
    return fields.empty() ? FormField{} : std::move(fields[0]);
}

// The JSON an answer becomes, or "refused: <why>".
std::string answer(const char* schema_json, const std::string& typed) {
    std::string why;
    auto value = parse_answer(field_of(schema_json), typed, why);
    return value ? to_json(*value) : "refused: " + why;
}

TEST(ElicitationForm, StringsAreCheckedForLengthAndFormat) {
    EXPECT_EQ(answer(R"({"type":"string","minLength":2,"maxLength":4})", "abc"), "\"abc\"");
    EXPECT_EQ(answer(R"({"type":"string","minLength":2,"maxLength":4})", "abcde"), "refused: text of 2 to 4 characters");
    EXPECT_EQ(answer(R"({"type":"string","maxLength":2})", "\xc3\xa9\xc3\xa9"), "\"\xc3\xa9\xc3\xa9\"") << "code points, not bytes";
    EXPECT_EQ(answer(R"({"type":"string","format":"email"})", "a@b.org"), "\"a@b.org\"");
    EXPECT_NE(answer(R"({"type":"string","format":"email"})", "nope").find("refused"), std::string::npos);
    EXPECT_EQ(answer(R"({"type":"string","format":"uri"})", "https://x.org/a"), "\"https://x.org/a\"");
    EXPECT_NE(answer(R"({"type":"string","format":"uri"})", "x.org a").find("refused"), std::string::npos);
    EXPECT_EQ(answer(R"({"type":"string","format":"date"})", "2024-02-29"), "\"2024-02-29\"");
    EXPECT_EQ(answer(R"({"type":"string","format":"date"})", "2023-02-29"), "refused: a date, YYYY-MM-DD");
    EXPECT_EQ(answer(R"({"type":"string","format":"date-time"})", "2025-11-25T14:30:00Z"), "\"2025-11-25T14:30:00Z\"");
    EXPECT_EQ(answer(R"({"type":"string","format":"date-time"})", "2025-11-25T14:30:00+01:00"), "\"2025-11-25T14:30:00+01:00\"");
    EXPECT_NE(answer(R"({"type":"string","format":"date-time"})", "2025-11-25 14:30").find("refused"), std::string::npos);
}

TEST(ElicitationForm, NumbersAreNumbersInsideTheirRange) {
    EXPECT_EQ(answer(R"({"type":"integer","minimum":0,"maximum":1000})", "42"), "42");
    EXPECT_EQ(answer(R"({"type":"integer","minimum":0,"maximum":1000})", "5000"), "refused: a whole number from 0 to 1000");
    EXPECT_EQ(answer(R"({"type":"integer"})", "4.5"), "refused: a whole number");
    EXPECT_EQ(answer(R"({"type":"integer"})", "12abc"), "refused: a whole number");
    EXPECT_EQ(answer(R"({"type":"number","minimum":1.5})", "1"), "refused: a number of at least 1.5");
    EXPECT_EQ(answer(R"({"type":"number"})", "2.25"), "2.25");
    EXPECT_EQ(answer(R"({"type":"number"})", "inf"), "refused: a number");
}

TEST(ElicitationForm, BooleansAcceptOnlyYesOrNo) {
    EXPECT_EQ(answer(R"({"type":"boolean"})", "Yes"), "true");
    EXPECT_EQ(answer(R"({"type":"boolean"})", "n"), "false");
    EXPECT_EQ(answer(R"({"type":"boolean"})", "false"), "false");
    EXPECT_EQ(answer(R"({"type":"boolean"})", "maybe"), "refused: yes or no (y/yes/true or n/no/false)");
}

TEST(ElicitationForm, ChoicesByNumberOrValue) {
    const char* single = R"({"type":"string","oneOf":[{"const":"a","title":"Apple"},{"const":"b","title":"Banana"}]})";
    EXPECT_EQ(answer(single, "2"), "\"b\"");
    EXPECT_EQ(answer(single, "a"), "\"a\"");
    EXPECT_NE(answer(single, "3").find("refused"), std::string::npos);
    EXPECT_NE(answer(single, "Cherry").find("refused"), std::string::npos);
    const char* multi = R"({"type":"array","minItems":1,"maxItems":2,"items":{"anyOf":[{"const":"x"},{"const":"y"},{"const":"z"}]}})";
    EXPECT_EQ(answer(multi, "1, z"), "[\"x\",\"z\"]");
    EXPECT_EQ(answer(multi, "1,1"), "[\"x\"]") << "a choice given twice counts once";
    EXPECT_EQ(answer(multi, "1,2,3"), "refused: between 1 and 2 choices");
    EXPECT_NE(answer(multi, "1,w").find("refused"), std::string::npos);
    const FormField legacy = field_of(R"({"type":"string","enum":["p1","p2"],"enumNames":["Cats","Dogs"]})");
    ASSERT_EQ(legacy.choices.size(), 2u);
    EXPECT_EQ(legacy.choices[1].label, "Dogs");
}

TEST(ElicitationForm, UnaskableSchemasAreRefusedNamingTheField) {
    Json schema;
    schema.Parse(R"({"type":"object","properties":{"deep":{"type":"object","properties":{}}}})");
    std::string error;
    EXPECT_TRUE(read_form_fields(schema, error).empty());
    EXPECT_NE(error.find("'deep'"), std::string::npos) << error;
}

TEST(ElicitationForm, AFormTooLongToReadIsRefusedNamingTheBound) {
    std::string schema = R"({"type":"object","properties":{)";
    for (int i = 0; i < 101; ++i) schema += (i ? "," : "") + std::string("\"f") + std::to_string(i) + "\":{\"type\":\"string\"}";
    schema += "}}";
    Json doc;
    doc.Parse(schema.c_str());
    std::string error;
    EXPECT_TRUE(read_form_fields(doc, error).empty());
    EXPECT_NE(error.find("101 fields (at most 100)"), std::string::npos) << error;
}

ElicitationResponse run(const char* schema_json, std::deque<std::string> lines, std::string* shown = nullptr) {
    ElicitationRequest request;
    request.server = "s";
    request.message = "m";
    request.requested_schema.Parse(schema_json);
    std::ostringstream out;
    auto response = ask_form(request, [&]() -> std::optional<std::string> {
        if (lines.empty()) return std::nullopt;
        std::string l = lines.front();
        lines.pop_front();
        return l;
    }, out);
    if (shown) *shown = out.str();
    return response;
}

TEST(ElicitationForm, RequiredFieldsAreAskedAgainAndEditingStartsOver) {
    const char* schema = R"({"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer","default":7}},"required":["a"]})";
    std::string shown;
    auto r = run(schema, {"", "first", "", "e", "second", "9", "y"}, &shown);
    EXPECT_EQ(r.action, "accept");
    EXPECT_EQ(to_json(r.content), R"({"a":"second","b":9})");
    EXPECT_NE(shown.find("this field is required"), std::string::npos) << shown;
    EXPECT_EQ(run(schema, {"x", "", "n"}).action, "decline");
    EXPECT_EQ(run(schema, {"x"}).action, "cancel") << "end of input at the next field";
    EXPECT_EQ(run(schema, {"x", ""}).action, "cancel") << "end of input at the confirm step";
}

TEST(ElicitationForm, UrlModeOpensOnlyOnO) {
    ElicitationRequest request;
    request.mode = "url";
    request.url = "https://user@login.example.com:8443/a?b";
    int opened = 0;
    const auto open = [&](const std::string&) { return ++opened > 0; };
    std::ostringstream out;
    std::deque<std::string> lines = {"y"};
    const auto reader = [&]() -> std::optional<std::string> {
        if (lines.empty()) return std::nullopt;
        std::string l = lines.front();
        lines.pop_front();
        return l;
    };
    EXPECT_EQ(ask_url(request, reader, out, open).action, "accept");
    EXPECT_EQ(opened, 0);
    EXPECT_NE(out.str().find("host: login.example.com\n"), std::string::npos) << out.str();
    lines = {"o"};
    EXPECT_EQ(ask_url(request, reader, out, open).action, "accept");
    EXPECT_EQ(opened, 1);
    EXPECT_EQ(ask_url(request, reader, out, open).action, "cancel");
    EXPECT_EQ(opened, 1);
}

}  // namespace
}  // namespace mcph::cli
