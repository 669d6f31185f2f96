// Sub-agent overlays and the tagged connection state, over real fake-mcp-server processes:
// references share the parent's connection and survive the overlay; inline servers belong to the
// overlay and close with it; a plugin-only managed policy refuses inline servers of user and
// project agents but not of plugin ones; a disabled server stays down until enabled.
#include "session/client_session_access.hpp"
#include "test_support.hpp"

#include <mcph/host.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace mcph::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string fake_json(const std::string& mode = "normal") { return to_json(fake_config(mode)); }

bool has_mapped(const std::vector<Tool>& tools, const std::string& mapped) {
    for (const auto& t : tools)
        if (t.mapped_name == mapped) return true;
    return false;
}

class Overlays : public ::testing::Test {
protected:
    void SetUp() override { host_ = std::make_unique<Host>(test_options(logs_)); }
    LogCapture logs_;
    std::unique_ptr<Host> host_;
};

TEST_F(Overlays, ReferencesShareTheParentConnectionAndInlineServersCloseWithTheOverlay) {
    ASSERT_TRUE(has_stdio_plugin(*host_));
    host_->add_server("parent", fake_config("normal"));
    auto parent = host_->connect("parent");

    OverlaySpec spec;
    spec.agent = "reviewer";
    spec.source = AgentSource::User;
    spec.servers.push_back({"parent", "", ""});
    spec.servers.push_back({"", "own", fake_json()});
    std::shared_ptr<ClientSession> own;
    {
        auto overlay = host_->open_overlay(spec);
        EXPECT_EQ(overlay->server_names(), (std::vector<std::string>{"parent", "own"}));
        EXPECT_EQ(overlay->owned_servers(), std::vector<std::string>{"own"});
        auto tools = overlay->tools();
        EXPECT_TRUE(has_mapped(tools, "mcp__parent__work"));
        EXPECT_TRUE(has_mapped(tools, "mcp__own__work"));
        EXPECT_FALSE(has_mapped(host_->tools(), "mcp__own__work")) << "inline servers stay inside the overlay";
        // The reference is the parent's very connection, not a second one.
        // (The public API has no window onto the connection behind a session; this test links
        // mcph_internal, whose session access shows the core.)
        auto reference = overlay->session("parent");
        ASSERT_NE(reference, nullptr);
        EXPECT_EQ(&detail::ClientSessionAccess::core(*reference), &detail::ClientSessionAccess::core(*parent));
        own = overlay->session("own");
        ASSERT_NE(own, nullptr);
        EXPECT_EQ(overlay->call_tool("mcp__own__work", Json(rapidjson::kObjectType)).text(), "work done");
    }
    EXPECT_FALSE(own->connected()) << "the overlay's own server closes with it";
    EXPECT_TRUE(parent->connected()) << "a referenced server belongs to the parent and stays open";
    EXPECT_EQ(host_->call_tool("mcp__parent__work", Json(rapidjson::kObjectType)).text(), "work done");
}

TEST_F(Overlays, UnknownReferenceAndNameClashesAreRefused) {
    host_->add_server("parent", fake_config("normal"));
    OverlaySpec unknown;
    unknown.agent = "a";
    unknown.servers.push_back({"nope", "", ""});
    EXPECT_THROW(host_->open_overlay(unknown), Error);
    OverlaySpec clash;
    clash.agent = "a";
    clash.servers.push_back({"", "parent", fake_json()});
    try {
        host_->open_overlay(clash);
        ADD_FAILURE() << "an inline server may not shadow a host server";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Usage);
        EXPECT_NE(std::string(e.what()).find("already in use"), std::string::npos) << e.what();
    }
}

