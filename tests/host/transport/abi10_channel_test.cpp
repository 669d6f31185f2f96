// TransportChannel over a plugin built against the frozen ABI 1.0 header (tests/plugin-api/
// plugins/abi10_transport.cpp): it is driven through the 1.0 part of the vtable only, it gets the
// traits a 1.0 plugin of its type implies, and its close detail in the 1.0 convention
// ("<message>; stderr:\n<tail>") reaches the listener split into message and stderr tail.
#include "plugins/host_services.hpp"
#include "plugins/plugin_registry.hpp"
#include "test_plugins.hpp"
#include "transport/transport_channel.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

namespace {

using namespace std::chrono_literals;
using mcph::transport::Failure;
using mcph::transport::TransportChannel;

class Abi10Listener : public mcph::transport::TransportListener {
public:
    void on_transport_message(std::string_view message) override {
        std::lock_guard lock(mutex_);
        messages.emplace_back(message);
        cv_.notify_all();
    }
    void on_transport_closed(mcph_close_reason r, const Failure& f) override {
        std::lock_guard lock(mutex_);
        ++closes;
        reason = r;
        failure = f;
        cv_.notify_all();
    }
    void on_transport_request_failed(std::string_view, const Failure&) override { ++request_failures; }
    void on_transport_failure(const Failure&) override { ++typed_failures; }
    void on_transport_diagnostic(mcph_log_level, std::string_view) override {}

    bool wait(std::size_t n_messages, bool closed) {
        std::unique_lock lock(mutex_);
        return cv_.wait_for(lock, 5s, [&] { return messages.size() >= n_messages && (!closed || closes > 0); });
    }

    std::vector<std::string> messages;
    int closes = 0;
    int request_failures = 0;
    int typed_failures = 0;
    mcph_close_reason reason = MCPH_CLOSE_CLEAN;
    Failure failure;

private:
    std::mutex mutex_;
    std::condition_variable cv_;
};

class Abi10ChannelTest : public ::testing::Test {
protected:
    void SetUp() override {
        registry.discover({mcph::test::plugin_case_dir("abi10")}, services.table());
        plugin = registry.transport_for("abi10");
        ASSERT_TRUE(plugin) << "the abi10 test plugin was not found or not loaded";
    }
    mcph::plugins::HostServices services{mcph::plugins::HostServiceBindings{}};
    mcph::plugins::PluginRegistry registry;
    std::shared_ptr<mcph::plugins::LoadedPlugin> plugin;
};

TEST_F(Abi10ChannelTest, TheDescriptorSaysOnePointZeroAndTheVtableHasNoV11Fields) {
    EXPECT_EQ(plugin->descriptor().abi_major, 1u);
    EXPECT_EQ(plugin->descriptor().abi_minor, 0u);
    EXPECT_LT(plugin->transport()->struct_size, sizeof(mcph_transport_vtable_v1)) << "built against the 1.0 header";
}

TEST_F(Abi10ChannelTest, CarriesMessagesAndTheCloseDetailIsSplit) {
    Abi10Listener listener;
    TransportChannel channel(plugin, services.table(), R"({"type":"abi10","name":"old"})", &listener);
    // No traits field: a remote-looking type may lose its session, nothing else is assumed.
    EXPECT_EQ(channel.traits(), MCPH_TRAIT_SESSION_CAN_EXPIRE);
    channel.start();
    mcph::transport::MessageFacts facts;  // a 1.0 plugin has no send_ex: facts are dropped, send is used
    facts.id = "1";
    facts.method = "ping";
    channel.send(R"({"jsonrpc":"2.0","id":1,"method":"ping"})", &facts);
    ASSERT_TRUE(listener.wait(1, false));
    EXPECT_EQ(listener.messages[0], R"({"jsonrpc":"2.0","id":1,"result":{}})");
    channel.cancel("1");  // no cancel in a 1.0 vtable: a no-op, not a crash
    channel.send(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"crash"}})");
    ASSERT_TRUE(listener.wait(1, true));
    EXPECT_EQ(listener.reason, MCPH_CLOSE_ERROR);
    EXPECT_EQ(listener.failure.message, "abi10 server crashed");
    EXPECT_EQ(listener.failure.stderr_tail, "line one\nline two");
    EXPECT_EQ(listener.failure.category, MCPH_FAILURE_OTHER) << "a 1.0 plugin says nothing typed";
    EXPECT_EQ(listener.typed_failures, 0);
    EXPECT_EQ(listener.request_failures, 0);
    EXPECT_EQ(listener.closes, 1);
    channel.close();
}

// ABI 1.3 pump: a 1.0 vtable has no pump field inside its struct_size, so a waiting caller is never
// sent into the plugin; it sleeps on its result as before while the plugin's thread delivers.
TEST_F(Abi10ChannelTest, APluginWithoutPumpIsNeverPumpedAndStillDelivers) {
    Abi10Listener listener;
    TransportChannel channel(plugin, services.table(), R"({"type":"abi10","name":"old"})", &listener);
    channel.start();
    EXPECT_FALSE(channel.enter_pump()) << "a 1.0 plugin has no pump entry";
    channel.send(R"({"jsonrpc":"2.0","id":1,"method":"ping"})");
    ASSERT_TRUE(listener.wait(1, false));
    channel.close();
}

}  // namespace
