// TransportChannel over the in-memory echo plugin: the C callbacks reach the listener from the
// plugin's thread, errors map to mcph::Error kinds, and close is final.
#include "plugins/host_services.hpp"
#include "plugins/plugin_registry.hpp"
#include "test_plugins.hpp"
#include "transport/transport_channel.hpp"

#include <mcph/error.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using mcph::Error;
using mcph::ErrorKind;
using mcph::transport::TransportChannel;

class Listener : public mcph::transport::TransportListener {
public:
    void on_transport_message(std::string_view message) override {
        std::function<void(std::string_view)> hook;
        {
            std::lock_guard lock(mutex_);
            messages_.emplace_back(message);
            threads_.push_back(std::this_thread::get_id());
            hook = on_message_hook;
        }
        cv_.notify_all();
        if (hook) hook(message);
    }
    void on_transport_closed(mcph_close_reason reason, const mcph::transport::Failure& failure) override {
        std::lock_guard lock(mutex_);
        closed_ = true;
        reason_ = reason;
        detail_ = failure.stderr_tail.empty() ? failure.message : failure.message + "; stderr:\n" + failure.stderr_tail;
        cv_.notify_all();
    }
    void on_transport_request_failed(std::string_view, const mcph::transport::Failure&) override {}
    void on_transport_diagnostic(mcph_log_level level, std::string_view message) override {
        std::lock_guard lock(mutex_);
        diagnostics_.emplace_back(message);
        diagnostic_levels_.push_back(level);
    }

    bool wait_messages(std::size_t n) {
        std::unique_lock lock(mutex_);
        return cv_.wait_for(lock, 5s, [&] { return messages_.size() >= n; });
    }
    bool wait_closed() {
        std::unique_lock lock(mutex_);
        return cv_.wait_for(lock, 5s, [&] { return closed_; });
    }
    std::vector<std::string> messages() {
        std::lock_guard lock(mutex_);
        return messages_;
    }
    std::vector<std::thread::id> threads() {
        std::lock_guard lock(mutex_);
        return threads_;
    }

    std::function<void(std::string_view)> on_message_hook;
    mcph_close_reason reason_ = MCPH_CLOSE_CLEAN;
    std::string detail_;
    bool closed_ = false;
    std::vector<std::string> diagnostics_;
    std::vector<mcph_log_level> diagnostic_levels_;

    std::mutex& diagnostic_mutex() { return mutex_; }

private:
    std::mutex mutex_;
    std::condition_variable cv_;
    std::vector<std::string> messages_;
    std::vector<std::thread::id> threads_;
};

class TransportChannelTest : public ::testing::Test {
protected:
    void SetUp() override {
        registry.discover({mcph::test::plugin_case_dir("good")}, services.table());
        plugin = registry.transport_for("echo");
        ASSERT_TRUE(plugin) << "echo test plugin not found";
    }
    std::unique_ptr<TransportChannel> open(const std::string& config, Listener& listener) {
        return std::make_unique<TransportChannel>(plugin, services.table(), config, &listener);
    }

    mcph::plugins::HostServices services{mcph::plugins::HostServiceBindings{}};
    mcph::plugins::PluginRegistry registry;
    std::shared_ptr<mcph::plugins::LoadedPlugin> plugin;
};

TEST_F(TransportChannelTest, EchoesMessagesInOrderFromThePluginThread) {
    Listener listener;
    auto channel = open(R"({"type":"echo","name":"t","mode":"echo"})", listener);
    channel->start();
    for (int i = 0; i < 100; ++i) channel->send("{\"n\":" + std::to_string(i) + "}");
    ASSERT_TRUE(listener.wait_messages(100));
    auto messages = listener.messages();
    for (int i = 0; i < 100; ++i) EXPECT_EQ(messages[i], "{\"n\":" + std::to_string(i) + "}");
    for (auto id : listener.threads()) EXPECT_NE(id, std::this_thread::get_id()) << "delivered on the plugin's thread";
    channel->close();
}

