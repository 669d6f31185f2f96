// A guard, not a behaviour test: every RapidJSON parse or Accept in the shipped sources (host/,
// plugins/, examples/) goes through mcph/bounded_json.hpp. RapidJSON's default parser and writer
// recurse once per nesting level, so one new `doc.Parse(text)` on a server's message brings back
// the stack-overflow crash of issue #9. A line that must call RapidJSON directly (the bounded
// helpers themselves, a scalar written directly) says why with a `json-bounds-ok:` comment on that
// line, so a reviewer sees each exception. A SAX pass (`reader.Parse<...kParseIterativeFlag...>`)
// builds no tree and runs in constant stack, and a write through a DepthLimitedHandler named
// `limited` (`value.Accept(limited)`) is bounded, so both pass as they are.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const fs::path kSourceRoot = MCPH_SOURCE_DIR;

bool is_source(const fs::path& p) {
    const std::string ext = p.extension().string();
    return ext == ".cpp" || ext == ".hpp" || ext == ".h" || ext == ".cc";
}

bool allowed(const std::string& line) {
    if (line.find("json-bounds-ok:") != std::string::npos) return true;
    // The convention of bounded_json.hpp and its users: a json_bounds::DepthLimitedHandler is
    // named `limited`, so a write through it reads `Accept(limited)`.
    if (line.find("Accept(limited)") != std::string::npos) return true;
    return line.find("reader.Parse<") != std::string::npos && line.find("kParseIterativeFlag") != std::string::npos;
}

// Each offending line, as "path:line: text".
std::vector<std::string> unbounded_json_calls() {
    // `.Parse(`, `.Parse<`, `->Parse(`, ParseStream, ParseInsitu, `.Accept(`, `->Accept(`.
    static const std::regex kCall(R"((\.|->)\s*(Parse|ParseStream|ParseInsitu|Accept)\s*[<(])");
    const fs::path bounded = kSourceRoot / "plugin-api" / "include" / "mcph" / "bounded_json.hpp";
    std::vector<std::string> found;
    for (const char* top : {"host", "plugins", "examples", "plugin-api"}) {
        for (const auto& entry : fs::recursive_directory_iterator(kSourceRoot / top)) {
            if (!entry.is_regular_file() || !is_source(entry.path()) || entry.path() == bounded) continue;
            std::ifstream in(entry.path());
            std::string line;
            for (int n = 1; std::getline(in, line); ++n) {
                if (!std::regex_search(line, kCall) || allowed(line)) continue;
                found.push_back(fs::relative(entry.path(), kSourceRoot).string() + ":" + std::to_string(n) + ": " + line);
            }
        }
    }
    return found;
}

TEST(UntrustedJsonGuard, EveryParseAndWriteGoesThroughTheBoundedHelpers) {
    ASSERT_TRUE(fs::is_directory(kSourceRoot / "host")) << kSourceRoot;
    std::string report;
    for (const auto& line : unbounded_json_calls()) report += "  " + line + "\n";
    EXPECT_TRUE(report.empty()) << "RapidJSON called directly (use mcph::json_bounds::parse / write, or mark the "
                                   "line `// json-bounds-ok: <why>`):\n"
                                << report;
}

// The guard itself must be able to fail: it sees the calls it exists to catch.
TEST(UntrustedJsonGuard, RecognisesTheCallsItForbids) {
    static const std::regex kCall(R"((\.|->)\s*(Parse|ParseStream|ParseInsitu|Accept)\s*[<(])");
    EXPECT_TRUE(std::regex_search(std::string("    doc.Parse(text.data(), text.size());"), kCall));
    EXPECT_TRUE(std::regex_search(std::string("  d.Parse<rapidjson::kParseFullPrecisionFlag>(s)"), kCall));
    EXPECT_TRUE(std::regex_search(std::string("    params->Accept(w);"), kCall));
    EXPECT_FALSE(std::regex_search(std::string("  \"Accept must include application/json\""), kCall));
    EXPECT_FALSE(std::regex_search(std::string("  json_bounds::parse(doc, text);"), kCall));
    EXPECT_FALSE(allowed("  reader.Parse<rapidjson::kParseDefaultFlags>(stream, handler);")) << "recursive SAX";
    EXPECT_TRUE(allowed("  reader.Parse<rapidjson::kParseIterativeFlag>(stream, limited);"));
    EXPECT_FALSE(allowed("  doc.Parse<rapidjson::kParseIterativeFlag>(text);")) << "a tree without a depth bound";
    EXPECT_TRUE(allowed("    if (!value.Accept(limited))"));
    EXPECT_FALSE(allowed("    value.Accept(writer);"));
}

}  // namespace
