// Issue #12, "auth off the transport's I/O thread", host side: the pending answers a transport
// waits for (AuthCompletions), the server's auth worker (AuthWorker), and the shield around every
// callback a plugin thread enters (a throwing listener is a diagnostic, not a crash).
#include "auth/auth_worker.hpp"
#include "plugins/host_services.hpp"
#include "plugins/plugin_registry.hpp"
#include "test_plugins.hpp"
#include "transport/auth_completions.hpp"
#include "transport/transport_channel.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using mcph::transport::AuthCompletions;
using mcph::transport::HeaderList;

// What one completion received.
struct Answer {
    int calls = 0;
    mcph_status status = MCPH_OK;
    HeaderList headers;
    std::string message;
    std::function<void()> during;  // runs inside the completion
};

mcph_auth_completion completion_into(Answer& a) {
    return mcph_auth_completion{sizeof(mcph_auth_completion), &a,
                                [](void* ud, mcph_status st, const mcph_header* h, size_t n, const mcph_error* err) {
                                    auto* answer = static_cast<Answer*>(ud);
                                    ++answer->calls;
                                    answer->status = st;
                                    for (size_t i = 0; h && i < n; ++i)
                                        answer->headers.emplace_back(std::string(h[i].name.ptr, h[i].name.len),
                                                                     std::string(h[i].value.ptr, h[i].value.len));
                                    if (err) answer->message = err->message;
                                    if (answer->during) answer->during();
                                }};
}

TEST(AuthCompletions, CompletesOnceWithTheHeaders) {
    AuthCompletions completions;
    Answer a;
    const auto id = completions.add(completion_into(a));
    ASSERT_NE(id, 0u);
    EXPECT_TRUE(completions.waiting(id));
    completions.complete(id, MCPH_OK, {{"Authorization", "Bearer t"}}, "");
    completions.complete(id, MCPH_ERR_AUTH, {}, "again");  // already answered: ignored
    EXPECT_EQ(a.calls, 1);
    EXPECT_EQ(a.status, MCPH_OK);
    EXPECT_EQ(a.headers, (HeaderList{{"Authorization", "Bearer t"}}));
    EXPECT_FALSE(completions.waiting(id));
}

TEST(AuthCompletions, CloseCancelsEveryPendingAnswerAndRefusesNewOnes) {
    AuthCompletions completions;
    Answer a, b, late;
    const auto ida = completions.add(completion_into(a));
    completions.add(completion_into(b));
    EXPECT_EQ(completions.close(), 2u);
    EXPECT_EQ(a.calls, 1);
    EXPECT_EQ(a.status, MCPH_ERR_CANCELLED);
    EXPECT_EQ(b.status, MCPH_ERR_CANCELLED);
    EXPECT_NE(a.message.find("closing"), std::string::npos) << a.message;
    completions.complete(ida, MCPH_OK, {}, "");  // the worker finishing after close: dropped
    EXPECT_EQ(a.calls, 1);
    EXPECT_EQ(completions.add(completion_into(late)), 0u);
    EXPECT_EQ(late.calls, 0);
}

// ABI v1.2: no completion runs after the transport's close has returned — close waits for one
// already running on another thread.
TEST(AuthCompletions, CloseWaitsForACompletionInProgress) {
    AuthCompletions completions;
    Answer a;
    std::promise<void> entered;
    std::atomic<bool> finished{false};
    a.during = [&] {
        entered.set_value();
        std::this_thread::sleep_for(300ms);
        finished = true;
    };
    const auto id = completions.add(completion_into(a));
    std::thread worker([&] { completions.complete(id, MCPH_OK, {}, ""); });
    ASSERT_EQ(entered.get_future().wait_for(5s), std::future_status::ready);
    EXPECT_EQ(completions.close(), 0u);
    EXPECT_TRUE(finished.load()) << "close() returned while a completion was still running";
    worker.join();
}

TEST(AuthWorker, RunsJobsInOrderOffTheCallersThread) {
    mcph::auth::AuthWorker worker;
    std::mutex m;
    std::condition_variable cv;
    std::vector<int> order;
    std::vector<std::thread::id> threads;
    for (int i = 0; i < 5; ++i)
        worker.post([&, i] {
            std::lock_guard lock(m);
            order.push_back(i);
            threads.push_back(std::this_thread::get_id());
            cv.notify_all();
        });
    std::unique_lock lock(m);
    ASSERT_TRUE(cv.wait_for(lock, 5s, [&] { return order.size() == 5; }));
    EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
    for (auto id : threads) EXPECT_NE(id, std::this_thread::get_id());
}