// A plugin's diagnostic reaches the user's log: a level outside the enum must not pass every
// threshold as something above "error" (or below "debug"), and an enormous text is cut to a bound
// that says how much was left out.
TEST_F(TransportChannelTest, DiagnosticLevelsAreClampedAndTextsBounded) {
    Listener listener;
    auto channel = open(R"({"type":"echo","mode":"echo"})", listener);
    channel->start();
    channel->send("diagnose 7 10");
    channel->send("diagnose 2 1000000");
    ASSERT_TRUE(listener.wait_messages(2));  // each echo follows its diagnostic on the plugin's thread
    std::vector<std::string> texts;
    std::vector<mcph_log_level> levels;
    {
        std::lock_guard lock(listener.diagnostic_mutex());
        texts = listener.diagnostics_;
        levels = listener.diagnostic_levels_;
    }
    ASSERT_EQ(texts.size(), 2u);
    EXPECT_EQ(levels[0], MCPH_LOG_ERROR) << "an unknown level counts as the most severe known one";
    EXPECT_EQ(texts[0], std::string(10, 'x'));
    EXPECT_EQ(levels[1], MCPH_LOG_WARN);
    EXPECT_LT(texts[1].size(), 20000u);
    EXPECT_NE(texts[1].find("more bytes"), std::string::npos) << texts[1].substr(texts[1].size() - 80);
    channel->close();
}

// ABI 1.3: the echo plugin's vtable has pump (the helper fills it) but the transport does not
// implement it: the first pump learns UNSUPPORTED, the wait falls back at once, and no later wait
// tries again; messages still come from the plugin's thread.
TEST_F(TransportChannelTest, APumpThePluginDoesNotSupportFallsBackAtOnceAndIsNotRetried) {
    Listener listener;
    auto channel = open(R"({"type":"echo","name":"t","mode":"echo"})", listener);
    channel->start();
    ASSERT_TRUE(channel->enter_pump());
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(channel->pump_until([] { return false; }, start + 5s), mcph::transport::PumpWait::unsupported);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
    channel->leave_pump();
    EXPECT_FALSE(channel->enter_pump()) << "UNSUPPORTED is remembered";
    channel->send(R"({"n":1})");
    ASSERT_TRUE(listener.wait_messages(1));
    EXPECT_NE(listener.threads().front(), std::this_thread::get_id());
    channel->close();
}

TEST_F(TransportChannelTest, SendFromInsideOnMessageIsAllowed) {
    Listener listener;
    auto channel = open(R"({"type":"echo","mode":"echo"})", listener);
    listener.on_message_hook = [&](std::string_view message) {
        if (message == "ping") channel->send("pong");
    };
    channel->start();
    channel->send("ping");
    ASSERT_TRUE(listener.wait_messages(2));
    EXPECT_EQ(listener.messages()[1], "pong");
    channel->close();
}

TEST_F(TransportChannelTest, BinarySafeMessages) {
    Listener listener;
    auto channel = open(R"({"type":"echo","mode":"echo"})", listener);
    channel->start();
    const std::string with_nul("a\0b\xc3\xa9", 5);
    channel->send(with_nul);
    ASSERT_TRUE(listener.wait_messages(1));
    EXPECT_EQ(listener.messages()[0], with_nul);
}

TEST_F(TransportChannelTest, RejectedConfigIsAUsageErrorNamingThePlugin) {
    Listener listener;
    for (const char* config : {R"({"type":"echo","mode":"bogus"})", "[]", "not json"}) {
        SCOPED_TRACE(config);
        try {
            open(config, listener);
            ADD_FAILURE() << "accepted";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::Usage);
            EXPECT_NE(std::string(e.what()).find("test-echo"), std::string::npos) << e.what();
        }
    }
    try {
        open(R"({"mode":"bogus"})", listener);
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("unknown mode 'bogus'"), std::string::npos) << e.what();
    }
}

