#include "fake_server.hpp"

#include <utility>  // before Asio: g++ 12 + C++20 + Boost 1.74 (ARCHITECTURE.md §2)

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>

#include <sys/socket.h>

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>

namespace ws_test {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

template <class Stream>
class SessionImpl final : public Session {
public:
    explicit SessionImpl(websocket::stream<Stream>& ws) : ws_(ws) {}

    std::optional<std::string> read() override {
        beast::flat_buffer buffer;
        beast::error_code ec;
        ws_.read(buffer, ec);
        if (ec) {
            // Read the reason even when ec is not `closed`: Beast reports a failed TCP teardown
            // (the client already hung up after the close handshake) instead of `closed`.
            if (ws_.reason().code != websocket::close_code::none) close_code_ = static_cast<int>(ws_.reason().code);
            return std::nullopt;
        }
        return beast::buffers_to_string(buffer.data());
    }
    void write(std::string_view text) override {
        beast::error_code ec;
        ws_.text(true);
        ws_.write(asio::buffer(text.data(), text.size()), ec);
    }
    void write_binary(std::string_view data) override {
        beast::error_code ec;
        ws_.binary(true);
        ws_.write(asio::buffer(data.data(), data.size()), ec);
        ws_.text(true);
    }
    void write_fragments(const std::vector<std::string>& parts) override {
        beast::error_code ec;
        ws_.text(true);
        for (size_t i = 0; i < parts.size() && !ec; ++i)
            ws_.write_some(i + 1 == parts.size(), asio::buffer(parts[i]), ec);
    }
    void write_huge_frame(uint64_t bytes) override {
        unsigned char head[10] = {0x81, 127};  // FIN + text, 64-bit length, unmasked (server side)
        for (int i = 0; i < 8; ++i) head[2 + i] = static_cast<unsigned char>(bytes >> (56 - 8 * i));
        beast::error_code ec;
        asio::write(ws_.next_layer(), asio::buffer(head), ec);
        const std::string chunk(size_t{64} << 10, 'x');
        for (uint64_t left = bytes; left > 0 && !ec;) {
            size_t n = static_cast<size_t>(std::min<uint64_t>(left, chunk.size()));
            asio::write(ws_.next_layer(), asio::buffer(chunk.data(), n), ec);
            left -= n;
        }
    }
    void close(int code, const std::string& reason) override {
        beast::error_code ec;
        websocket::close_reason cr(static_cast<websocket::close_code>(code), reason);
        ws_.close(cr, ec);
    }
    void drop() override {
        auto& sock = beast::get_lowest_layer(ws_);
        beast::error_code ec;
        sock.shutdown(tcp::socket::shutdown_both, ec);
        sock.close(ec);
    }
    int close_code_received() override { return close_code_; }

private:
    websocket::stream<Stream>& ws_;
    int close_code_ = -1;
};

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

}  // namespace

void Session::idle(std::chrono::milliseconds max) {
    if (wait_stop) wait_stop(max);
}

struct FakeWsServer::Impl {
    Script script;
    Options options;
    asio::io_context io;
    tcp::acceptor acceptor{io};
    std::unique_ptr<asio::ssl::context> tls;
    std::thread thread;

    std::mutex mutex;
    std::condition_variable cv;
    bool stopping = false;
    int live_fd = -1;  // the connection being served, so the destructor can unblock it
    std::vector<HandshakeInfo> handshakes;
    std::vector<int> close_codes;
    int finished = 0;
    int rejected = 0;

    bool wait_stop(std::chrono::milliseconds max) {
        std::unique_lock lock(mutex);
        return cv.wait_for(lock, max, [&] { return stopping; });
    }

    void set_live(int fd) {
        std::lock_guard lock(mutex);
        live_fd = fd;
    }

    // Reads the upgrade request; answers it (reject, ignore, or accept). True when accepted.
    template <class Stream>
    bool handshake(websocket::stream<Stream>& ws) {
        beast::flat_buffer buffer;
        http::request<http::string_body> req;
        beast::error_code ec;
        http::read(ws.next_layer(), buffer, req, ec);
        if (ec) return false;
        HandshakeInfo info;
        info.target = std::string(req.target());
        for (const auto& field : req) info.headers[lower(std::string(field.name_string()))] = std::string(field.value());
        bool reject = false;
        {
            std::lock_guard lock(mutex);
            handshakes.push_back(info);
            if (options.reject_status && rejected < options.reject_times) {
                ++rejected;
                reject = true;
            }
        }
        if (options.never_answer_handshake) {
            wait_stop(std::chrono::seconds(30));
            return false;
        }
        if (reject) {
            http::response<http::string_body> res{static_cast<http::status>(options.reject_status), req.version()};
            if (!options.www_authenticate.empty()) res.set(http::field::www_authenticate, options.www_authenticate);
            if (!options.location.empty()) res.set(http::field::location, options.location);
            res.set(http::field::content_type, "text/plain");
            res.body() = "rejected";
            res.prepare_payload();
            http::write(ws.next_layer(), res, ec);
            return false;
        }
        std::string offered(req[http::field::sec_websocket_protocol]);
        std::string selected = options.subprotocol;
        ws.set_option(websocket::stream_base::decorator([offered, selected](websocket::response_type& res) {
            if (!selected.empty() && offered.find(selected) != std::string::npos)
                res.set(http::field::sec_websocket_protocol, selected);
        }));
        ws.read_message_max(size_t{256} << 20);
        ws.accept(req, ec);
        return !ec;
    }

