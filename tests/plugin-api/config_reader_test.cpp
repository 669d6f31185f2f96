// plugin_helper.hpp's ConfigReader: every getter, every error path (typed kind, the field's path,
// what was expected, the message), both bounds (size, depth), the unknown-key policy, and the
// boundary: a failure becomes MCPH_ERR_INVALID_ARGUMENT + message, never an exception across it.
#include <mcph/plugin_helper.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <string>

#include "config_reader_cxx17.hpp"

namespace {

using mcph::plugin::ArrayRules;
using mcph::plugin::ConfigError;
using mcph::plugin::ConfigErrorKind;
using mcph::plugin::ConfigException;
using mcph::plugin::ConfigLimits;
using mcph::plugin::ConfigReader;
using mcph::plugin::StringPairs;
using mcph::plugin::StringRules;

TEST(ConfigReader, ReadsEveryKindOfField) {
    ConfigReader r(R"({"url":"http://h/","tls":true,"timeoutMs":1500,"args":["-y","s"],
                       "headers":{"B":"2","A":"1"},"idp":{"issuer":"https://i","port":8123},"scopes":"a b"})",
                   "t");
    EXPECT_EQ(r.required_string("url"), "http://h/");
    EXPECT_EQ(r.boolean("tls"), true);
    EXPECT_EQ(r.integer<std::uint32_t>("timeoutMs", 1, 600000), 1500u);
    EXPECT_EQ(r.string_array("args"), (std::vector<std::string>{"-y", "s"}));
    EXPECT_EQ(r.string_map("headers"), (StringPairs{{"B", "2"}, {"A", "1"}})) << "document order is kept";
    auto idp = r.object("idp");
    ASSERT_TRUE(idp);
    EXPECT_EQ(idp->required_string("issuer"), "https://i");
    EXPECT_EQ(idp->integer<int>("port", 0, 65535, 0), 8123);
    EXPECT_EQ(idp->path("issuer"), "idp.issuer");
    const rapidjson::Value* scopes = r.value("scopes");
    ASSERT_TRUE(scopes && scopes->IsString());
    EXPECT_TRUE(r.ok());
    EXPECT_FALSE(r.error());
}

TEST(ConfigReader, AbsentAndNullFieldsGiveTheDefault) {
    ConfigReader r(R"({"cwd":null})", "t");
    EXPECT_EQ(r.string("cwd"), std::nullopt) << "null is the same as absent";
    EXPECT_EQ(r.string("name"), std::nullopt);
    EXPECT_EQ(r.boolean("flag"), std::nullopt);
    EXPECT_EQ(r.integer<int>("n", 1, 9, 7), 7);
    EXPECT_EQ(r.string_array("args"), std::nullopt);
    EXPECT_EQ(r.string_map("env"), std::nullopt);
    EXPECT_FALSE(r.object("idp"));
    EXPECT_FALSE(r.has("cwd"));
    EXPECT_TRUE(r.ok());
}

TEST(ConfigReader, IntegersAtTheEdgesOfTheirType) {
    ConfigReader r(R"({"u":18446744073709551615,"i":-9223372036854775808,"zero":0,"neg":-5,"max":10})", "t");
    EXPECT_EQ(r.integer<std::uint64_t>("u", 0, std::numeric_limits<std::uint64_t>::max()),
              std::numeric_limits<std::uint64_t>::max());
    EXPECT_EQ(r.integer<std::int64_t>("i", std::numeric_limits<std::int64_t>::min(), 0),
              std::numeric_limits<std::int64_t>::min());
    EXPECT_EQ(r.integer<unsigned>("zero", 0, 1), 0u);
    EXPECT_EQ(r.integer<int>("neg", -10, 10), -5);
    EXPECT_EQ(r.integer<std::size_t>("max", 1, 10), 10u) << "the bounds are inclusive";
    EXPECT_TRUE(r.ok());
}