TEST_F(TransportChannelTest, StartFailureIsAConnectionError) {
    Listener listener;
    auto channel = open(R"({"type":"echo","failStart":true})", listener);
    try {
        channel->start();
        FAIL() << "started";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Connection);
        EXPECT_NE(std::string(e.what()).find("failStart"), std::string::npos) << e.what();
    }
}

TEST_F(TransportChannelTest, SendAfterCloseFailsAndCloseIsIdempotent) {
    Listener listener;
    auto channel = open(R"({"type":"echo","mode":"echo"})", listener);
    channel->start();
    channel->close();
    channel->close();
    try {
        channel->send("late");
        FAIL() << "sent after close";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Connection);
        EXPECT_NE(std::string(e.what()).find("transport closed"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(listener.messages().empty());
    EXPECT_FALSE(listener.closed_) << "no on_closed after an orderly close";
}

TEST_F(TransportChannelTest, PeerFailureArrivesThroughOnClosed) {
    Listener listener;
    auto channel = open(R"({"type":"echo"})", listener);  // MCP mode
    channel->start();
    channel->send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"crash"}})");
    ASSERT_TRUE(listener.wait_closed());
    EXPECT_EQ(listener.reason_, MCPH_CLOSE_ERROR);
    EXPECT_EQ(listener.detail_, "echo server crashed on request");
    EXPECT_THROW(channel->send("{}"), Error);
}

TEST_F(TransportChannelTest, UnsupportedOptionsAreIgnored) {
    Listener listener;
    auto channel = open(R"({"type":"echo","mode":"echo"})", listener);
    EXPECT_NO_THROW(channel->set_option("protocol-version", "2025-11-25"));
    EXPECT_NO_THROW(channel->set_option("made-up", "x"));
}

// An unknown option key is the plugin's property (ABI: MCPH_ERR_UNSUPPORTED, ignored): asked once
// per process, not once per transport or per Host, so a plugin that throws for it (the C++ helper's
// default set_option) stops throwing at every handshake.
TEST_F(TransportChannelTest, AnUnsupportedOptionIsAskedOncePerProcessNotPerTransportOrHost) {
    Listener first_listener;
    auto first = open(R"({"type":"echo"})", first_listener);
    first->set_option("unsupported-lifecycle", "1");
    first->set_option("unsupported-lifecycle", "2");
    // The same file loaded for another Host (its own init and LoadedPlugin, the same mapping).
    mcph::PluginInfo info;
    auto other_host_plugin = mcph::plugins::load_plugin(registry.infos()[0].path, services.table(), info);
    ASSERT_TRUE(other_host_plugin) << info.error;
    Listener listener;
    TransportChannel second(other_host_plugin, services.table(), R"({"type":"echo"})", &listener);
    second.set_option("unsupported-lifecycle", "3");
    second.set_option("protocol-version", "2025-11-25");  // a known key is still set on each transport
    second.start();
    second.send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"state","arguments":{}}})");
    ASSERT_TRUE(listener.wait_messages(1));
    const std::string reply = listener.messages()[0];
    EXPECT_NE(reply.find(R"(\"unsupported_option_calls\":1})"), std::string::npos) << reply;
    EXPECT_NE(reply.find(R"(\"protocol-version\":\"2025-11-25\")"), std::string::npos) << reply;
    second.close();
}

TEST_F(TransportChannelTest, ChannelKeepsThePluginMappedAfterTheRegistryLetsGo) {
    Listener listener;
    auto channel = open(R"({"type":"echo","mode":"echo"})", listener);
    registry.clear();
    plugin.reset();  // the channel now holds the only reference
    channel->start();
    channel->send("still here");
    ASSERT_TRUE(listener.wait_messages(1));
    EXPECT_EQ(listener.messages()[0], "still here");
    channel.reset();  // destroys the transport, then the plugin may unload
}

}  // namespace
