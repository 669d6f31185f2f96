// Sub-agent definition files (issue #15 part 3, docs/agents.md), over real fake-mcp-server
// processes and the real `mcph` binary: a reference shares the parent's connection (one server
// process, seen in the fake server's --trace), an inline server starts with the overlay and its
// process exits when the overlay closes, a project agent file is refused until its content is
// approved (and again after any change), a user agent under a plugin-only policy may not bring
// inline servers (references only are fine) while plugin, policy and built-in agents may, a
// malformed file is a problem naming the file and line while the other agents load, and files
// others planted or can write are refused.
#include "trust_support.hpp"

#include <mcph/host.hpp>

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace mcph::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// An agent file: `servers` are the YAML lines of mcpServers' items (without "  - ").
std::string agent_text(const std::string& name, const std::vector<std::string>& servers, const std::string& body = "Be helpful.\n") {
    std::string out = "---\nname: " + name + "\ndescription: test agent " + name + "\n";
    if (!servers.empty()) {
        out += "mcpServers:\n";
        for (const auto& s : servers) out += "  - " + s + "\n";
    }
    return out + "---\n" + body;
}

// An inline item in Claude Code's {name: {config}} form; the config is JSON (a YAML flow mapping).
std::string inline_item(const std::string& name, const fs::path& trace) {
    return name + ": " + fake_server_config_text({"--trace", trace.string()});
}

std::vector<pid_t> started(const fs::path& trace) {
    std::vector<pid_t> out;
    for (const auto& e : trace_events(read_trace(trace), "start")) out.push_back(e.pid);
    return out;
}

bool has_mapped(const std::vector<Tool>& tools, const std::string& mapped) {
    for (const auto& t : tools)
        if (t.mapped_name == mapped) return true;
    return false;
}

const AgentDefinition* find_agent(const AgentCatalog& catalog, const std::string& name) {
    for (const auto& a : catalog.agents)
        if (a.name == name) return &a;
    return nullptr;
}

// Usage error text of `f`, or a failure.
template <class F>
std::string usage_error(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Usage) << e.what();
        return e.what();
    }
    ADD_FAILURE() << "no error";
    return {};
}

// A Host over a TrustTree's locations (layered config, cwd the repository), in this process.
class AgentHost : public ::testing::Test {
protected:
    void SetUp() override {
        env_.set("MCPH_CONFIG_HOME", t_.config_home.string());
        env_.set("MCPH_MANAGED_DIR", t_.managed.string());
        env_.set("HOME", t_.home.string());
    }
    std::unique_ptr<Host> make_host(const std::vector<fs::path>& extra_plugin_dirs = {}) {
        HostOptions options = test_options(logs_);
        options.load_layered_config = true;
        options.cwd = t_.repo;
        for (const auto& d : extra_plugin_dirs) options.plugin_dirs.push_back(d);
        return std::make_unique<Host>(options);
    }
    void parent_server(const fs::path& trace) {
        write_file(t_.config_home / "settings.json",
                   "{\"mcpServers\":{\"parent\":" + fake_server_config_text({"--trace", trace.string()}) + "}}");
    }
    TrustTree t_;
    ScopedEnv env_;
    LogCapture logs_;
};

TEST_F(AgentHost, ReferencesShareTheParentsServerProcess) {
    const fs::path trace = t_.dir / "trace-parent";
    t_.traces = {trace};
    parent_server(trace);
    write_file(t_.config_home / "agents" / "a.md", agent_text("alpha", {"parent"}));
    write_file(t_.config_home / "agents" / "b.md", agent_text("beta", {"parent"}));
    auto host = make_host();
    ASSERT_TRUE(has_stdio_plugin(*host));
    host->connect("parent");
    ASSERT_EQ(started(trace).size(), 1u);
    {
        auto alpha = host->open_overlay("alpha");
        auto beta = host->open_overlay("beta");
        EXPECT_TRUE(alpha->owned_servers().empty());
        EXPECT_EQ(alpha->call_tool("mcp__parent__work", Json(rapidjson::kObjectType)).text(), "work done");
        EXPECT_EQ(beta->call_tool("parent/work", Json(rapidjson::kObjectType)).text(), "work done");
    }
    // Both agents used the parent's one process: no second start, and it outlives the overlays.
    const auto pids = started(trace);
    ASSERT_EQ(pids.size(), 1u) << "a reference started its own server";
    EXPECT_TRUE(fake_server_alive(pids[0]));
    EXPECT_EQ(host->call_tool("mcp__parent__work", Json(rapidjson::kObjectType)).text(), "work done");
}

