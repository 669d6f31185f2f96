// Attacks on the WebSocket transport through the real host (issue #10 items 1 and 6): a hostile
// WebSocket server (Boost.Beast, plain TCP, in this process) answers `initialize` with one text
// frame twice maxMessageBytes long — which used to corrupt libwebsockets' heap (SIGABRT / SIGSEGV
// in 11 of 11 runs) — or never completes the upgrade. Each connect must end in a clear error
// naming the bound, within it. (The plugin's own tests also run under valgrind: ctest -L valgrind.)
#include "test_support.hpp"

#include <utility>  // before Asio: g++ 12 + C++20 + Boost 1.74 (ARCHITECTURE.md §2)

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>

#include <gtest/gtest.h>

#include <sys/socket.h>

#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include "contains.hpp"

namespace mcph::test {
namespace {

using namespace std::chrono_literals;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;


// Accepts connections one after another; each runs the script (after the upgrade, unless
// `never_upgrade`, in which case the request is read and never answered).
class HostileWsServer {
public:
    using Script = std::function<void(websocket::stream<tcp::socket>&)>;

    HostileWsServer(Script script, bool never_upgrade = false) : script_(std::move(script)), silent_(never_upgrade) {
        tcp::endpoint ep(asio::ip::make_address("127.0.0.1"), 0);
        acceptor_.open(ep.protocol());
        acceptor_.set_option(tcp::acceptor::reuse_address(true));
        acceptor_.bind(ep);
        acceptor_.listen();
        port_ = acceptor_.local_endpoint().port();
        thread_ = std::thread([this] { run(); });
    }
    ~HostileWsServer() {
        stop_ = true;
        ::shutdown(acceptor_.native_handle(), SHUT_RDWR);  // wakes accept()
        int live = live_.load();
        if (live >= 0) ::shutdown(live, SHUT_RDWR);
        thread_.join();
    }
    std::string url() const { return "ws://127.0.0.1:" + std::to_string(port_) + "/mcp"; }

    // One unfragmented text frame of `bytes` bytes, from a reused 64 KiB buffer.
    static void write_huge_frame(websocket::stream<tcp::socket>& ws, uint64_t bytes) {
        unsigned char head[10] = {0x81, 127};
        for (int i = 0; i < 8; ++i) head[2 + i] = static_cast<unsigned char>(bytes >> (56 - 8 * i));
        beast::error_code ec;
        asio::write(ws.next_layer(), asio::buffer(head), ec);
        const std::string chunk(size_t{64} << 10, 'x');
        for (uint64_t left = bytes; left > 0 && !ec;) {
            size_t n = static_cast<size_t>(std::min<uint64_t>(left, chunk.size()));
            asio::write(ws.next_layer(), asio::buffer(chunk.data(), n), ec);
            left -= n;
        }
    }

private:
    void run() {
        while (!stop_) {
            tcp::socket socket(io_);
            beast::error_code ec;
            acceptor_.accept(socket, ec);
            if (ec || stop_) return;
            live_ = socket.native_handle();
            websocket::stream<tcp::socket> ws(std::move(socket));
            if (silent_) {
                char buf[4096];
                while (!stop_ && ws.next_layer().read_some(asio::buffer(buf), ec) > 0 && !ec) {
                }
            } else {
                ws.set_option(websocket::stream_base::decorator([](websocket::response_type& res) {
                    res.set(beast::http::field::sec_websocket_protocol, "mcp");
                }));
                ws.accept(ec);
                if (!ec) {
                    try {
                        script_(ws);
                    } catch (const std::exception&) {
                    }
                }
            }
            live_ = -1;
        }
    }

    Script script_;
    bool silent_;
    asio::io_context io_;
    tcp::acceptor acceptor_{io_};
    int port_ = 0;
    std::atomic<bool> stop_{false};
    std::atomic<int> live_{-1};
    std::thread thread_;
};

class TransportWsAttack : public ::testing::Test {
protected:
    std::string connect_error(const std::string& url, std::string_view extra) {
        return failed_connect(options, "hostile", remote_config("ws", url, extra)).what();
    }
    LogCapture logs;
    HostOptions options = test_options(logs);
};

TEST_F(TransportWsAttack, FrameTwiceTheLimitAnsweringInitializeIsAClearErrorNotACrash) {
    HostileWsServer server([](websocket::stream<tcp::socket>& ws) {
        beast::flat_buffer request;
        beast::error_code ec;
        ws.read(request, ec);  // initialize
        if (ec) return;
        HostileWsServer::write_huge_frame(ws, 2 * 1000 * 1000);
        ws.read(request, ec);  // the client's close frame
    });
    for (int run = 0; run < 3; ++run) {  // the corruption showed on every run; three to be sure
        SCOPED_TRACE(run);
        const auto t0 = std::chrono::steady_clock::now();
        std::string error = connect_error(server.url(), R"({"maxMessageBytes":1048576})");
        EXPECT_LT(std::chrono::steady_clock::now() - t0, 20s);
        EXPECT_TRUE(contains(error, "maxMessageBytes (1048576 bytes)")) << error << "\n" << logs.dump();
    }
}

TEST_F(TransportWsAttack, UpgradeThatNeverCompletesIsCutAtConnectTimeout) {
    HostileWsServer server(nullptr, /*never_upgrade=*/true);
    const auto t0 = std::chrono::steady_clock::now();
    std::string error = connect_error(server.url(), R"({"connectTimeoutMs":1500})");
    auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
    EXPECT_LT(took, 4000ms) << error;
    EXPECT_TRUE(contains(error, "connectTimeoutMs")) << error;
}

}  // namespace
}  // namespace mcph::test