// One failing read of a fresh reader, and the typed error it leaves.
struct ErrorCase {
    const char* name;
    const char* json;
    void (*read)(ConfigReader&);
    ConfigErrorKind kind;
    const char* field;
    const char* expected;
    const char* message;
};

const ErrorCase kErrorCases[] = {
    {"malformed", R"({"a":)", [](ConfigReader&) {}, ConfigErrorKind::malformed, "", "JSON",
     "t config is not valid JSON: Invalid value. at offset 5"},
    {"not an object", R"(["a"])", [](ConfigReader&) {}, ConfigErrorKind::not_object, "", "a JSON object",
     "t config must be a JSON object"},
    {"missing", R"({})", [](ConfigReader& r) { r.required_string("command"); }, ConfigErrorKind::missing, "command",
     "a string", "t config: 'command' is required"},
    {"string of another type", R"({"command":42})", [](ConfigReader& r) { r.string("command"); },
     ConfigErrorKind::wrong_type, "command", "a string", "t config: 'command' must be a string"},
    {"empty string refused", R"({"command":""})", [](ConfigReader& r) { r.required_string("command", {true}); },
     ConfigErrorKind::invalid, "command", "a non-empty string", "t config: 'command' must not be empty"},
    {"NUL byte in a string", R"({"command":"a\u0000b"})", [](ConfigReader& r) { r.string("command"); },
     ConfigErrorKind::wrong_type, "command", "a string without NUL bytes", "t config: 'command' contains a NUL byte"},
    {"bool of another type", R"({"tls":"yes"})", [](ConfigReader& r) { r.boolean("tls"); },
     ConfigErrorKind::wrong_type, "tls", "true or false", "t config: 'tls' must be true or false"},
    {"integer as a string", R"({"n":"5"})", [](ConfigReader& r) { r.integer<int>("n", 1, 9); },
     ConfigErrorKind::wrong_type, "n", "an integer between 1 and 9", "t config: 'n' must be an integer between 1 and 9"},
    {"integer with a fraction", R"({"n":1.5})", [](ConfigReader& r) { r.integer<int>("n", 1, 9); },
     ConfigErrorKind::wrong_type, "n", "an integer between 1 and 9", "t config: 'n' must be an integer between 1 and 9"},
    {"integer below the range", R"({"n":0})", [](ConfigReader& r) { r.integer<int>("n", 1, 9); },
     ConfigErrorKind::out_of_range, "n", "an integer between 1 and 9",
     "t config: 'n' must be an integer between 1 and 9"},
    {"integer above the range", R"({"n":10})", [](ConfigReader& r) { r.integer<int>("n", 1, 9); },
     ConfigErrorKind::out_of_range, "n", "an integer between 1 and 9",
     "t config: 'n' must be an integer between 1 and 9"},
    {"negative for an unsigned type", R"({"n":-1})", [](ConfigReader& r) { r.integer<unsigned>("n", 0, 9); },
     ConfigErrorKind::out_of_range, "n", "an integer between 0 and 9",
     "t config: 'n' must be an integer between 0 and 9"},
    {"beyond int64 for a signed type", R"({"n":9223372036854775808})",
     [](ConfigReader& r) { r.integer<std::int64_t>("n", 0, std::numeric_limits<std::int64_t>::max()); },
     ConfigErrorKind::out_of_range, "n", "an integer between 0 and 9223372036854775807",
     "t config: 'n' must be an integer between 0 and 9223372036854775807"},
    {"array of another type", R"({"args":"-n"})", [](ConfigReader& r) { r.string_array("args"); },
     ConfigErrorKind::wrong_type, "args", "an array of strings", "t config: 'args' must be an array of strings"},
    {"array item of another type", R"({"args":["-n",3]})", [](ConfigReader& r) { r.string_array("args"); },
     ConfigErrorKind::wrong_type, "args[1]", "a string", "t config: 'args[1]' must be a string"},
    {"empty array refused", R"({"argv":[]})", [](ConfigReader& r) { r.string_array("argv", ArrayRules{true, {}}); },
     ConfigErrorKind::invalid, "argv", "a non-empty array of strings",
     "t config: 'argv' must be a non-empty array of strings"},
    {"empty array item refused", R"({"argv":["a",""]})",
     [](ConfigReader& r) { r.string_array("argv", ArrayRules{true, StringRules{true}}); }, ConfigErrorKind::invalid,
     "argv[1]", "a non-empty string", "t config: 'argv[1]' must not be empty"},
    {"map of another type", R"({"env":["A=1"]})", [](ConfigReader& r) { r.string_map("env"); },
     ConfigErrorKind::wrong_type, "env", "an object of strings", "t config: 'env' must be an object of strings"},
    {"map value of another type", R"({"env":{"A":1}})", [](ConfigReader& r) { r.string_map("env"); },
     ConfigErrorKind::wrong_type, "env.A", "a string", "t config: 'env.A' must be a string"},
    {"map name with a NUL byte", R"({"env":{"A\u0000B":"1"}})", [](ConfigReader& r) { r.string_map("env"); },
     ConfigErrorKind::invalid, "env", "non-empty names without NUL bytes",
     "t config: 'env' has an empty name or one with a NUL byte"},
    {"map name twice", R"({"env":{"A":"1","A":"2"}})", [](ConfigReader& r) { r.string_map("env"); },
     ConfigErrorKind::invalid, "env.A", "a single value", "t config: 'env.A' appears more than once"},
    {"object of another type", R"({"idp":"x"})", [](ConfigReader& r) { r.object("idp"); },
     ConfigErrorKind::wrong_type, "idp", "an object", "t config: 'idp' must be an object"},
    {"nested field names its path", R"({"idp":{"issuer":7}})", [](ConfigReader& r) { r.object("idp")->string("issuer"); },
     ConfigErrorKind::wrong_type, "idp.issuer", "a string", "t config: 'idp.issuer' must be a string"},
    {"key twice", R"({"url":"http://a/","url":"http://b/"})", [](ConfigReader& r) { r.string("url"); },
     ConfigErrorKind::invalid, "url", "a single value", "t config: 'url' appears more than once"},
    {"plugin's own check", R"({"command":"x"})",
     [](ConfigReader& r) { r.fail("command", "is not on the allow-list", ConfigErrorKind::invalid, "an allowed command"); },
     ConfigErrorKind::invalid, "command", "an allowed command", "t config: 'command' is not on the allow-list"},
    {"plugin's own check of the whole object", R"({})", [](ConfigReader& r) { r.fail("", "give only one of a and b"); },
     ConfigErrorKind::invalid, "", "", "t config: give only one of a and b"},
    {"unknown key refused", R"({"url":"x","timeout":5})",
     [](ConfigReader& r) {
         r.string("url");
         r.reject_unknown_keys();
     },
     ConfigErrorKind::unknown_key, "timeout", "a known field", "t config: 'timeout' is not a known field"},
    {"unknown nested key refused", R"({"idp":{"issuer":"i","isuer":"j"}})",
     [](ConfigReader& r) {
         auto idp = r.object("idp");
         idp->string("issuer");
         idp->reject_unknown_keys();
     },
     ConfigErrorKind::unknown_key, "idp.isuer", "a known field", "t config: 'idp.isuer' is not a known field"},
};

