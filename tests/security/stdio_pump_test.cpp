// Issue #16, "no needless thread hand-offs" (ABI 1.3 transport pump): a caller waiting for its
// reply reads the stdio pipe itself. What must hold while it does: replies are read on the
// caller's thread, every future of a window completes, and a server that dies during a pumped
// wait ends the call with the typed connection error within a bound -- never a hang.
#include "test_support.hpp"

#include <mcph/host.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using namespace mcph;
using namespace mcph::test;

Json work_params() {
    Json params(rapidjson::kObjectType);
    params.AddMember("name", "work", params.GetAllocator());
    params.AddMember("arguments", Json(rapidjson::kObjectType), params.GetAllocator());
    return params;
}

// A host with the fake server in `mode`, connected (the host outlives the session it serves).
struct FakeConnection {
    explicit FakeConnection(const std::string& mode, HostOptions options = test_options(LogCapture()))
        : host(std::move(options)) {
        EXPECT_TRUE(has_stdio_plugin(host));
        host.add_server("fake", fake_config(mode));
        session = host.connect("fake");
    }
    ~FakeConnection() {
        if (session) session->close();
    }
    Host host;
    std::shared_ptr<ClientSession> session;
};

// The threads inbound messages were handed to the host on (the wire trace runs there).
struct InboundThreads {
    std::mutex mutex;
    std::vector<std::thread::id> ids;
    std::size_t on(std::thread::id id) {
        std::lock_guard lock(mutex);
        std::size_t n = 0;
        for (auto i : ids) n += i == id;
        return n;
    }
};

TEST(StdioPump, SynchronousCallsReadTheirRepliesOnTheCallingThread) {
    LogCapture logs;
    HostOptions options = test_options(logs);
    auto inbound = std::make_shared<InboundThreads>();
    options.wire_trace = [inbound](const std::string&, WireDirection direction, std::string_view) {
        if (direction != WireDirection::In) return;
        std::lock_guard lock(inbound->mutex);
        inbound->ids.push_back(std::this_thread::get_id());
    };
    FakeConnection fake("normal", options);
    auto& session = fake.session;
    constexpr int kCalls = 200;
    for (int i = 0; i < kCalls; ++i) {
        Json result = session->call("tools/call", work_params());
        ASSERT_TRUE(result.IsObject());
    }
    // Back to back, the role stays with the caller: nearly every reply is read right here (the
    // first after a quiet spell may still come from the reader thread; a loaded machine may
    // pause us past the reader's grace now and then).
    EXPECT_GE(inbound->on(std::this_thread::get_id()), static_cast<std::size_t>(kCalls / 2))
        << "replies were not read on the calling thread";
}

TEST(StdioPump, SixteenFuturesFromOneThreadAllComplete) {
    FakeConnection fake("normal");
    auto& session = fake.session;
    constexpr int kWindow = 16;
    constexpr int kTotal = 2000;
    std::vector<PendingRequest> window;
    int sent = 0, done = 0;
    for (; sent < kWindow; ++sent) window.push_back(session->request("tools/call", work_params()));
    while (!window.empty()) {
        ASSERT_TRUE(window.front().wait_for(10s)) << "request " << done << " did not complete";
        Json result = window.front().get();
        ASSERT_TRUE(result.IsObject());
        ++done;
        window.erase(window.begin());
        if (sent < kTotal) {
            window.push_back(session->request("tools/call", work_params()));
            ++sent;
        }
    }
    EXPECT_EQ(done, kTotal);
}

// Several threads waiting at once: one pumps, the others are woken after each round and one of
// them takes over when the pumper's own reply is in. Every call completes.
TEST(StdioPump, ConcurrentSynchronousCallersAllComplete) {
    FakeConnection fake("normal");
    auto& session = fake.session;
    std::atomic<int> ok{0};
    std::vector<std::thread> callers;
    for (int t = 0; t < 4; ++t)
        callers.emplace_back([&] {
            for (int i = 0; i < 200; ++i)
                if (session->call("tools/call", work_params()).IsObject()) ++ok;
        });
    for (auto& c : callers) c.join();
    EXPECT_EQ(ok.load(), 800);
}

TEST(StdioPump, AServerDyingDuringAPumpedWaitIsATypedConnectionErrorNotAHang) {
    FakeConnection fake("exit-mid-call");
    auto& session = fake.session;
    RequestOptions ro;
    ro.timeout = 20s;
    const auto t0 = std::chrono::steady_clock::now();
    PendingRequest pending = session->request("tools/call", work_params(), ro);
    try {
        (void)pending.get();
        ADD_FAILURE() << "the call succeeded although the server exited";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Connection) << e.what();
    }
    EXPECT_LT(elapsed_ms(t0), 10000) << "the caller waited far past the server's exit";
}

}  // namespace