TEST_F(AgentHost, ReferenceBeforeTheParentConnectedConnectsItOnceForEveryone) {
    const fs::path trace = t_.dir / "trace-parent";
    t_.traces = {trace};
    parent_server(trace);
    write_file(t_.config_home / "agents" / "a.md", agent_text("alpha", {"parent"}));
    auto host = make_host();
    { auto alpha = host->open_overlay("alpha"); }
    EXPECT_EQ(host->call_tool("mcp__parent__work", Json(rapidjson::kObjectType)).text(), "work done");
    EXPECT_EQ(started(trace).size(), 1u) << "the parent reconnected instead of keeping the agent's shared connection";
}

TEST_F(AgentHost, InlineServersStartWithTheOverlayAndExitWhenItCloses) {
    const fs::path trace = t_.dir / "trace-own";
    t_.traces = {trace};
    write_file(t_.config_home / "agents" / "o.md", agent_text("owner", {inline_item("own", trace)}));
    auto host = make_host();
    EXPECT_TRUE(started(trace).empty()) << "an inline server started before its agent";
    pid_t first = 0;
    {
        auto overlay = host->open_overlay("owner");
        EXPECT_EQ(overlay->owned_servers(), std::vector<std::string>{"own"});
        EXPECT_TRUE(has_mapped(overlay->tools(), "mcp__own__work"));
        EXPECT_FALSE(has_mapped(host->tools(), "mcp__own__work"));
        const auto pids = started(trace);
        ASSERT_EQ(pids.size(), 1u);
        first = pids[0];
        EXPECT_TRUE(fake_server_alive(first));
    }
    EXPECT_TRUE(wait_until([&] { return !fake_server_alive(first); }, 5s)) << "the inline server outlived its overlay";
    { auto again = host->open_overlay("owner"); }
    const auto pids = started(trace);
    ASSERT_EQ(pids.size(), 2u) << "each overlay opens its own inline connection";
    EXPECT_NE(pids[1], first);
    EXPECT_TRUE(wait_until([&] { return !fake_server_alive(pids[1]); }, 5s));
}

TEST_F(AgentHost, ProjectAgentFileIsRefusedUntilApprovedAndAgainAfterAChange) {
    const fs::path trace = t_.dir / "trace-project";
    t_.traces = {trace};
    const fs::path file = t_.repo / ".claude" / "agents" / "helper.md";
    write_file(file, agent_text("helper", {inline_item("own", trace)}));
    auto host = make_host();
    const AgentCatalog catalog = host->agents();
    const AgentDefinition* listed = find_agent(catalog, "helper");
    ASSERT_TRUE(listed);
    EXPECT_EQ(listed->source, AgentSource::Project);
    EXPECT_FALSE(listed->approved);
    std::string e = usage_error([&] { host->open_overlay("helper"); });
    EXPECT_NE(e.find(fs::canonical(file).string()), std::string::npos) << e;
    EXPECT_NE(e.find("mcph approve --agent helper"), std::string::npos) << e;
    EXPECT_FALSE(fs::exists(trace)) << "an unapproved project agent started its server";

    host->approve_agent("helper");
    {
        auto overlay = host->open_overlay("helper");
        ASSERT_NE(overlay->session("own"), nullptr);
    }
    ASSERT_EQ(started(trace).size(), 1u);

    // Any change — here only the prompt — revokes the approval.
    write_file(file, agent_text("helper", {inline_item("own", trace)}, "Now do something else.\n"));
    e = usage_error([&] { host->open_overlay("helper"); });
    EXPECT_NE(e.find("changed since you approved it"), std::string::npos) << e;
    EXPECT_EQ(started(trace).size(), 1u) << "a changed project agent started its server";
    host->approve_agent("helper");
    { auto overlay = host->open_overlay("helper"); }
    EXPECT_EQ(started(trace).size(), 2u);

    // Only project agents are approved.
    write_file(t_.config_home / "agents" / "u.md", agent_text("mine", {}));
    EXPECT_NE(usage_error([&] { host->approve_agent("mine"); }).find("only project agent files need approval"), std::string::npos);
}

