// subscriptions/listen and result caching against the official TypeScript server SDK 2.4.0
// (tests/peers/v2-server.mjs), over stdio and Streamable HTTP, modern era only (the server refuses
// 2025-era clients): a tool added at run time reaches mcph as notifications/tools/list_changed on
// the listen stream, the cached list refreshes and the application's on_list_changed hears it; a
// list with ttlMs is served from the cache within it and fetched again after.
#include "peer_process.hpp"
#include "test_support.hpp"

#include <mcph/host.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>

namespace mcph::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

enum class Wire { Stdio, Http };

class V2Listen : public ::testing::TestWithParam<Wire> {
protected:
    void SetUp() override {
        if (!fs::exists(peers_dir() / "node_modules" / "@modelcontextprotocol" / "server"))
            GTEST_SKIP() << "npm test peers not installed (run scripts/setup.sh)";
        const std::string node = node_path().string();
        const std::string script = (peers_dir() / "v2-server.mjs").string();
        const std::string ttl = std::to_string(ttl_ms());
        if (GetParam() == Wire::Stdio) {
            config_ = stdio_config(node_path(), {script, "--transport", "stdio", "--legacy", "reject", "--ttl-ms", ttl});
            return;
        }
        std::string error;
        const int port = start_listening_peer(
            peer_,
            [&](int p) {
                return std::vector<std::string>{node, script, "--transport", "http", "--legacy", "reject", "--port",
                                                std::to_string(p), "--ttl-ms", ttl};
            },
            [](int) { return std::map<std::string, std::string>{}; }, log_, 30s, error);
        ASSERT_NE(port, 0) << error;
        config_ = remote_config("http", "http://127.0.0.1:" + std::to_string(port) + "/mcp");
    }

    // ttlMs the server puts on its lists: long enough that two listings in a row share it.
    virtual int ttl_ms() const { return 2000; }

    Json config_;
    PeerProcess peer_;
    fs::path log_ = temp_path("v2-listen");
};

TEST_P(V2Listen, AToolAddedAtRunTimeArrivesThroughTheListenStream) {
    LogCapture logs;
    HostOptions options = test_options(logs);
    std::mutex m;
    std::vector<std::string> changed;
    options.callbacks.on_list_changed = [&](const std::string& server, const std::string& which) {
        std::lock_guard lock(m);
        changed.push_back(server + ":" + which);
    };
    Host host(options);
    host.add_server("v2", config_);
    auto session = host.connect("v2");
    ASSERT_EQ(session->era(), "modern");
    // The stream is open and acknowledged before anything changes.
    ASSERT_TRUE(wait_until(
        [&] {
            Json status = host.status_json();
            const JsonValue& s = status["servers"][0];
            return s.HasMember("subscription") && s["subscription"]["state"] == "acknowledged";
        },
        10s))
        << to_json(host.status_json()) << logs.dump();
    ASSERT_FALSE(has_tool(session->cached_tools(), "late_tool"));
    RequestOptions ro;
    ro.timeout = 10s;
    host.call_tool("mcp__v2__add_tool", parse_json(R"({"name":"late_tool"})"), ro);
    ASSERT_TRUE(wait_until([&] { return has_tool(session->cached_tools(), "late_tool"); }, 10s)) << logs.dump();
    {
        std::lock_guard lock(m);
        EXPECT_NE(std::find(changed.begin(), changed.end(), "v2:tools"), changed.end());
    }
    const CallToolResult r = host.call_tool("mcp__v2__late_tool", parse_json("{}"), ro);
    EXPECT_NE(r.text().find("late_tool"), std::string::npos) << to_json(r.raw);
}

// How many tools/list requests the server has answered (its list_calls tool).
int list_calls(Host& host) {
    RequestOptions ro;
    ro.timeout = 10s;
    return std::stoi(host.call_tool("mcp__v2__list_calls", parse_json("{}"), ro).text());
}

TEST_P(V2Listen, AListWithTtlIsServedFromTheCacheWithinItAndFetchedAfter) {
    LogCapture logs;
    Host host(test_options(logs));
    host.add_server("v2", config_);
    auto session = host.connect("v2");
    ASSERT_EQ(session->era(), "modern");
    const int before = list_calls(host);  // the connect's own listing
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_TRUE(has_tool(session->list_tools(), "echo"));
    ASSERT_TRUE(has_tool(session->list_tools(), "echo"));
    const bool within_ttl = elapsed_ms(t0) < ttl_ms() - 500;
    if (within_ttl) {
        EXPECT_EQ(list_calls(host), before) << "both listings came from the cache";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(ttl_ms() + 100));  // past ttlMs: the entry is stale
    ASSERT_TRUE(has_tool(session->list_tools(), "echo"));
    EXPECT_EQ(list_calls(host), before + 1) << "stale: fetched again, once";
}

INSTANTIATE_TEST_SUITE_P(Wires, V2Listen, ::testing::Values(Wire::Stdio, Wire::Http),
                         [](const auto& info) { return info.param == Wire::Stdio ? "stdio" : "http"; });

}  // namespace
}  // namespace mcph::test
