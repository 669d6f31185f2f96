// Keyword coverage of host/src/schema measured against the official JSON-Schema-Test-Suite
// (draft2020-12 files, as shipped by Debian's libtest-json-schema-acceptance-perl, which
// scripts/setup.sh installs). Each file's pass count must stay at least what was measured
// (docs/json-schema.md has the table): a regression in any keyword fails here, and an
// improvement shows as a higher count to write into the table.
#include "schema/compiled_schema.hpp"

#include <mcph/json.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

const char* kSuiteDir = "/usr/share/perl5/auto/share/dist/Test-JSON-Schema-Acceptance/tests/draft2020-12";

struct Measured {
    int passed;
    int total;
};

// Tests passed / tests in the file, as measured. refRemote.json is skipped (every test in it needs
// a remote $ref fetched, which the host never does); optional/ is measured (not optional/format/:
// `format` is an annotation in 2020-12 and the host asserts no format).
const std::map<std::string, Measured> kMeasured = {
    {"additionalProperties.json", {16, 16}},
    {"allOf.json", {30, 30}},
    {"anchor.json", {14, 17}},
    {"anyOf.json", {18, 18}},
    {"boolean_schema.json", {18, 18}},
    {"const.json", {50, 50}},
    {"contains.json", {21, 21}},
    {"content.json", {18, 18}},
    {"default.json", {7, 7}},
    {"defs.json", {0, 2}},
    {"dependentRequired.json", {20, 20}},
    {"dependentSchemas.json", {16, 16}},
    {"dynamicRef.json", {23, 34}},
    {"enum.json", {33, 33}},
    {"exclusiveMaximum.json", {4, 4}},
    {"exclusiveMinimum.json", {4, 4}},
    {"format.json", {114, 114}},
    {"id.json", {5, 18}},
    {"if-then-else.json", {26, 26}},
    {"infinite-loop-detection.json", {2, 2}},
    {"items.json", {27, 27}},
    {"maxContains.json", {12, 12}},
    {"maxItems.json", {6, 6}},
    {"maxLength.json", {7, 7}},
    {"maxProperties.json", {10, 10}},
    {"maximum.json", {8, 8}},
    {"minContains.json", {28, 28}},
    {"minItems.json", {6, 6}},
    {"minLength.json", {7, 7}},
    {"minProperties.json", {8, 8}},
    {"minimum.json", {11, 11}},
    {"multipleOf.json", {10, 10}},
    {"not.json", {14, 14}},
    {"oneOf.json", {27, 27}},
    {"optional/bignum.json", {9, 9}},
    {"optional/cross-draft.json", {0, 1}},
    {"optional/dependencies-compatibility.json", {36, 36}},
    {"optional/ecmascript-regex.json", {68, 75}},
    {"optional/float-overflow.json", {1, 1}},
    {"optional/format-assertion.json", {0, 4}},
    {"optional/no-schema.json", {3, 3}},
    {"optional/non-bmp-regex.json", {12, 12}},
    {"optional/refOfUnknownKeyword.json", {4, 4}},
    {"optional/unicode.json", {0, 0}},
    {"pattern.json", {9, 9}},
    {"patternProperties.json", {23, 23}},
    {"prefixItems.json", {11, 11}},
    {"properties.json", {28, 28}},
    {"propertyNames.json", {10, 10}},
    {"ref.json", {69, 72}},
    {"required.json", {16, 16}},
    {"type.json", {80, 80}},
    {"unevaluatedItems.json", {60, 60}},
    {"unevaluatedProperties.json", {113, 113}},
    {"uniqueItems.json", {68, 68}},
    {"unknownKeyword.json", {3, 3}},
    {"vocabulary.json", {0, 5}},
};

struct FileScore {
    int passed = 0;
    int total = 0;
    int remote = 0;  // failed because the test needs a $ref fetched from the network
    std::string first_failure;
    std::string failures;  // every failure, printed with MCPH_SCHEMA_SUITE_VERBOSE=1
};