TEST_F(AgentHost, ProjectAgentsAreFoundFromTheRootDownToCwdAndShadowingIsShown) {
    write_file(t_.config_home / "agents" / "r.md", agent_text("reviewer", {}));
    write_file(t_.repo / ".claude" / "agents" / "r.md", agent_text("reviewer", {}));
    const fs::path sub = t_.repo / "pkg" / "lib";
    fs::create_directories(sub);
    write_file(t_.repo / "pkg" / ".mcph" / "agents" / "r.md", agent_text("reviewer", {}));
    write_file(t_.repo / "elsewhere" / ".mcph" / "agents" / "x.md", agent_text("unrelated", {}));
    HostOptions options = test_options(logs_);
    options.load_layered_config = true;
    options.cwd = sub;
    Host host(options);
    const AgentCatalog catalog = host.agents();
    const AgentDefinition* r = find_agent(catalog, "reviewer");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->origin, fs::canonical(t_.repo / "pkg" / ".mcph" / "agents" / "r.md").string()) << "the closest folder wins";
    ASSERT_EQ(r->shadows.size(), 2u);
    EXPECT_EQ(r->shadows[0], (t_.config_home / "agents" / "r.md").string());
    EXPECT_FALSE(find_agent(catalog, "unrelated")) << "a folder beside the path to cwd is not the project's";
}

TEST_F(AgentHost, AReferenceToAServerTheParentDoesNotHaveNamesTheAgentAndFile) {
    const fs::path file = t_.config_home / "agents" / "r.md";
    write_file(file, agent_text("dangling", {"missing"}));
    auto host = make_host();
    try {
        host->open_overlay("dangling");
        ADD_FAILURE() << "opened an agent whose reference does not exist";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::NotFound);
        const std::string what = e.what();
        EXPECT_NE(what.find("agent 'dangling' (user, defined in " + file.string() + ")"), std::string::npos) << what;
        EXPECT_NE(what.find("no server named 'missing'"), std::string::npos) << what;
    }
}

TEST_F(AgentHost, ABadInlineConfigNamesTheAgentFileAndServer) {
    const fs::path file = t_.config_home / "agents" / "b.md";
    write_file(file, agent_text("badcfg", {"own: {args: [x]}", "env: {command: \"${MCPH_TEST_UNSET_AGENT_VAR}\"}"}));
    auto host = make_host();
    const std::string e = usage_error([&] { host->open_overlay("badcfg"); });
    EXPECT_NE(e.find("agent 'badcfg' (user, defined in " + file.string() + "): inline server 'own'"), std::string::npos) << e;
}

class AgentPolicy : public AgentHost {
protected:
    void SetUp() override {
        AgentHost::SetUp();
        write_file(t_.managed / "managed-settings.json", R"({"pluginOnlyMcpServers": true})");
    }
};

TEST_F(AgentPolicy, UserAgentMayNotBringInlineServersButMayReference) {
    const fs::path trace = t_.dir / "trace-user-inline";
    const fs::path parent_trace = t_.dir / "trace-parent";
    t_.traces = {trace, parent_trace};
    parent_server(parent_trace);
    const fs::path file = t_.config_home / "agents" / "u.md";
    write_file(file, agent_text("mine", {"parent", inline_item("own", trace)}));
    write_file(t_.config_home / "agents" / "r.md", agent_text("refs", {"parent"}));
    auto host = make_host();
    const std::string e = usage_error([&] { host->open_overlay("mine"); });
    EXPECT_NE(e.find("agent 'mine'"), std::string::npos) << e;
    EXPECT_NE(e.find(file.string()), std::string::npos) << e;
    EXPECT_NE(e.find("pluginOnlyMcpServers"), std::string::npos) << e;
    EXPECT_NE(e.find((t_.managed / "managed-settings.json").string()), std::string::npos) << e;
    EXPECT_FALSE(fs::exists(trace)) << "the refused inline server started";

    auto refs = host->open_overlay("refs");
    EXPECT_EQ(refs->call_tool("mcp__parent__work", Json(rapidjson::kObjectType)).text(), "work done");
}

