// The public API through the shared library, from a program with hidden visibility of its own:
// what version it runs, what a server is told, and whether mcph::Error thrown inside libmcph is
// the mcph::Error the program catches.
#include <mcph/host.hpp>
#include <mcph/in_process_server.hpp>
#include <mcph/json.hpp>
#include <mcph/version.hpp>

#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <typeinfo>

namespace {

using mcph::Json;

TEST(AbiVersion, TheLibraryReportsTheVersionItWasBuiltAs) {
    // In one build tree headers and library agree; an embedder running against another libmcph
    // sees the difference here.
    EXPECT_STREQ(mcph::version(), MCPH_VERSION_STRING);
    EXPECT_EQ(std::string(MCPH_VERSION_STRING),
              std::to_string(MCPH_VERSION_MAJOR) + "." + std::to_string(MCPH_VERSION_MINOR) + "." +
                  std::to_string(MCPH_VERSION_PATCH));
    mcph::HostOptions options;
    EXPECT_EQ(options.client_info.name, "mcph");
    EXPECT_EQ(options.client_info.version, mcph::version());
}

// Records the clientInfo of initialize and answers it: the server side of one handshake.
class ClientInfoRecorder : public mcph::InProcessServer {
public:
    void on_client_message(std::string_view message, const Reply& to_client) override {
        Json m = mcph::parse_json(message);
        if (!m.HasMember("id") || !m.HasMember("method")) return;  // notifications
        const std::string id = mcph::to_json(m["id"]);
        if (std::string(m["method"].GetString()) == "initialize") {
            {
                std::lock_guard lock(mutex_);
                client_info_ = mcph::to_json(m["params"]["clientInfo"]);
            }
            to_client(R"({"jsonrpc":"2.0","id":)" + id +
                      R"(,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"rec","version":"1"}}})");
            return;
        }
        to_client(R"({"jsonrpc":"2.0","id":)" + id + R"(,"error":{"code":-32601,"message":"not here"}})");
    }
    std::string client_info() const {
        std::lock_guard lock(mutex_);
        return client_info_;
    }

private:
    mutable std::mutex mutex_;
    std::string client_info_;
};

mcph::HostOptions without_plugins() {
    mcph::HostOptions o;
    o.use_env_plugin_path = false;
    o.use_default_plugin_dir = false;
    return o;
}

TEST(AbiVersion, ServersAreToldTheLibrarysVersion) {
    auto server = std::make_shared<ClientInfoRecorder>();
    mcph::Host host(without_plugins());
    host.register_sdk_server("app", server);
    auto session = host.connect("app");
    ASSERT_TRUE(session->connected());
    Json info = mcph::parse_json(server->client_info());
    ASSERT_TRUE(info.IsObject()) << server->client_info();
    EXPECT_EQ(std::string(info["name"].GetString()), "mcph");
    EXPECT_EQ(std::string(info["version"].GetString()), mcph::version());
    EXPECT_NE(std::string(info["version"].GetString()), "") << "never an empty or made-up version";
}

TEST(AbiErrors, ErrorThrownInTheLibraryIsCaughtAsMcphError) {
    try {
        mcph::parse_json("{\"unterminated\":", "test input");
        FAIL() << "malformed JSON must throw";
    } catch (const mcph::Error& e) {
        EXPECT_EQ(e.kind(), mcph::ErrorKind::Usage);
        EXPECT_NE(std::string(e.what()).find("test input"), std::string::npos) << e.what();
        // One typeinfo on both sides of the boundary: libmcph exports it, so the object the
        // library threw and the type this program names are the same mcph::Error.
        EXPECT_EQ(&typeid(e), &typeid(mcph::Error));
    }
}

TEST(AbiErrors, ErrorsFromTheHostCrossTheBoundaryWithTheirKind) {
    mcph::Host host(without_plugins());
    try {
        host.connect("nobody");
        FAIL() << "an unknown server must throw";
    } catch (const mcph::Error& e) {
        EXPECT_EQ(e.kind(), mcph::ErrorKind::NotFound) << e.what();
    }
}

}  // namespace