// `dialect`: a `$schema` to give every root schema that has none (the older drafts' files leave it
// out, and MCP reads a schema without one as 2020-12).
FileScore run_file(const fs::path& file, const char* dialect = nullptr) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    mcph::Json groups = mcph::parse_json(text.str(), file.filename().c_str());
    FileScore score;
    for (mcph::JsonValue& group : groups.GetArray()) {
        mcph::JsonValue& root = group["schema"];
        if (dialect && root.IsObject() && !root.HasMember("$schema"))
            root.AddMember("$schema", mcph::JsonValue(rapidjson::StringRef(dialect)), groups.GetAllocator());
        std::string error;
        auto schema = mcph::schema::CompiledSchema::compile(root, error);
        for (const mcph::JsonValue& test : group["tests"].GetArray()) {
            ++score.total;
            const bool expected = test["valid"].GetBool();
            bool passed = false, remote = false;
            std::string detail = error;
            if (schema) {
                auto verdict = schema->validate(test["data"]);
                passed = verdict.status != mcph::schema::ValidationResult::Status::Error && verdict.valid() == expected;
                remote = verdict.cause == mcph::schema::ValidationResult::Cause::NetworkRef;
                detail = verdict.message.empty() ? verdict.keyword : verdict.message;
            }
            if (passed) {
                ++score.passed;
                continue;
            }
            if (remote) ++score.remote;
            const std::string failure = std::string(group["description"].GetString()) + " / " +
                                        test["description"].GetString() + " (" + detail + ")";
            if (score.first_failure.empty()) score.first_failure = failure;
            score.failures += "    " + failure + "\n";
        }
    }
    return score;
}

TEST(JsonSchemaTestSuite, Draft2020_12PassCountsStayAtWhatWasMeasured) {
    ASSERT_TRUE(fs::is_directory(kSuiteDir))
        << kSuiteDir << " is missing: run scripts/setup.sh (package libtest-json-schema-acceptance-perl)";
    int passed = 0, total = 0;
    std::size_t files = 0;
    for (const std::string folder : {"", "optional/"}) {
        for (const auto& entry : fs::directory_iterator(fs::path(kSuiteDir) / folder)) {
            if (!entry.is_regular_file() || entry.path().extension() != ".json") continue;
            const std::string name = folder + entry.path().filename().string();
            if (name == "refRemote.json") continue;
            ++files;
            const FileScore score = run_file(entry.path());
            passed += score.passed;
            total += score.total;
            std::printf("| %s | %d / %d | %d |\n", name.c_str(), score.passed, score.total, score.remote);
            if (std::getenv("MCPH_SCHEMA_SUITE_VERBOSE")) std::printf("%s", score.failures.c_str());
            auto measured = kMeasured.find(name);
            if (measured == kMeasured.end()) {
                ADD_FAILURE() << name << " is not in the measured table";
                continue;
            }
            EXPECT_EQ(score.total, measured->second.total) << name << ": the suite changed; re-measure";
            EXPECT_GE(score.passed, measured->second.passed) << name << " regressed; first failure: " << score.first_failure;
        }
    }
    std::printf("total: %d / %d\n", passed, total);
    EXPECT_EQ(files, kMeasured.size()) << "a measured file is missing from the suite";
}

// The older dialects a legacy-era server's schema may declare: the top-level files of their
// suites (refRemote.json skipped), each file's schemas given that dialect's `$schema`.
struct DialectMeasured {
    const char* folder;
    const char* schema_uri;
    int passed;
    int total;
};

const DialectMeasured kOlderDialects[] = {
    {"draft2019-09", "https://json-schema.org/draft/2019-09/schema", 1121, 1147},
    {"draft7", "http://json-schema.org/draft-07/schema#", 836, 840},
    {"draft6", "http://json-schema.org/draft-06/schema#", 752, 756},
    {"draft4", "http://json-schema.org/draft-04/schema#", 557, 561},
};

TEST(JsonSchemaTestSuite, OlderDialectsPassCountsStayAtWhatWasMeasured) {
    const fs::path suite = fs::path(kSuiteDir).parent_path();
    for (const DialectMeasured& d : kOlderDialects) {
        int passed = 0, total = 0;
        for (const auto& entry : fs::directory_iterator(suite / d.folder)) {
            if (!entry.is_regular_file() || entry.path().extension() != ".json") continue;
            if (entry.path().filename() == "refRemote.json") continue;
            const FileScore score = run_file(entry.path(), d.schema_uri);
            passed += score.passed;
            total += score.total;
            if (std::getenv("MCPH_SCHEMA_SUITE_VERBOSE"))
                std::printf("%s/%s\n%s", d.folder, entry.path().filename().c_str(), score.failures.c_str());
        }
        std::printf("| %s | %d / %d |\n", d.folder, passed, total);
        EXPECT_EQ(total, d.total) << d.folder << ": the suite changed; re-measure";
        EXPECT_GE(passed, d.passed) << d.folder << " regressed";
    }
}

}  // namespace