TEST_F(AgentPolicy, PluginPolicyAndBuiltInAgentsMayBringInlineServers) {
    const fs::path plugin_trace = t_.dir / "trace-plugin", policy_trace = t_.dir / "trace-policy",
                   builtin_trace = t_.dir / "trace-builtin";
    t_.traces = {plugin_trace, policy_trace, builtin_trace};
    const fs::path plugins = t_.dir / "plugins";
    write_file(plugins / "agents" / "acme" / "p.md", agent_text("plugged", {inline_item("own", plugin_trace)}));
    write_file(t_.managed / "agents" / "m.md", agent_text("managed", {inline_item("own", policy_trace)}));
    auto host = make_host({plugins});
    AgentDefinition builtin;
    builtin.name = "builtin";
    builtin.servers.push_back({"", "own", fake_server_config_text({"--trace", builtin_trace.string()})});
    host->register_agent(builtin);

    const AgentCatalog catalog = host->agents();
    const AgentDefinition* plugged = find_agent(catalog, "plugged");
    ASSERT_TRUE(plugged);
    EXPECT_EQ(plugged->source, AgentSource::Plugin);
    EXPECT_EQ(plugged->plugin_source, "acme");
    ASSERT_TRUE(find_agent(catalog, "managed"));
    EXPECT_EQ(find_agent(catalog, "managed")->source, AgentSource::Policy);
    ASSERT_TRUE(find_agent(catalog, "builtin"));
    EXPECT_EQ(find_agent(catalog, "builtin")->origin, "api");

    for (const auto& [name, trace] : std::vector<std::pair<std::string, fs::path>>{
             {"plugged", plugin_trace}, {"managed", policy_trace}, {"builtin", builtin_trace}}) {
        auto overlay = host->open_overlay(name);
        ASSERT_NE(overlay->session("own"), nullptr) << name << "\n" << logs_.dump();
        EXPECT_EQ(overlay->call_tool("mcp__own__work", Json(rapidjson::kObjectType)).text(), "work done");
        EXPECT_EQ(started(trace).size(), 1u) << name;
    }
}

TEST_F(AgentHost, MalformedFrontmatterIsAProblemNamingFileAndLineAndTheOthersLoad) {
    const fs::path bad = t_.config_home / "agents" / "bad.md";
    write_file(bad, "---\nname: broken\nmcpServers:\n  - github\n  - 42: [\n---\n");
    const fs::path wrong = t_.config_home / "agents" / "wrong.md";
    write_file(wrong, "---\nname: wrong\nmcpServers:\n  - github\n  - [a, b]\n---\n");
    write_file(t_.config_home / "agents" / "good.md", agent_text("good", {}));
    auto host = make_host();
    const AgentCatalog catalog = host->agents();
    EXPECT_TRUE(find_agent(catalog, "good"));
    EXPECT_FALSE(find_agent(catalog, "broken"));
    ASSERT_EQ(catalog.problems.size(), 2u);
    EXPECT_EQ(catalog.problems[0].origin, bad.string());
    EXPECT_EQ(catalog.problems[0].line, 6) << catalog.problems[0].message;
    EXPECT_NE(catalog.problems[0].message.find(bad.string() + ", line 6: the frontmatter is not valid YAML"), std::string::npos)
        << catalog.problems[0].message;
    EXPECT_EQ(catalog.problems[1].origin, wrong.string());
    EXPECT_EQ(catalog.problems[1].line, 5) << catalog.problems[1].message;
    // Asking for the broken agent says why it is missing.
    try {
        host->open_overlay("broken");
        ADD_FAILURE() << "opened a broken agent";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::NotFound);
        EXPECT_NE(std::string(e.what()).find(bad.string() + ", line 6"), std::string::npos) << e.what();
    }
}

