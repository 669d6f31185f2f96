// ServerConnection's health monitoring, with an in-process server (no I/O): terminal transport
// errors in a row reconnect; terminal errors spread among others trigger a ping probe that keeps a
// live server and reconnects a dead one; non-terminal errors alone change nothing.
#include "connection/server_connection.hpp"

#include "transport/in_process_transport.hpp"

#include <mcph/in_process_server.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <thread>

namespace mcph::connection {
namespace {

using namespace std::chrono_literals;

// Answers initialize and tools/list; answers ping only while `answer_pings` is set.
class PingableServer : public InProcessServer {
public:
    std::atomic<bool> answer_pings{true};
    std::atomic<int> initializes{0};
    std::atomic<int> pings{0};

    void on_client_message(std::string_view message, const Reply& to_client) override {
        Json m = parse_json(message);
        if (!m.HasMember("id") || !m.HasMember("method")) return;
        const std::string id = to_json(m["id"]);
        const std::string method = m["method"].GetString();
        std::string result;
        if (method == "initialize") {
            ++initializes;
            result = R"({"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"p","version":"1"}})";
        } else if (method == "tools/list") {
            result = R"({"tools":[{"name":"t","inputSchema":{"type":"object"}}]})";
        } else if (method == "ping") {
            ++pings;
            if (!answer_pings) return;
            result = "{}";
        } else {
            return;
        }
        to_client(R"({"jsonrpc":"2.0","id":)" + id + R"(,"result":)" + result + "}");
    }
};

class ServerConnectionHealth : public ::testing::Test {
protected:
    ServerConnectionHealth() {
        plugins::HostServiceBindings bindings;
        services_ = std::make_shared<plugins::HostServices>(std::move(bindings));
        config::ConfiguredServer configured;
        configured.config.name = "p";
        configured.config.type = "sdk";
        ConnectionDeps deps;
        deps.runtime = runtime_;
        deps.policy.initial_backoff = 20ms;
        deps.policy.max_backoff = 40ms;
        deps.probe_timeout = 200ms;
        deps.log = [](LogLevel, std::string_view, std::string_view) {};
        deps.on_state_change = [this](const std::string&, const ConnectionState& state) {
            std::lock_guard lock(mutex_);
            states_.emplace_back(state_name(state));
            changed_.notify_all();
        };
        deps.make_session = [this](const config::ServerConfig& config, SessionHooks hooks) {
            problem_ = hooks.on_transport_problem;
            detail::SessionSettings settings;
            settings.server_name = config.name;
            settings.transport_type = config.type;
            settings.request_timeout = 2s;
            settings.connect_timeout = 2s;
            settings.on_disconnected = std::move(hooks.on_disconnected);
            settings.on_transport_problem = std::move(hooks.on_transport_problem);
            auto server = server_;
            return std::make_shared<detail::SessionCore>(
                std::move(settings),
                [server](transport::TransportListener* listener) -> std::unique_ptr<transport::Transport> {
                    return std::make_unique<transport::InProcessTransport>(server, listener);
                },
                services_, runtime_);
        };
        connection_ = std::make_shared<ServerConnection>(configured, std::move(deps));
    }
    ~ServerConnectionHealth() override {
        connection_->shutdown();
        runtime_->stop();
    }

    // Waits until the state history ends with `sequence` (after `from` entries).
    bool saw(std::size_t from, const std::vector<std::string>& sequence, std::chrono::milliseconds timeout = 3s) {
        std::unique_lock lock(mutex_);
        return changed_.wait_for(lock, timeout, [&] {
            if (states_.size() < from + sequence.size()) return false;
            return std::equal(sequence.begin(), sequence.end(), states_.begin() + static_cast<long>(from));
        });
    }
    std::size_t history() {
        std::lock_guard lock(mutex_);
        return states_.size();
    }

    std::shared_ptr<runtime::Runtime> runtime_ = std::make_shared<runtime::Runtime>();
    std::shared_ptr<plugins::HostServices> services_;
    std::shared_ptr<PingableServer> server_ = std::make_shared<PingableServer>();
    std::shared_ptr<ServerConnection> connection_;
    std::function<void(const std::string&)> problem_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<std::string> states_;
};

TEST_F(ServerConnectionHealth, ThreeTerminalErrorsInARowReconnect) {
    auto first = connection_->connect();
    ASSERT_TRUE(first->connected());
    const auto before = history();
    for (int i = 0; i < 3; ++i) problem_("recv failure: Connection reset by peer");
    EXPECT_TRUE(saw(before, {"pending", "connected"})) << "expected a reconnect";
    EXPECT_EQ(server_->initializes.load(), 2);
    EXPECT_EQ(server_->pings.load(), 0) << "three in a row need no probe";
}

TEST_F(ServerConnectionHealth, NonTerminalErrorsResetTheCountAndNeverReconnect) {
    connection_->connect();
    const auto before = history();
    for (int i = 0; i < 6; ++i) problem_("skipping an SSE event that is not valid JSON-RPC");
    std::this_thread::sleep_for(200ms);
    EXPECT_EQ(history(), before);
    EXPECT_EQ(server_->initializes.load(), 1);
}

TEST_F(ServerConnectionHealth, AlternatingErrorsTriggerAProbeThatKeepsALiveServer) {
    connection_->connect();
    const auto before = history();
    for (int i = 0; i < 3; ++i) {
        problem_("Connection reset by peer");
        problem_("HTTP 500 from the server");  // resets the in-a-row count, not the window
    }
    ASSERT_TRUE([&] {
        for (int i = 0; i < 100 && server_->pings.load() == 0; ++i) std::this_thread::sleep_for(10ms);
        return server_->pings.load() > 0;
    }()) << "the window of terminal errors must ask for a ping";
    std::this_thread::sleep_for(300ms);
    EXPECT_EQ(history(), before) << "a live server keeps its connection";
    EXPECT_EQ(server_->initializes.load(), 1);
}

TEST_F(ServerConnectionHealth, AlternatingErrorsAndAnUnansweredProbeReconnect) {
    connection_->connect();
    server_->answer_pings = false;
    const auto before = history();
    for (int i = 0; i < 3; ++i) {
        problem_("Connection reset by peer");
        problem_("HTTP 500 from the server");
    }
    EXPECT_TRUE(saw(before, {"pending", "connected"})) << "a silent server is reconnected";
    EXPECT_GE(server_->pings.load(), 1);
    EXPECT_EQ(server_->initializes.load(), 2);
}

}  // namespace
}  // namespace mcph::connection