TEST(ConfigReader, EachErrorIsTypedAndNamesTheField) {
    for (const ErrorCase& c : kErrorCases) {
        SCOPED_TRACE(c.name);
        ConfigReader r(c.json, "t");
        c.read(r);
        ASSERT_FALSE(r.ok());
        const ConfigError& e = *r.error();
        EXPECT_EQ(e.kind, c.kind);
        EXPECT_EQ(e.field, c.field);
        EXPECT_EQ(e.expected, c.expected);
        EXPECT_EQ(e.message, c.message);
    }
}

TEST(ConfigReader, SizeBoundIsInclusiveAndNamed) {
    const std::string ten = R"({"a":"12"})";
    ASSERT_EQ(ten.size(), 10u);
    ConfigLimits limits;
    limits.max_bytes = 10;
    EXPECT_TRUE(ConfigReader(ten, "t", limits).ok());
    ConfigReader r(ten + " ", "t", limits);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error()->kind, ConfigErrorKind::too_large);
    EXPECT_EQ(r.error()->message, "t config is 11 bytes, more than the 10 allowed");
    EXPECT_FALSE(r.string("a")) << "nothing is read from a refused config";
}

TEST(ConfigReader, DefaultSizeBoundIsTheHostsConfigBound) {
    EXPECT_EQ(ConfigLimits{}.max_bytes, std::size_t{16} << 20);
    std::string big = R"({"a":")" + std::string((std::size_t{16} << 20) - 7, 'x') + "\"}";
    ASSERT_EQ(big.size(), (std::size_t{16} << 20) + 1);
    ConfigReader r(big, "t");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error()->kind, ConfigErrorKind::too_large);
}