TEST_F(AgentHost, FilesOthersCanWriteOrThatLeadOutOfTheProjectAreRefused) {
    const fs::path writable = t_.config_home / "agents" / "w.md";
    write_file(writable, agent_text("writable", {}));
    ::chmod(writable.c_str(), 0666);
    const fs::path group = t_.config_home / "agents" / "g.md";
    write_file(group, agent_text("group", {}));
    ::chmod(group.c_str(), 0664);  // the config home's files: not even the group may write
    const fs::path outside = t_.dir / "outside.md";
    write_file(outside, agent_text("outside", {}));
    fs::create_directories(t_.repo / ".mcph" / "agents");
    fs::create_symlink(outside, t_.repo / ".mcph" / "agents" / "link.md");
    write_file(t_.repo / ".mcph" / "agents" / "big.md", agent_text("big", {}, std::string(300 * 1024, 'x')));
    auto host = make_host();
    const AgentCatalog catalog = host->agents();
    for (const char* name : {"writable", "group", "outside", "big"}) EXPECT_FALSE(find_agent(catalog, name)) << name;
    std::string all;
    for (const auto& p : catalog.problems) all += p.message + "\n";
    EXPECT_NE(all.find("chmod go-w " + writable.string()), std::string::npos) << all;
    EXPECT_NE(all.find("chmod go-w " + group.string()), std::string::npos) << all;
    EXPECT_NE(all.find("symlink leading out of the project"), std::string::npos) << all;
    EXPECT_NE(all.find("262144"), std::string::npos) << "the size bound is named\n" << all;
}

TEST_F(AgentHost, AFilePlantedByAnotherUserIsRefused) {
    const auto other = scratch_user();
    if (!other) GTEST_SKIP() << "needs root to create a second user";
    const fs::path planted = t_.repo / ".claude" / "agents" / "p.md";
    write_file(planted, agent_text("planted", {}));
    chown_to(planted, *other);
    auto host = make_host();
    const AgentCatalog catalog = host->agents();
    EXPECT_FALSE(find_agent(catalog, "planted"));
    ASSERT_EQ(catalog.problems.size(), 1u);
    EXPECT_NE(catalog.problems[0].message.find("not to you"), std::string::npos) << catalog.problems[0].message;
}

// ---- the real `mcph --agent` ---------------------------------------------------------------------

TEST(AgentCli, ToolsAndCallThroughAnAgentAndItsInlineServerEndsWithTheCommand) {
    TrustTree t;
    const fs::path trace = t.dir / "trace-cli-own", parent_trace = t.dir / "trace-cli-parent";
    t.traces = {trace, parent_trace};
    write_file(t.config_home / "settings.json",
               "{\"mcpServers\":{\"parent\":" + fake_server_config_text({"--trace", parent_trace.string()}) + "}}");
    write_file(t.config_home / "agents" / "a.md", agent_text("worker", {"parent", inline_item("own", trace)}));

    const CliResult tools = t.mcph({"--agent", "worker", "tools", "--json"});
    ASSERT_EQ(tools.exit_code, 0) << tools.describe();
    EXPECT_TRUE(contains(tools.out, "mcp__own__work")) << tools.describe();
    EXPECT_TRUE(contains(tools.out, "mcp__parent__work")) << tools.describe();

    const CliResult call = t.mcph({"--agent", "worker", "call", "mcp__own__work", "{}"});
    ASSERT_EQ(call.exit_code, 0) << call.describe();
    EXPECT_TRUE(contains(call.out, "work done")) << call.describe();
    const auto pids = started(trace);
    ASSERT_EQ(pids.size(), 2u) << "one inline server per command";
    for (pid_t pid : pids) EXPECT_TRUE(wait_until([&] { return !fake_server_alive(pid); }, 5s)) << pid;

    const CliResult unknown = t.mcph({"--agent", "nobody", "tools"});
    EXPECT_EQ(unknown.exit_code, 2) << unknown.describe();
    EXPECT_TRUE(contains(unknown.err, "no agent named 'nobody' (agents: worker)")) << unknown.describe();
    const CliResult other = t.mcph({"--agent", "worker", "prompts"});
    EXPECT_EQ(other.exit_code, 2) << other.describe();
    EXPECT_TRUE(contains(other.err, "--agent works with tools, call and approve")) << other.describe();
}

