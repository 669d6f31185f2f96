// Every command's --json output, from the real `mcph` binary against the real hello-server, is
// exactly one JSON document that validates against docs/cli-json.schema.json (with the host's own
// JSON Schema 2020-12 validator); an error document's exitCode is the process's exit code.
#include "schema/compiled_schema.hpp"

#include <mcph/json.hpp>

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::string quoted(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

struct CliRun {
    int exit_code = -1;
    std::string out;
};

// `mcph args...` in `cwd`, stdout captured, stderr dropped; bounded by timeout(1) far below the
// ctest cap.
CliRun run_mcph(const fs::path& cwd, const std::vector<std::string>& args) {
    std::string command = "cd " + quoted(cwd.string()) + " && timeout 20 " + quoted(MCPH_TEST_CLI);
    for (const auto& a : args) command += " " + quoted(a);
    command += " 2>/dev/null </dev/null";
    CliRun run;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe) return run;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) run.out.append(buf, n);
    const int status = ::pclose(pipe);
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return run;
}

class CliJsonSchema : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("mcph-cli-json-" + std::to_string(::getpid()));
        fs::create_directories(dir_ / "proj");
        ::setenv("MCPH_CONFIG_HOME", (dir_ / "config").c_str(), 1);
        ::setenv("MCPH_MANAGED_DIR", (dir_ / "managed").c_str(), 1);
        std::ofstream(dir_ / "notes.txt") << "notes\n";
        std::ifstream in(MCPH_TEST_SCHEMA);
        std::stringstream text;
        text << in.rdbuf();
        mcph::Json schema = mcph::parse_json(text.str(), "docs/cli-json.schema.json");
        std::string error;
        schema_ = mcph::schema::CompiledSchema::compile(schema, error);
        ASSERT_TRUE(schema_) << error;
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string hello_config() const {
        return std::string("{\"mcpServers\":{\"h\":{\"command\":\"") + MCPH_TEST_HELLO + "\",\"args\":[\"--notes\",\"" +
               (dir_ / "notes.txt").string() + "\"]}}}";
    }

    // Runs the command and checks its stdout; returns the exit code.
    int expect_valid(const std::vector<std::string>& args) {
        const CliRun run = run_mcph(dir_ / "proj", args);
        std::string line;
        for (const auto& a : args) line += a + " ";
        mcph::Json doc;
        doc.Parse(run.out.c_str(), run.out.size());  // the whole output: one document, nothing after it
        EXPECT_FALSE(doc.HasParseError()) << line << "\n" << run.out;
        if (doc.HasParseError()) return run.exit_code;
        const auto result = schema_->validate(doc);
        EXPECT_TRUE(result.valid()) << line << ": " << result.keyword << " at '" << result.instance_location << "' "
                                    << result.message << "\n" << run.out;
        if (doc.IsObject() && doc.HasMember("error")) {
            EXPECT_NE(run.exit_code, 0) << line;
            EXPECT_EQ(doc["error"]["exitCode"].GetInt(), run.exit_code) << line;
        }
        last_.Swap(doc);
        return run.exit_code;
    }

    // The names under last_[member] ("server" or "name" of each entry).
    std::vector<std::string> names_in(const char* member, const char* key) const {
        std::vector<std::string> out;
        if (!last_.IsObject() || !last_.HasMember(member) || !last_[member].IsArray()) return out;
        for (const auto& e : last_[member].GetArray())
            if (e.IsObject() && e.HasMember(key) && e[key].IsString()) out.emplace_back(e[key].GetString());
        return out;
    }

    mcph::Json last_;  // the document of the last expect_valid

    fs::path dir_;
    std::shared_ptr<const mcph::schema::CompiledSchema> schema_;
};