// "roots" in an agent's inline server: resolved like a server entry's (realpath, a directory,
// relative to the agent file's folder), and offered in roots/list (fake-mcp-server --mode
// ask-roots answers a tool call with the client's roots/list answer). A project agent file's
// roots must stay inside the repository: else that server is refused naming agent, file and server.
class OverlayRoots : public ::testing::Test {
protected:
    void SetUp() override {
        root_ = temp_path("overlay-roots");
        fs::create_directories(root_);
        root_ = fs::canonical(root_);
        fs::create_directories(root_ / "repo" / ".git");
        fs::create_directories(root_ / "repo" / ".claude" / "agents");
        fs::create_directories(root_ / "repo" / "docs");
        fs::create_directories(root_ / "outside");
        HostOptions options = test_options(logs_);
        options.cwd = root_ / "repo";
        host_ = std::make_unique<Host>(options);
    }
    void TearDown() override { fs::remove_all(root_); }
    OverlaySpec spec(AgentSource source, const std::vector<std::string>& roots) {
        OverlaySpec out;
        out.agent = "a";
        out.source = source;
        out.origin = (root_ / "repo" / ".claude" / "agents" / "a.md").string();
        Json entry = fake_config("ask-roots");
        JsonValue list(rapidjson::kArrayType);
        for (const auto& r : roots) list.PushBack(JsonValue(r.c_str(), entry.GetAllocator()), entry.GetAllocator());
        entry.AddMember("roots", list, entry.GetAllocator());
        out.servers.push_back({"", "own", to_json(entry)});
        return out;
    }
    std::string refusal(const OverlaySpec& s) {
        try {
            host_->open_overlay(s);
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::Usage);
            return e.what();
        }
        ADD_FAILURE() << "the overlay opened";
        return {};
    }
    fs::path root_;
    LogCapture logs_;
    std::unique_ptr<Host> host_;
};

TEST_F(OverlayRoots, InlineServerRootsResolveFromTheAgentFileAndAreOffered) {
    ASSERT_TRUE(has_stdio_plugin(*host_));
    // "../../docs" from .claude/agents/, inside the repository: a project agent may offer it.
    auto overlay = host_->open_overlay(spec(AgentSource::Project, {"../../docs"}));
    const std::string answer = overlay->call_tool("mcp__own__work", Json(rapidjson::kObjectType)).text();
    EXPECT_NE(answer.find("file://" + (root_ / "repo" / "docs").string()), std::string::npos) << answer;
    EXPECT_EQ(answer.find("file://" + (root_ / "repo").string() + "\""), std::string::npos) << "not the cwd: " << answer;
}

TEST_F(OverlayRoots, AProjectAgentsRootsMustStayInTheRepositoryAndExist) {
    const std::string file = (root_ / "repo" / ".claude" / "agents" / "a.md").string();
    std::string why = refusal(spec(AgentSource::Project, {(root_ / "outside").string()}));
    EXPECT_NE(why.find("agent 'a' (project, defined in " + file + ")"), std::string::npos) << why;
    EXPECT_NE(why.find("inline server 'own'"), std::string::npos) << why;
    EXPECT_NE(why.find("outside the project"), std::string::npos) << why;
    why = refusal(spec(AgentSource::Project, {"missing"}));
    EXPECT_NE(why.find("roots: \"missing\""), std::string::npos) << why;
    why = refusal(spec(AgentSource::Project, {""}));
    EXPECT_NE(why.find("roots must be an array of directory paths"), std::string::npos) << why;
    // A user's agent may name any folder of the user's.
    ASSERT_TRUE(has_stdio_plugin(*host_));
    auto overlay = host_->open_overlay(spec(AgentSource::User, {(root_ / "outside").string()}));
    const std::string answer = overlay->call_tool("mcp__own__work", Json(rapidjson::kObjectType)).text();
    EXPECT_NE(answer.find("file://" + (root_ / "outside").string()), std::string::npos) << answer;
}

// A managed policy, through the layered config (MCPH_MANAGED_DIR / MCPH_CONFIG_HOME point at temp
// dirs; each test runs in its own process, so the environment is ours).
class OverlayPolicy : public ::testing::Test {
protected:
    void SetUp() override {
        root_ = temp_path("overlay-policy");
        fs::create_directories(root_ / "managed");
        fs::create_directories(root_ / "home");
        fs::create_directories(root_ / "work");
        std::ofstream(root_ / "managed" / "managed-settings.json")
            << R"({"pluginOnlyMcpServers": true, "deniedMcpServers": [{"serverName": "forbidden"}]})";
        ::setenv("MCPH_MANAGED_DIR", (root_ / "managed").c_str(), 1);
        ::setenv("MCPH_CONFIG_HOME", (root_ / "home").c_str(), 1);
        HostOptions options = test_options(logs_);
        options.load_layered_config = true;
        options.cwd = root_ / "work";
        host_ = std::make_unique<Host>(options);
    }
    void TearDown() override {
        host_.reset();
        fs::remove_all(root_);
    }
    OverlaySpec inline_spec(AgentSource source, const std::string& name = "own") {
        OverlaySpec spec;
        spec.agent = "helper";
        spec.source = source;
        spec.servers.push_back({"", name, fake_json()});
        return spec;
    }
    fs::path root_;
    LogCapture logs_;
    std::unique_ptr<Host> host_;
};

