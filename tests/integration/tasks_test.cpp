// The Tasks extension (io.modelcontextprotocol/tasks, 2026-07-28) end to end: mcph::Host against
// tests/peers/v2-server.mjs (official TS server SDK, modern only), whose slow_task answers with a
// CreateTaskResult because the host declares the extension in each request's client capabilities.
// Over stdio and Streamable HTTP: polled to completion, cancelled by the caller, and stopped at
// the task deadline — the server's `cancellations` tool proves tasks/cancel arrived.
#include "peer_process.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <iostream>
#include <mutex>

namespace mcph::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

enum class Transport { Stdio, Http };

class TasksExtension : public ::testing::TestWithParam<Transport> {
protected:
    void SetUp() override {
        if (!fs::exists(peers_dir() / "node_modules"))
            GTEST_SKIP() << "npm test peers not installed (" << (peers_dir() / "node_modules")
                         << " is missing); run scripts/setup.sh (CI installs them)";
        const std::string script = (peers_dir() / "v2-server.mjs").string();
        const std::string node = node_path().string();
        if (GetParam() == Transport::Stdio) {
            config_ = stdio_config(node_path(), {script, "--transport", "stdio", "--legacy", "reject"});
        } else {
            std::string error;
            const int port = start_listening_peer(
                peer_,
                [&](int p) {
                    return std::vector<std::string>{node, script, "--transport", "http", "--legacy", "reject", "--port",
                                                    std::to_string(p)};
                },
                [](int) { return std::map<std::string, std::string>{}; }, peer_log_, 30s, error);
            ASSERT_NE(port, 0) << error;
            config_ = remote_config("http", "http://127.0.0.1:" + std::to_string(port) + "/mcp");
        }
        host_ = std::make_unique<Host>(options_);
        host_->add_server("v2", config_);
        session_ = host_->connect("v2");
        ASSERT_EQ(session_->era(), "modern");
    }

    void TearDown() override {
        session_.reset();
        host_.reset();
        peer_.stop();
        if (HasFailure()) {
            std::cout << logs_.dump();
            if (fs::exists(peer_log_)) std::cout << "peer log:\n" << read_file(peer_log_).substr(0, 20000);
        }
        std::error_code ec;
        fs::remove(peer_log_, ec);
    }

    CallToolResult call(const std::string& tool, const std::string& args, const RequestOptions& ro = {}) {
        return host_->call_tool("mcp__v2__" + tool, parse_json(args), ro);
    }

    // How many slow calls and tasks the server saw cancelled.
    int cancellations() {
        CallToolResult r = call("cancellations", "{}");
        return std::stoi(r.text());
    }

    Error failed_call(const std::string& args, const RequestOptions& ro) {
        try {
            call("slow_task", args, ro);
        } catch (const Error& e) {
            return e;
        }
        ADD_FAILURE() << "slow_task did not fail";
        return Error(ErrorKind::Usage, "none");
    }

    LogCapture logs_;
    HostOptions options_ = test_options(logs_);
    std::unique_ptr<Host> host_;
    std::shared_ptr<ClientSession> session_;
    Json config_;
    PeerProcess peer_;
    fs::path peer_log_ = temp_path("v2-server-tasks.log");
};

TEST_P(TasksExtension, SlowTaskIsPolledToCompletion) {
    std::mutex mutex;
    std::vector<std::string> messages;
    RequestOptions ro;
    ro.timeout = 10s;
    ro.on_progress = [&](const Progress& p) {
        std::lock_guard lock(mutex);
        messages.push_back(p.message);
    };
    CallToolResult r = call("slow_task", R"({"steps":4,"ms":300})", ro);
    EXPECT_FALSE(r.is_error);
    EXPECT_EQ(r.text(), "done");
    // The task's result ({steps}), not the inline fallback ({steps, task: false}).
    ASSERT_NE(r.structured(), nullptr);
    EXPECT_EQ(to_json(*r.structured()), R"({"steps":4})");
    std::lock_guard lock(mutex);
    ASSERT_GE(messages.size(), 3u);
    EXPECT_EQ(messages.front(), "working: step 0/4");
    // Polled every 100 ms (the server's hint): of three 300 ms steps in between, some are seen.
    EXPECT_TRUE(std::any_of(messages.begin(), messages.end(), [](const std::string& m) {
        return m == "working: step 1/4" || m == "working: step 2/4" || m == "working: step 3/4";
    })) << messages.size() << " status messages";
    EXPECT_EQ(messages.back().rfind("completed", 0), 0u) << messages.back();
}

TEST_P(TasksExtension, CallerCancelSendsTasksCancel) {
    ASSERT_EQ(cancellations(), 0);
    std::atomic<bool> cancel{false};
    RequestOptions ro;
    ro.timeout = 10s;
    // Cancel once the task is seen working (its first status change after creation).
    int changes = 0;
    ro.on_progress = [&](const Progress&) {
        if (++changes >= 2) cancel = true;
    };
    ro.is_cancelled = [&] { return cancel.load(); };
    const auto start = std::chrono::steady_clock::now();
    Error e = failed_call(R"({"steps":100,"ms":100})", ro);
    EXPECT_EQ(e.kind(), ErrorKind::Cancelled) << e.what();
    EXPECT_NE(std::string(e.what()).find("cancelled by the caller"), std::string::npos) << e.what();
    EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);  // not the 10 s the task would take
    EXPECT_EQ(cancellations(), 1);
}

TEST_P(TasksExtension, DeadlineCancelsTheTask) {
    RequestOptions ro;
    ro.timeout = 10s;
    ro.task_timeout = 400ms;
    Error e = failed_call(R"({"steps":50,"ms":200})", ro);
    EXPECT_EQ(e.kind(), ErrorKind::Timeout) << e.what();
    EXPECT_NE(std::string(e.what()).find("did not finish within 400 ms"), std::string::npos) << e.what();
    EXPECT_EQ(cancellations(), 1);
}

// input_required: the task's inputRequests go to the application's elicitation callback once
// (the server keeps listing the answered request until it processes the update), the answer goes
// back with tasks/update, and the task completes with it.
TEST_P(TasksExtension, InputRequiredIsAnsweredWithTasksUpdate) {
    session_.reset();
    host_.reset();
    std::atomic<int> asked{0};
    options_.callbacks.elicitation = [&](const ElicitationRequest& request) {
        ++asked;
        EXPECT_EQ(request.message, "What is your name?");
        ElicitationResponse r;
        r.action = "accept";
        r.content = parse_json(R"({"name":"Ada"})");
        return r;
    };
    host_ = std::make_unique<Host>(options_);
    host_->add_server("v2", config_);
    session_ = host_->connect("v2");
    RequestOptions ro;
    ro.timeout = 10s;
    ro.task_timeout = 3s;
    CallToolResult r = call("ask_task", "{}", ro);
    EXPECT_FALSE(r.is_error) << to_json(r.raw);
    EXPECT_EQ(r.text(), "Hello, Ada");
    ASSERT_NE(r.structured(), nullptr);
    EXPECT_EQ(to_json(*r.structured()), R"({"name":"Ada","updates":1})");
    EXPECT_EQ(asked.load(), 1);
}

INSTANTIATE_TEST_SUITE_P(Transports, TasksExtension, ::testing::Values(Transport::Stdio, Transport::Http),
                         [](const auto& info) { return info.param == Transport::Stdio ? "stdio" : "http"; });

}  // namespace
}  // namespace mcph::test