TEST_F(CliJsonSchema, EveryCommandPrintsOneValidDocument) {
    const std::string cfg = hello_config();
    const std::vector<std::string> with = {"--mcp-config", cfg, "--json"};
    auto cmd = [&](std::vector<std::string> rest) {
        std::vector<std::string> args = with;
        args.insert(args.end(), rest.begin(), rest.end());
        return args;
    };
    EXPECT_EQ(expect_valid(cmd({"servers"})), 0);
    EXPECT_EQ(expect_valid(cmd({"tools"})), 0);
    EXPECT_EQ(expect_valid(cmd({"call", "h/add", "{\"a\":2,\"b\":3}"})), 0);
    EXPECT_EQ(expect_valid(cmd({"call", "h/add", "{\"a\":\"x\",\"b\":3}"})), 1);  // isError
    EXPECT_EQ(expect_valid(cmd({"resources"})), 0);
    EXPECT_EQ(expect_valid(cmd({"read", "notes://today"})), 0);
    EXPECT_EQ(expect_valid(cmd({"read", "notes://nope", "h"})), 1);  // a JSON-RPC error
    EXPECT_EQ(expect_valid(cmd({"skills"})), 0);
    EXPECT_EQ(expect_valid(cmd({"prompts"})), 0);
    EXPECT_EQ(expect_valid(cmd({"prompt", "review-code", "{\"code\":\"x\"}"})), 0);
    EXPECT_EQ(expect_valid(cmd({"status"})), 0);
    EXPECT_EQ(expect_valid(cmd({"plugins"})), 0);
    EXPECT_EQ(expect_valid(cmd({"agents"})), 0);
    EXPECT_EQ(expect_valid(cmd({"call", "nosuch/read"})), 2);
    EXPECT_EQ(expect_valid(cmd({"login", "h"})), 2);
    EXPECT_EQ(expect_valid({"--json", "bogus"}), 2);
    EXPECT_EQ(expect_valid({"--json", "tools", "--nope"}), 2);
    EXPECT_EQ(expect_valid({"--json", "--mcp-config", "{\"mcpServers\":{\"x\":{\"command\":\"/nonexistent/x\"}}}", "status"}), 3);
    EXPECT_EQ(expect_valid({"--json", "--mcp-config", "{\"mcpServers\":{\"x\":{\"command\":\"/nonexistent/x\"}}}", "tools"}), 3);
    EXPECT_EQ(expect_valid({"add", "--json", "-e", "K=v", "m", "node", "x.js"}), 0);
    EXPECT_EQ(expect_valid({"add", "--json", "-e", "K", "m2", "node", "x.js"}), 2);
    EXPECT_EQ(expect_valid({"add-json", "--json", "j", "{\"command\":\"uvx\"}"}), 0);
    EXPECT_EQ(expect_valid({"get", "--json", "m"}), 0);
    EXPECT_EQ(expect_valid({"get", "--json", "nosuch"}), 2);
    EXPECT_EQ(expect_valid({"disable", "--json", "m"}), 0);
    EXPECT_EQ(expect_valid({"enable", "--json", "m"}), 0);
    EXPECT_EQ(expect_valid({"remove", "--json", "m"}), 0);
    EXPECT_EQ(expect_valid({"remove", "--json", "m"}), 2);
    // A project server, approved with --json: the document on stdout, the definitions on stderr.
    std::ofstream(dir_ / "proj" / ".mcp.json") << "{\"mcpServers\":{\"p\":{\"command\":\"" << MCPH_TEST_HELLO << "\"}}}";
    EXPECT_EQ(expect_valid({"approve", "--json", "p"}), 0);
    EXPECT_EQ(expect_valid({"migrate-local", "--json"}), 2);
    // import: all written, some refused, a malformed file.
    std::ofstream(dir_ / "import.json") << "{\"mcpServers\":{\"i1\":{\"command\":\"x\"},\"-bad\":{\"command\":\"x\"}}}";
    std::ofstream(dir_ / "import-bad.json") << "{\"mcpServers\":{,}}";
    EXPECT_EQ(expect_valid({"import", "--json", (dir_ / "import.json").string(), "i1"}), 0);
    EXPECT_EQ(expect_valid({"import", "--json", "--dry-run", (dir_ / "import.json").string()}), 1);
    EXPECT_EQ(expect_valid({"import", "--json", (dir_ / "import-bad.json").string()}), 2);
    // inputs: a kept answer, planted in the file store as the library writes it (an answer and its
    // index entry), listed without its value, forgotten, then unknown.
    ::setenv("MCPH_SECRET_STORE", "file", 1);
    const fs::path store = dir_ / "config" / "credentials.json";
    std::ofstream(store) << R"({"mcph-input:/w/a.json#k":"v4lue","mcph-input-index":"{\"version\":1,\"answers\":[)"
                         << R"({\"key\":\"mcph-input:/w/a.json#k\",\"file\":\"/w/a.json\",\"origin\":\"--mcp-config a.json\",)"
                         << R"(\"id\":\"k\",\"description\":\"Key\",\"password\":false}]}"})";
    fs::permissions(store, fs::perms::owner_read | fs::perms::owner_write);
    EXPECT_EQ(expect_valid({"inputs", "list", "--json"}), 0);
    EXPECT_EQ(names_in("inputs", "id"), std::vector<std::string>({"k"}));
    EXPECT_EQ(mcph::to_json(last_).find("v4lue"), std::string::npos) << mcph::to_json(last_);
    EXPECT_EQ(expect_valid({"inputs", "forget", "--json", "k"}), 0);
    EXPECT_EQ(expect_valid({"inputs", "forget", "--json", "k"}), 2);
    ::unsetenv("MCPH_SECRET_STORE");
}