    template <class Stream>
    void serve(websocket::stream<Stream>& ws) {
        if (!handshake(ws)) return;
        SessionImpl<Stream> session(ws);
        session.wait_stop = [this](std::chrono::milliseconds max) { return wait_stop(max); };
        script(session);
        std::lock_guard lock(mutex);
        close_codes.push_back(session.close_code_received());
    }

    void run() {
        for (;;) {
            tcp::socket socket(io);
            beast::error_code ec;
            acceptor.accept(socket, ec);
            if (ec) return;  // the destructor shut the acceptor down
            {
                std::lock_guard lock(mutex);
                if (stopping) return;
            }
            set_live(socket.native_handle());
            try {
                if (tls) {
                    websocket::stream<beast::ssl_stream<tcp::socket>> ws(std::move(socket), *tls);
                    ws.next_layer().handshake(asio::ssl::stream_base::server, ec);
                    if (!ec) serve(ws);
                } else {
                    websocket::stream<tcp::socket> ws(std::move(socket));
                    serve(ws);
                }
            } catch (const std::exception&) {
                // a script's connection broke: next connection
            }
            set_live(-1);
            {
                std::lock_guard lock(mutex);
                ++finished;
            }
            cv.notify_all();
        }
    }
};

FakeWsServer::FakeWsServer(Script script, Options options) : impl_(std::make_unique<Impl>()) {
    impl_->script = std::move(script);
    impl_->options = std::move(options);
    if (!impl_->options.cert_file.empty()) {
        impl_->tls = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
        impl_->tls->use_certificate_chain_file(impl_->options.cert_file);
        impl_->tls->use_private_key_file(impl_->options.key_file, asio::ssl::context::pem);
    }
    tcp::endpoint ep(asio::ip::make_address("127.0.0.1"), 0);
    impl_->acceptor.open(ep.protocol());
    impl_->acceptor.set_option(tcp::acceptor::reuse_address(true));
    impl_->acceptor.bind(ep);
    impl_->acceptor.listen();
    port_ = impl_->acceptor.local_endpoint().port();
    impl_->thread = std::thread([this] { impl_->run(); });
}

FakeWsServer::~FakeWsServer() {
    {
        std::lock_guard lock(impl_->mutex);
        impl_->stopping = true;
        // shutdown(2) wakes a blocked accept()/recv() on Linux; the owning thread then closes.
        ::shutdown(impl_->acceptor.native_handle(), SHUT_RDWR);
        if (impl_->live_fd >= 0) ::shutdown(impl_->live_fd, SHUT_RDWR);
    }
    impl_->cv.notify_all();
    impl_->thread.join();
}

std::string FakeWsServer::url(const std::string& path) const {
    return std::string(impl_->tls ? "wss" : "ws") + "://127.0.0.1:" + std::to_string(port_) + path;
}

std::vector<HandshakeInfo> FakeWsServer::handshakes() {
    std::lock_guard lock(impl_->mutex);
    return impl_->handshakes;
}

int FakeWsServer::sessions_finished() {
    std::lock_guard lock(impl_->mutex);
    return impl_->finished;
}

bool FakeWsServer::wait_sessions_finished(int n, std::chrono::milliseconds timeout) {
    std::unique_lock lock(impl_->mutex);
    return impl_->cv.wait_for(lock, timeout, [&] { return impl_->finished >= n; });
}

std::vector<int> FakeWsServer::close_codes() {
    std::lock_guard lock(impl_->mutex);
    return impl_->close_codes;
}

TestCertificate::TestCertificate() {
    namespace fs = std::filesystem;
    std::string tmpl = (fs::temp_directory_path() / "mcph-ws-tls-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) return;
    dir = tmpl;
    cert_file = dir + "/cert.pem";
    key_file = dir + "/key.pem";
    std::string cmd = "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost"
                      " -addext subjectAltName=DNS:localhost -keyout '" +
                      key_file + "' -out '" + cert_file + "' >/dev/null 2>&1";
    ok = std::system(cmd.c_str()) == 0 && fs::exists(cert_file) && fs::exists(key_file);
}

TestCertificate::~TestCertificate() {
    std::error_code ec;
    if (!dir.empty()) std::filesystem::remove_all(dir, ec);
}

}  // namespace ws_test