TEST_F(OverlayPolicy, UserAndProjectAgentsMayNotBringInlineServers) {
    for (AgentSource source : {AgentSource::User, AgentSource::Project}) {
        try {
            host_->open_overlay(inline_spec(source));
            ADD_FAILURE() << "inline server accepted under a plugin-only policy";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::Usage);
            EXPECT_NE(std::string(e.what()).find("pluginOnlyMcpServers"), std::string::npos) << e.what();
        }
    }
}

TEST_F(OverlayPolicy, PluginBuiltInAndPolicyAgentsMay) {
    for (AgentSource source : {AgentSource::Plugin, AgentSource::BuiltIn, AgentSource::Policy}) {
        auto overlay = host_->open_overlay(inline_spec(source));
        ASSERT_NE(overlay->session("own"), nullptr);
        EXPECT_TRUE(overlay->session("own")->connected());
    }
}

TEST_F(OverlayPolicy, InlineServersAreSubjectToTheDenyList) {
    try {
        host_->open_overlay(inline_spec(AgentSource::Plugin, "forbidden"));
        ADD_FAILURE() << "a denied inline server was opened";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("denied by policy"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("forbidden"), std::string::npos) << e.what();
    }
}

// The tagged state: each state's data, and disabled → (user) enabled → connected.
TEST(ConnectionStates, DisabledUntilTheUserEnablesThenConnectedWithTheServersData) {
    LogCapture logs;
    std::vector<std::string> seen;
    std::mutex seen_mutex;
    HostOptions options = test_options(logs);
    options.on_state_change = [&](const std::string& server, const ConnectionState& state) {
        std::lock_guard lock(seen_mutex);
        seen.push_back(server + ":" + std::string(state_name(state)));
    };
    Host host(options);
    Json config = fake_config("normal");
    config.AddMember("disabled", true, config.GetAllocator());
    host.add_server("fake", config);
    ASSERT_TRUE(std::holds_alternative<state::Disabled>(host.state("fake")));
    EXPECT_EQ(std::get<state::Disabled>(host.state("fake")).reason, "disabled in config");
    try {
        host.connect("fake");
        ADD_FAILURE() << "a disabled server connected";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Usage);
        EXPECT_NE(std::string(e.what()).find("mcph enable fake"), std::string::npos) << e.what();
    }
    host.connect_all();  // skips disabled servers
    EXPECT_TRUE(std::holds_alternative<state::Disabled>(host.state("fake")));

    host.enable("fake");
    ASSERT_TRUE(std::holds_alternative<state::Pending>(host.state("fake")));
    host.connect("fake");
    const ConnectionState state = host.state("fake");
    const auto* connected = std::get_if<state::Connected>(&state);
    ASSERT_NE(connected, nullptr) << state_name(state);
    EXPECT_EQ(std::get_if<state::Failed>(&state), nullptr);
    ASSERT_NE(connected->client, nullptr);
    EXPECT_TRUE(connected->client->connected());
    EXPECT_NE(connected->capabilities_json.find("\"tools\""), std::string::npos) << connected->capabilities_json;
    EXPECT_FALSE(connected->server_info.name.empty());
    EXPECT_FALSE(connected->protocol_version.empty());

    host.disable("fake");
    EXPECT_TRUE(std::holds_alternative<state::Disabled>(host.state("fake")));
    EXPECT_FALSE(connected->client->connected()) << "disabling closes the connection";
    std::lock_guard lock(seen_mutex);
    EXPECT_EQ(seen, (std::vector<std::string>{"fake:pending", "fake:pending", "fake:connected", "fake:disabled"}));
}

}  // namespace
}  // namespace mcph::test
