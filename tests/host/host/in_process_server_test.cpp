// type "sdk": an MCP server inside the application, reached through Host without any I/O.
#include <mcph/host.hpp>
#include <mcph/in_process_server.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace {

using mcph::Json;
using mcph::parse_json;

// A minimal server: initialize, tools/list (one tool), tools/call (echoes a text), answered on
// the calling thread or, for "later", from another thread.
class TinyServer : public mcph::InProcessServer {
public:
    std::atomic<int> closed{0};
    std::atomic<int> messages{0};

    void on_client_message(std::string_view message, const Reply& to_client) override {
        ++messages;
        Json m = parse_json(message);
        if (!m.HasMember("id") || !m.HasMember("method")) return;  // notifications
        std::string id = mcph::to_json(m["id"]);
        std::string method = m["method"].GetString();
        std::string result;
        if (method == "initialize") {
            result = R"({"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"tiny","version":"1"}})";
        } else if (method == "tools/list") {
            result = R"({"tools":[{"name":"hi","inputSchema":{"type":"object"}}]})";
        } else if (method == "tools/call") {
            bool later = m["params"].HasMember("arguments") && m["params"]["arguments"].HasMember("later");
            std::string reply = R"({"jsonrpc":"2.0","id":)" + id + R"(,"result":{"content":[{"type":"text","text":"hello"}]}})";
            if (later) {
                std::thread([to_client, reply] { to_client(reply); }).detach();
                return;
            }
            to_client(reply);
            return;
        } else {
            to_client(R"({"jsonrpc":"2.0","id":)" + id + R"(,"error":{"code":-32601,"message":"nope"}})");
            return;
        }
        to_client(R"({"jsonrpc":"2.0","id":)" + id + R"(,"result":)" + result + "}");
    }
    void on_client_closed() override { ++closed; }
};

mcph::HostOptions no_plugins() {
    mcph::HostOptions o;
    o.use_env_plugin_path = false;
    o.use_default_plugin_dir = false;
    return o;
}

TEST(InProcessServer, ConnectsListsAndCallsWithoutIo) {
    auto server = std::make_shared<TinyServer>();
    mcph::Host host(no_plugins());
    host.register_sdk_server("app", server);
    auto session = host.connect("app");
    EXPECT_EQ(session->server_info().name, "tiny");
    auto tools = host.tools();
    ASSERT_EQ(tools.size(), 1u);
    EXPECT_EQ(tools[0].mapped_name, "mcp__app__hi");
    EXPECT_EQ(host.call_tool("mcp__app__hi", parse_json("{}")).text(), "hello");
    EXPECT_EQ(host.call_tool("mcp__app__hi", parse_json(R"({"later":true})")).text(), "hello");  // from another thread
    host.close();
    EXPECT_EQ(server->closed.load(), 1);
}

TEST(InProcessServer, SdkConfigWithoutARegisteredServerFailsClearly) {
    mcph::Host host(no_plugins());
    host.add_config_json(R"({"mcpServers":{"ghost":{"type":"sdk"}}})");
    try {
        host.connect("ghost");
        FAIL();
    } catch (const mcph::Error& e) {
        EXPECT_NE(std::string(e.what()).find("register_sdk_server"), std::string::npos) << e.what();
    }
}

TEST(InProcessServer, RepliesAfterCloseAreDropped) {
    auto server = std::make_shared<TinyServer>();
    mcph::InProcessServer::Reply saved;
    struct Capturing : TinyServer {
        mcph::InProcessServer::Reply* out;
        void on_client_message(std::string_view m, const Reply& r) override {
            *out = r;
            TinyServer::on_client_message(m, r);
        }
    };
    auto capturing = std::make_shared<Capturing>();
    capturing->out = &saved;
    {
        mcph::Host host(no_plugins());
        host.register_sdk_server("app", capturing);
        host.connect("app");
    }
    ASSERT_TRUE(saved);
    saved(R"({"jsonrpc":"2.0","id":99,"result":{}})");  // must not crash or deliver anywhere
}

}  // namespace
