// Editing one config file: other keys and servers kept in order, the VS Code shape respected,
// malformed files never touched, disabled/enabled lists maintained, and which file defines a name.
#include "config/config_editor.hpp"

#include <mcph/error.hpp>
#include <mcph/json.hpp>

#include <gtest/gtest.h>

#include "test_scratch.hpp"
#include "test_helpers.hpp"

#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace {

using mcph::test::ScratchDir;
using mcph::test::slurp;

namespace fs = std::filesystem;
using namespace mcph::config;



void write(const fs::path& file, const std::string& content) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << content;
}

std::vector<std::string> keys(const mcph::JsonValue& object) {
    std::vector<std::string> out;
    for (const auto& m : object.GetObject()) out.emplace_back(m.name.GetString());
    return out;
}

std::vector<std::string> strings(const mcph::JsonValue& array) {
    std::vector<std::string> out;
    for (const auto& v : array.GetArray()) out.emplace_back(v.GetString());
    return out;
}

using host_test::mode_of;

void expect_error_naming(const std::function<void()>& edit, const fs::path& file, const char* part) {
    try {
        edit();
        ADD_FAILURE() << "expected an error";
    } catch (const mcph::Error& e) {
        EXPECT_EQ(e.kind(), mcph::ErrorKind::Usage);
        EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
}

const mcph::Json kEntry = mcph::parse_json(R"({"command":"npx","args":["-y","srv"],"env":{"T":"${TOKEN}"}})");

TEST(ConfigEditor, AddCreatesAMissingFilePrivateAndPretty) {
    ScratchDir dir;
    const fs::path file = dir.path() / "home/settings.json";
    add_server_entry(file, "files", kEntry, false);
    const std::string text = slurp(file);
    EXPECT_NE(text.find("\n  \"mcpServers\": {\n    \"files\": {"), std::string::npos) << text;
    EXPECT_EQ(text.back(), '\n');
    mcph::Json doc = mcph::parse_json(text);
    EXPECT_EQ(keys(doc), std::vector<std::string>{"mcpServers"});
    EXPECT_STREQ(doc["mcpServers"]["files"]["env"]["T"].GetString(), "${TOKEN}") << "stored unexpanded";
    EXPECT_EQ(mode_of(file), 0600u);
}

TEST(ConfigEditor, AddKeepsOtherKeysServersAndOrder) {
    ScratchDir dir;
    const fs::path file = dir.path() / "settings.json";
    write(file, R"({"theme":"dark","mcpServers":{"z":{"command":"z"},"a":{"command":"a"}},"deniedMcpServers":["x"],"n":1.5})");
    ::chmod(file.c_str(), 0644);
    add_server_entry(file, "m", kEntry, false);
    mcph::Json doc = mcph::parse_json(slurp(file));
    EXPECT_EQ(keys(doc), (std::vector<std::string>{"theme", "mcpServers", "deniedMcpServers", "n"}));
    EXPECT_EQ(keys(doc["mcpServers"]), (std::vector<std::string>{"z", "a", "m"}));
    EXPECT_STREQ(doc["theme"].GetString(), "dark");
    EXPECT_DOUBLE_EQ(doc["n"].GetDouble(), 1.5);
    EXPECT_EQ(mode_of(file), 0644u) << "an existing file keeps its mode";
}

TEST(ConfigEditor, AddRefusesAnExistingNameUnlessReplacing) {
    ScratchDir dir;
    const fs::path file = dir.path() / ".mcp.json";
    write(file, R"({"mcpServers":{"a":{"command":"a"},"b":{"command":"old"},"c":{"command":"c"}}})");
    const std::string before = slurp(file);
    expect_error_naming([&] { add_server_entry(file, "b", kEntry, false); }, file, "server 'b' already exists");
    EXPECT_EQ(slurp(file), before);
    add_server_entry(file, "b", kEntry, true);
    mcph::Json doc = mcph::parse_json(slurp(file));
    EXPECT_EQ(keys(doc["mcpServers"]), (std::vector<std::string>{"a", "b", "c"})) << "replaced in place";
    EXPECT_STREQ(doc["mcpServers"]["b"]["command"].GetString(), "npx");
    EXPECT_FALSE(doc["mcpServers"]["b"].HasMember("unused"));
}

TEST(ConfigEditor, AddUsesTheVsCodeKeyWhenTheFileDoes) {
    ScratchDir dir;
    const fs::path file = dir.path() / "mcp.json";
    write(file, R"({"inputs":[],"servers":{"v":{"type":"stdio","command":"v"}}})");
    add_server_entry(file, "w", kEntry, false);
    mcph::Json doc = mcph::parse_json(slurp(file));
    EXPECT_EQ(keys(doc), (std::vector<std::string>{"inputs", "servers"}));
    EXPECT_EQ(keys(doc["servers"]), (std::vector<std::string>{"v", "w"}));
}

TEST(ConfigEditor, AddValidatesTheEntryFirst) {
    ScratchDir dir;
    const fs::path file = dir.path() / "settings.json";
    const mcph::Json bad = mcph::parse_json(R"({"args":["no command"]})");
    EXPECT_THROW(add_server_entry(file, "x", bad, false), mcph::Error);
    EXPECT_FALSE(fs::exists(file)) << "nothing written for an invalid entry";
    EXPECT_THROW(add_server_entry(file, "", kEntry, false), mcph::Error);
}

struct MalformedCase {
    const char* content;
    const char* part;
    bool servers_edits;  // add and remove must refuse
    bool list_edits;     // disable and enable must refuse
};

TEST(ConfigEditor, MalformedFilesAreNeverTouched) {
    const MalformedCase cases[] = {
        {"{\"mcpServers\": {", "malformed JSON", true, true},
        {"[1, 2]", "must hold a JSON object", true, true},
        {R"({"mcpServers": []})", "mcpServers is not an object", true, false},
        {R"({"servers": "x"})", "servers is not an object", true, false},
        {R"({"disabledMcpServers": "a"})", "disabledMcpServers is not an array", false, true},
        {R"({"enabledMcpServers": [1]})", "enabledMcpServers holds something other than server names", false, true},
    };
    ScratchDir dir;
    const fs::path file = dir.path() / "settings.json";
    for (const auto& c : cases) {
        SCOPED_TRACE(c.content);
        write(file, c.content);
        if (c.servers_edits) {
            expect_error_naming([&] { add_server_entry(file, "a", kEntry, true); }, file, c.part);
            expect_error_naming([&] { remove_server_entry(file, "a"); }, file, c.part);
        }
        if (c.list_edits) {
            expect_error_naming([&] { set_server_disabled(file, "a", true); }, file, c.part);
            expect_error_naming([&] { set_server_disabled(file, "a", false); }, file, c.part);
        }
        EXPECT_EQ(slurp(file), c.content);
    }
}

TEST(ConfigEditor, RemoveKeepsTheRest) {
    ScratchDir dir;
    const fs::path file = dir.path() / ".mcp.json";
    EXPECT_FALSE(remove_server_entry(file, "a")) << "no file";
    EXPECT_FALSE(fs::exists(file));
    write(file, R"({"x":1,"mcpServers":{"a":{"command":"a"},"b":{"command":"b"},"c":{"command":"c"},"d":{"command":"d"}}})");
    const std::string before = slurp(file);
    EXPECT_FALSE(remove_server_entry(file, "nope"));
    EXPECT_EQ(slurp(file), before) << "no write when nothing changes";
    EXPECT_TRUE(remove_server_entry(file, "b"));
    mcph::Json doc = mcph::parse_json(slurp(file));
    EXPECT_EQ(keys(doc["mcpServers"]), (std::vector<std::string>{"a", "c", "d"})) << "order kept";
    EXPECT_EQ(doc["x"].GetInt(), 1);
    EXPECT_FALSE(remove_server_entry(file, "b"));

    const fs::path no_servers = dir.path() / "settings.json";
    write(no_servers, R"({"theme":"x"})");
    EXPECT_FALSE(remove_server_entry(no_servers, "a"));
}

TEST(ConfigEditor, DisabledAndEnabledListsAreMaintained) {
    ScratchDir dir;
    const fs::path file = dir.path() / ".mcph/settings.local.json";
    set_server_disabled(file, "a", true);
    set_server_disabled(file, "b", true);
    mcph::Json doc = mcph::parse_json(slurp(file));
    EXPECT_EQ(strings(doc["disabledMcpServers"]), (std::vector<std::string>{"a", "b"}));
    EXPECT_FALSE(doc.HasMember("enabledMcpServers"));
    EXPECT_EQ(mode_of(file), 0600u);

    const std::string before = slurp(file);
    set_server_disabled(file, "a", true);
    EXPECT_EQ(slurp(file), before) << "idempotent";

    set_server_disabled(file, "a", false);
    doc = mcph::parse_json(slurp(file));
    EXPECT_EQ(strings(doc["disabledMcpServers"]), std::vector<std::string>{"b"});
    EXPECT_EQ(strings(doc["enabledMcpServers"]), std::vector<std::string>{"a"}) << "an explicit enable is recorded";

    set_server_disabled(file, "a", true);
    doc = mcph::parse_json(slurp(file));
    EXPECT_EQ(strings(doc["disabledMcpServers"]), (std::vector<std::string>{"b", "a"}));
    EXPECT_TRUE(strings(doc["enabledMcpServers"]).empty());
}

TEST(ConfigEditor, DisableKeepsOtherKeys) {
    ScratchDir dir;
    const fs::path file = dir.path() / "settings.json";
    write(file, R"({"mcpServers":{"s":{"command":"s"}},"deniedMcpServers":["x"],"disabledMcpServers":["s","s"]})");
    set_server_disabled(file, "s", false);
    mcph::Json doc = mcph::parse_json(slurp(file));
    EXPECT_EQ(keys(doc), (std::vector<std::string>{"mcpServers", "deniedMcpServers", "disabledMcpServers", "enabledMcpServers"}));
    EXPECT_TRUE(strings(doc["disabledMcpServers"]).empty()) << "every occurrence removed";
    EXPECT_TRUE(doc["mcpServers"].HasMember("s"));
}

TEST(ConfigEditor, FileDefiningFollowsPrecedence) {
    ScratchDir dir;
    ConfigLocations loc;
    loc.managed_dir = dir.path() / "managed";
    loc.config_home = dir.path() / "home";
    loc.project_root = dir.path() / "repo";
    loc.cwd = dir.path() / "repo/sub";
    fs::create_directories(loc.project_root / ".git");
    fs::create_directories(loc.cwd);
    loc.plugin_dirs = {dir.path() / "plugins"};
    const std::string all = R"({"mcpServers":{"s":{"command":"s"}}})";
    write(dir.path() / "plugins/p.mcp.json", all);
    EXPECT_EQ(file_defining(loc, "s"), dir.path() / "plugins/p.mcp.json");
    write(loc.user_settings_file(), all);
    EXPECT_EQ(file_defining(loc, "s"), loc.user_settings_file());
    write(loc.project_root / ".mcp.json", all);
    EXPECT_EQ(file_defining(loc, "s"), loc.project_root / ".mcp.json");
    write(loc.cwd / ".mcp.json", R"({"servers":{"s":{"command":"s"}}})");
    EXPECT_EQ(file_defining(loc, "s"), loc.cwd / ".mcp.json") << "the closer project file";
    write(loc.local_settings_file(), all);
    EXPECT_EQ(file_defining(loc, "s"), loc.local_settings_file());
    write(loc.managed_settings_file(), all);
    EXPECT_EQ(file_defining(loc, "s"), loc.managed_settings_file());
    write(loc.enterprise_file(), "{broken");
    EXPECT_EQ(file_defining(loc, "s"), loc.managed_settings_file()) << "unreadable files are skipped";
    write(loc.enterprise_file(), all);
    EXPECT_EQ(file_defining(loc, "s"), loc.enterprise_file());
    EXPECT_FALSE(file_defining(loc, "other").has_value());
}

}  // namespace