// One bad server among good ones: the listing commands show the good one's items and the bad ones
// as "errors" entries, and exit 0; a single named bad server exits with its error's code; `list`
// gives one check per server and exits 3; complete, log-level, get of a problem and read -o too.
TEST_F(CliJsonSchema, ListingCommandsIsolateServersAndValidate) {
    const std::string cfg = std::string("{\"mcpServers\":{\"h\":{\"command\":\"") + MCPH_TEST_HELLO + "\",\"args\":[\"--notes\",\"" +
                            (dir_ / "notes.txt").string() + "\"]},\"bad\":{\"command\":\"" + MCPH_TEST_FAKE +
                            "\",\"args\":[\"--mode\",\"unlisted-features\"]},\"gone\":{\"command\":\"/nonexistent/mcph-x\"}}}";
    auto cmd = [&](std::vector<std::string> rest) {
        std::vector<std::string> args = {"--mcp-config", cfg, "--json"};
        args.insert(args.end(), rest.begin(), rest.end());
        return args;
    };
    using V = std::vector<std::string>;
    EXPECT_EQ(expect_valid(cmd({"resources"})), 0);
    EXPECT_EQ(names_in("resources", "server"), V({"h"}));
    EXPECT_EQ(names_in("errors", "server"), V({"bad", "gone"}));
    EXPECT_EQ(expect_valid(cmd({"prompts"})), 0);
    EXPECT_EQ(names_in("errors", "server"), V({"bad", "gone"}));
    EXPECT_EQ(expect_valid(cmd({"templates"})), 0);
    EXPECT_EQ(names_in("errors", "server"), V({"bad", "gone"}));
    EXPECT_EQ(expect_valid(cmd({"tools"})), 0);
    EXPECT_EQ(names_in("errors", "server"), V({"gone"}));
    EXPECT_EQ(expect_valid(cmd({"resources", "h"})), 0);
    EXPECT_TRUE(names_in("errors", "server").empty());
    EXPECT_EQ(expect_valid(cmd({"resources", "bad"})), 1);  // its JSON-RPC error: Method not found
    EXPECT_EQ(expect_valid(cmd({"resources", "gone"})), 3);
    EXPECT_EQ(expect_valid(cmd({"resources", "hh"})), 2);   // unknown: did you mean
    EXPECT_EQ(expect_valid(cmd({"list"})), 3);
    EXPECT_EQ(names_in("checks", "name"), V({"h", "bad", "gone"}));
    EXPECT_EQ(expect_valid(cmd({"log-level", "h", "loud"})), 2);
    EXPECT_EQ(expect_valid(cmd({"complete", "h"})), 2);
    std::ofstream(dir_ / "proj" / "old.txt") << "keep";
    EXPECT_EQ(expect_valid(cmd({"read", "notes://today", "h", "-o", (dir_ / "proj" / "old.txt").string()})), 2);
    EXPECT_EQ(expect_valid(cmd({"read", "notes://today", "h", "-o", (dir_ / "proj" / "new.txt").string()})), 0);
    EXPECT_EQ(expect_valid({"--mcp-config", R"({"mcpServers":{"p":{"command":"x","args":["${input:nope}"]}}})", "get", "--json", "p"}), 0);
    EXPECT_EQ(expect_valid({"--mcp-config", R"({"mcpServers":{"ok":{"command":"/nonexistent/y"}}})", "--json", "list"}), 3);
    EXPECT_EQ(expect_valid({"--mcp-config", "{\"mcpServers\":{\"h\":{\"command\":\"" + std::string(MCPH_TEST_HELLO) + "\"}}}", "--json", "list"}), 0);
}

// `mcph subscribe --json`: the watch's updates (with --read, each one's contents); an unsupported
// server and a bad --count are error documents.
TEST_F(CliJsonSchema, SubscribeWatchValidates) {
    const std::string fake = MCPH_TEST_FAKE;
    const std::string cfg = "{\"mcpServers\":{\"c\":{\"command\":\"" + fake + "\",\"args\":[\"--mode\",\"resource-updates\"]},"
                            "\"plain\":{\"command\":\"" + fake + "\"}}}";
    EXPECT_EQ(expect_valid({"--mcp-config", cfg, "--json", "subscribe", "c", "fake://counter", "--count", "2", "--read"}), 0);
    ASSERT_TRUE(last_.HasMember("subscription"));
    const auto& updates = last_["subscription"]["updates"];
    ASSERT_EQ(updates.Size(), 2u);
    EXPECT_STREQ(updates[0]["uri"].GetString(), "fake://counter");
    EXPECT_STREQ(updates[1]["contents"][0]["text"].GetString(), "version 3");
    EXPECT_FALSE(last_["subscription"]["cancelled"].GetBool());
    EXPECT_EQ(expect_valid({"--mcp-config", cfg, "--json", "subscribe", "plain", "fake://counter", "--count", "1"}), 1);
    EXPECT_EQ(expect_valid({"--mcp-config", cfg, "--json", "subscribe", "c", "fake://counter", "--count", "-1"}), 2);
}

// The schema is not a rubber stamp: documents of the wrong shape are refused.
TEST_F(CliJsonSchema, RefusesDocumentsOfTheWrongShape) {
    for (const char* bad : {R"({"servers":[]})", R"({"schemaVersion":2})",
                            R"({"schemaVersion":1,"error":{"kind":"usage","message":"x"}})",
                            R"({"schemaVersion":1,"error":{"kind":"usage","message":"x","exitCode":2},"tools":[]})",
                            R"({"schemaVersion":1,"tools":[{"name":"a"}]})"}) {
        mcph::Json doc = mcph::parse_json(bad);
        EXPECT_FALSE(schema_->validate(doc).valid()) << bad;
    }
}

}  // namespace