TEST(ConfigReader, DepthBoundIsInclusiveAndNamed) {
    ConfigLimits limits;
    limits.max_depth = 3;
    EXPECT_TRUE(ConfigReader(R"({"a":{"b":[]}})", "t", limits).ok()) << "three levels";
    ConfigReader r(R"({"a":{"b":[[]]}})", "t", limits);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error()->kind, ConfigErrorKind::too_deep);
    EXPECT_EQ(r.error()->expected, "at most 3 levels of nesting");
    EXPECT_NE(r.error()->message.find("nested deeper than 3 levels"), std::string::npos) << r.error()->message;
}

TEST(ConfigReader, DefaultDepthBoundRefusesAMillionBracketsWithoutRecursion) {
    std::string deep = R"({"a":)" + std::string(1000000, '[');
    ConfigReader r(deep, "t", ConfigLimits{});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error()->kind, ConfigErrorKind::too_deep);
    EXPECT_EQ(r.error()->expected, "at most 128 levels of nesting");
}

// A config of 300,000 names (a few MiB) costs linear time: a map's duplicate check
// and the field lookups never compare every name with every other (that would hang for hours).
TEST(ConfigReader, ManyNamesAreReadInLinearTime) {
    std::string map = R"({"m":{)";
    std::string flat = "{";
    for (int i = 0; i < 300000; ++i) {
        const std::string name = "\"k" + std::to_string(i) + "\":\"\"";
        map += (i ? "," : "") + name;
        flat += (i ? "," : "") + name;
    }
    map += "}}";
    flat += R"(,"url":"x"})";
    ASSERT_LT(map.size(), mcph::plugin::kMaxConfigBytes);
    const auto start = std::chrono::steady_clock::now();
    ConfigReader r(map, "t");
    auto m = r.string_map("m");
    ASSERT_TRUE(m) << r.error()->message;
    EXPECT_EQ(m->size(), 300000u);
    ConfigReader f(flat, "t");
    for (const char* key : {"url", "a", "b", "c", "d", "e", "f", "g", "h", "i"}) f.string(key);
    EXPECT_TRUE(f.ok());
    EXPECT_EQ(f.unknown_keys().size(), 300000u);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(15))
        << "quadratic, 300,000 names would take minutes";
}

TEST(ConfigReader, TheFirstFailureIsKeptAndLaterReadsGiveDefaults) {
    ConfigReader r(R"({"a":1,"b":"x","c":true})", "t");
    EXPECT_EQ(r.string("a"), std::nullopt);
    EXPECT_EQ(r.string("b"), std::nullopt) << "after a failure nothing more is read";
    EXPECT_EQ(r.boolean("c"), std::nullopt);
    EXPECT_EQ(r.integer<int>("d", 0, 1, 1), 1);
    r.fail("b", "is wrong too");
    EXPECT_EQ(r.error()->field, "a");
    EXPECT_EQ(r.error()->message, "t config: 'a' must be a string");
}