// Destruction never waits for a sign-in: the job in progress keeps what it owns and ends later.
TEST(AuthWorker, DestructionDoesNotWaitForABlockedJob) {
    auto release = std::make_shared<std::promise<void>>();
    auto started = std::make_shared<std::promise<void>>();
    auto done = std::make_shared<std::atomic<bool>>(false);
    auto worker = std::make_unique<mcph::auth::AuthWorker>();
    std::shared_future<void> gate = release->get_future().share();
    worker->post([gate, started, done] {
        started->set_value();
        gate.wait_for(10s);
        *done = true;
    });
    auto dropped = std::make_shared<std::atomic<bool>>(false);
    worker->post([dropped] { *dropped = true; });  // queued behind: dropped with the worker
    ASSERT_EQ(started->get_future().wait_for(5s), std::future_status::ready);
    const auto t0 = Clock::now();
    worker.reset();
    EXPECT_LT(Clock::now() - t0, 500ms);
    release->set_value();
    for (int i = 0; i < 100 && !done->load(); ++i) std::this_thread::sleep_for(20ms);
    EXPECT_TRUE(done->load());
    EXPECT_FALSE(dropped->load());
}

// ---- the shield around host callbacks ----------------------------------------------------------

class ThrowingListener : public mcph::transport::TransportListener {
public:
    void on_transport_message(std::string_view message) override {
        {
            std::lock_guard lock(mutex_);
            messages_.emplace_back(message);
        }
        cv_.notify_all();
        if (message == "throw") throw std::runtime_error("listener exploded");
        if (message == "throw-int") throw 42;
    }
    void on_transport_closed(mcph_close_reason, const mcph::transport::Failure&) override {}
    void on_transport_request_failed(std::string_view, const mcph::transport::Failure&) override {}
    void on_transport_diagnostic(mcph_log_level level, std::string_view message) override {
        std::lock_guard lock(mutex_);
        diagnostics_.emplace_back(level, std::string(message));
        cv_.notify_all();
    }
    bool wait(size_t messages, size_t diagnostics) {
        std::unique_lock lock(mutex_);
        return cv_.wait_for(lock, 5s, [&] { return messages_.size() >= messages && diagnostics_.size() >= diagnostics; });
    }
    std::vector<std::pair<mcph_log_level, std::string>> diagnostics() {
        std::lock_guard lock(mutex_);
        return diagnostics_;
    }

private:
    std::mutex mutex_;
    std::condition_variable cv_;
    std::vector<std::string> messages_;
    std::vector<std::pair<mcph_log_level, std::string>> diagnostics_;
};

TEST(CallbackShield, AThrowingListenerIsADiagnosticNotACrash) {
    mcph::plugins::HostServices services{mcph::plugins::HostServiceBindings{}};
    mcph::plugins::PluginRegistry registry;
    registry.discover({mcph::test::plugin_case_dir("good")}, services.table());
    auto plugin = registry.transport_for("echo");
    ASSERT_TRUE(plugin);
    ThrowingListener listener;
    mcph::transport::TransportChannel channel(plugin, services.table(), R"({"type":"echo","mode":"echo"})", &listener);
    channel.start();
    channel.send("throw");
    channel.send("throw-int");
    channel.send("after");  // the plugin's thread survived both
    ASSERT_TRUE(listener.wait(3, 2));
    const auto d = listener.diagnostics();
    EXPECT_EQ(d[0].first, MCPH_LOG_ERROR);
    EXPECT_EQ(d[0].second, "internal error in the host's on_message callback: listener exploded");
    EXPECT_EQ(d[1].second, "internal error in the host's on_message callback");
    channel.close();
}

// Host services are entered from plugin threads too: an application binding that throws gives the
// plugin MCPH_ERR_INTERNAL and the reason, never an exception through its C frames.
TEST(CallbackShield, AThrowingHostServiceBindingIsAStatus) {
    mcph::plugins::HostServiceBindings bindings;
    bindings.open_url = [](const std::string&) -> bool { throw std::runtime_error("no browser here"); };
    bindings.log = [](mcph::LogLevel, std::string_view, std::string_view) { throw 7; };
    bindings.post = [](std::function<void()>) { throw std::bad_alloc(); };
    mcph::plugins::HostServices services(bindings);
    const mcph_host_services* host = services.table();
    mcph_error err{};
    err.struct_size = sizeof err;
    const std::string url = "https://example.com/authorize";
    EXPECT_EQ(host->open_url(host->host_data, mcph_str_from(url.data(), url.size()), &err), MCPH_ERR_INTERNAL);
    EXPECT_STREQ(err.message, "internal error in the host: no browser here");
    host->log(host->host_data, MCPH_LOG_INFO, mcph_str_from("p", 1), mcph_str_from("line", 4));  // swallowed
    host->post(host->host_data, [](void*) {}, nullptr);                                         // swallowed
}

}  // namespace