TEST(AgentCli, ProjectAgentNeedsApproveAgentAndAgainAfterAChange) {
    TrustTree t;
    const fs::path marker = t.dir / "project-agent-ran";
    const fs::path file = t.repo / ".mcph" / "agents" / "p.md";
    const std::string server = "own: " + marker_server(marker);
    write_file(file, agent_text("proj", {server}));

    const CliResult refused = t.mcph({"--agent", "proj", "tools"});
    EXPECT_EQ(refused.exit_code, 2) << refused.describe();
    EXPECT_TRUE(contains(refused.err, "mcph approve --agent proj")) << refused.describe();
    EXPECT_FALSE(fs::exists(marker)) << "an unapproved project agent ran its server\n" << refused.describe();

    const CliResult listed = t.mcph({"agents", "--json"});
    ASSERT_EQ(listed.exit_code, 0) << listed.describe();
    const Json doc = parse_or_fail(listed.out, "mcph agents --json");
    const JsonValue* proj = find_named(member_at(doc, "agents"), "proj");
    ASSERT_TRUE(proj) << listed.describe();
    EXPECT_EQ(string_at(*proj, "source"), "project");
    EXPECT_FALSE((*proj)["approved"].GetBool());

    const CliResult approve = t.mcph({"approve", "--agent", "proj"});
    ASSERT_EQ(approve.exit_code, 0) << approve.describe();
    EXPECT_TRUE(contains(approve.out, "project-agent-ran")) << "what it runs is shown\n" << approve.describe();
    EXPECT_FALSE(fs::exists(marker)) << "approving ran the server";
    const CliResult works = t.mcph({"--agent", "proj", "call", "own/work"});
    EXPECT_EQ(works.exit_code, 0) << works.describe();
    EXPECT_TRUE(fs::exists(marker)) << works.describe();

    fs::remove(marker);
    write_file(file, agent_text("proj", {server, "extra: {\"command\": \"/bin/true\"}"}));
    const CliResult changed = t.mcph({"--agent", "proj", "tools"});
    EXPECT_EQ(changed.exit_code, 2) << changed.describe();
    EXPECT_TRUE(contains(changed.err, "changed since you approved it")) << changed.describe();
    EXPECT_FALSE(fs::exists(marker)) << changed.describe();
}

TEST(AgentCli, AgentsListsProblemsWithFileAndLine) {
    TrustTree t;
    const fs::path bad = t.config_home / "agents" / "bad.md";
    write_file(bad, "---\nname: x\ntools: {a: 1}\n---\n");
    write_file(t.config_home / "agents" / "ok.md", agent_text("ok", {"github"}));
    const CliResult r = t.mcph({"agents"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_TRUE(contains(r.out, "ok  [user]")) << r.describe();
    EXPECT_TRUE(contains(r.out, "uses github (the parent's connection)")) << r.describe();
    EXPECT_TRUE(contains(r.out, "not loaded: " + bad.string() + ", line 3: 'tools' must be")) << r.describe();

    // The status view carries the same report.
    const Json status = t.status();
    const JsonValue* agents = member_at(status, "agents");
    ASSERT_TRUE(agents && agents->IsObject()) << t.last;
    EXPECT_TRUE(find_named(member_at(*agents, "agents"), "ok")) << t.last;
    const JsonValue* problems = member_at(*agents, "problems");
    ASSERT_TRUE(problems && problems->IsArray() && problems->Size() == 1) << t.last;
    EXPECT_EQ(string_at((*problems)[0], "origin"), bad.string());
    EXPECT_EQ((*problems)[0]["line"].GetInt(), 3);
    const CliResult text = t.mcph({"status"});
    EXPECT_TRUE(contains(text.out, "agent file not loaded: " + bad.string() + ", line 3")) << text.describe();
}

}  // namespace
}  // namespace mcph::test