TEST(ConfigReader, SubjectCanBeSetOnceTheTypeIsKnown) {
    ConfigReader r(R"({"type":"sse-ide","ideName":3})", "sse");
    r.set_subject(r.string("type").value_or("sse"));
    r.string("ideName");
    EXPECT_EQ(r.error()->message, "sse-ide config: 'ideName' must be a string");
    EXPECT_EQ(ConfigReader("[]").error()->message, "config must be a JSON object") << "no subject";
}

TEST(ConfigReader, NulBytesAreAcceptedOnlyWhenAsked) {
    ConfigReader r(R"({"secret":"a\u0000b"})", "t");
    EXPECT_EQ(r.string("secret", StringRules{false, true}), std::string("a\0b", 3));
    EXPECT_TRUE(r.ok());
}

TEST(ConfigReader, UnknownKeysAreIgnoredUnlessRejected) {
    ConfigReader r(R"({"url":"x","timeout":5,"oauth":{},"name":null})", "t");
    r.string("url");
    r.has("name");
    EXPECT_EQ(r.unknown_keys(), (std::vector<std::string>{"timeout", "oauth"}));
    EXPECT_TRUE(r.ok()) << "the host's own keys are not the plugin's business by default";
}

TEST(ConfigReader, ThrowIfErrorIsAnInvalidArgumentCarryingTheTypedError) {
    ConfigReader r(R"({})", "t");
    r.required_string("url");
    try {
        r.throw_if_error();
        FAIL() << "no exception";
    } catch (const ConfigException& e) {
        EXPECT_EQ(e.status(), MCPH_ERR_INVALID_ARGUMENT);
        EXPECT_STREQ(e.what(), "t config: 'url' is required");
        EXPECT_EQ(e.error().kind, ConfigErrorKind::missing);
        EXPECT_EQ(e.error().field, "url");
    }
    ConfigReader fine(R"({"url":"x"})", "t");
    EXPECT_NO_THROW(fine.throw_if_error());
}

TEST(ConfigReader, AtTheBoundaryAFailureIsAStatusAndAMessage) {
    // Through guarded(), as every entry point of make_transport_vtable / make_auth_vtable runs.
    mcph_error err = mcph::plugin::make_error();
    const mcph_status st = mcph::plugin::guarded(&err, [] {
        ConfigReader r(R"({"port":70000})", "t");
        r.integer<int>("port", 0, 65535);
        r.throw_if_error();
    });
    EXPECT_EQ(st, MCPH_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(err.message, "t config: 'port' must be an integer between 0 and 65535");

    // Without exceptions at all, for an entry point written in the C style.
    mcph_error c_err = mcph::plugin::make_error();
    ConfigReader r(R"({"port":"x"})", "t");
    r.integer<int>("port", 0, 65535);
    EXPECT_EQ(r.report(&c_err), MCPH_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(c_err.message, "t config: 'port' must be an integer between 0 and 65535");
    mcph_error untouched = mcph::plugin::make_error();
    EXPECT_EQ(ConfigReader("{}").report(&untouched), MCPH_OK);
    EXPECT_STREQ(untouched.message, "");
}

// The helper is compiled as C++17 in config_reader_cxx17.cpp (a vendor may stay on C++17).
TEST(ConfigReader, BuildsAndRunsAsCxx17) {
    EXPECT_EQ(mcph_test::cxx17_read_config(R"({"command":"cat","args":["-n"],"graceMs":5})"), "cat -n 5");
    EXPECT_EQ(mcph_test::cxx17_read_config(R"({"args":["-n"]})"), "error: c17 config: 'command' is required");
    EXPECT_EQ(mcph_test::cxx17_standard(), 201703L);
}

}  // namespace
