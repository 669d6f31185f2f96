#include "fake_server.hpp"
#include "../resource_probe.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <rapidjson/document.h>

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <cctype>
#include <cstdlib>
#include <filesystem>

namespace http_test {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;

struct FakeServer::Impl {
    net::io_context io;
    tcp::acceptor acceptor{io};
    ssl::context tls{ssl::context::tls_server};
};

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

std::string to_std(boost::string_view s) { return std::string(s.data(), s.size()); }

template <class Stream>
class StreamExchange final : public Exchange {
public:
    StreamExchange(Request r, Stream& s) : Exchange(std::move(r)), s_(s) {}

    void respond(int status, const std::string& body, const Headers& headers) override {
        bhttp::response<bhttp::string_body> res{static_cast<bhttp::status>(status), 11};
        res.set(bhttp::field::connection, "close");
        for (const auto& [n, v] : headers) res.set(n, v);
        res.body() = body;
        res.prepare_payload();
        beast::error_code ec;
        bhttp::write(s_, res, ec);
        responded_ = true;
    }
    void sse_begin(const Headers& headers, int status) override {
        bhttp::response<bhttp::empty_body> res{static_cast<bhttp::status>(status), 11};
        res.set(bhttp::field::connection, "close");
        res.set(bhttp::field::content_type, "text/event-stream");
        res.set(bhttp::field::cache_control, "no-cache");
        for (const auto& [n, v] : headers) res.set(n, v);
        res.chunked(true);
        bhttp::response_serializer<bhttp::empty_body> sr{res};
        beast::error_code ec;
        bhttp::write_header(s_, sr, ec);
        responded_ = true;
    }
    bool sse_send(const std::string& raw) override {
        beast::error_code ec;
        net::write(s_, bhttp::make_chunk(net::buffer(raw)), ec);
        return !ec;
    }
    void sse_end() override {
        beast::error_code ec;
        net::write(s_, bhttp::make_chunk_last(), ec);
    }
    void cut() override {
        beast::error_code ec;
        beast::get_lowest_layer(s_).shutdown(tcp::socket::shutdown_both, ec);
        responded_ = true;
    }
    bool write_raw(const std::string& bytes) override {
        beast::error_code ec;
        net::write(s_, net::buffer(bytes), ec);
        responded_ = true;
        return !ec;
    }

private:
    Stream& s_;
};

Request to_request(const bhttp::request<bhttp::string_body>& req) {
    Request r;
    r.method = to_std(req.method_string());
    r.target = to_std(req.target());
    r.body = req.body();
    r.at = Clock::now();
    for (const auto& f : req) r.headers[lower(to_std(f.name_string()))] = to_std(f.value());
    return r;
}

}  // namespace

std::string Request::header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? std::string() : it->second;
}

void Exchange::json(const std::string& body, const Headers& headers) {
    Headers h = headers;
    h.emplace_back("Content-Type", "application/json");
    respond(200, body, h);
}

// Notified under the lock: a waiter that wakes may destroy the Signal at once (it is often a
// local of the test, the setter a server thread), so the setter must be done with cv_ before any
// waiter can return (ThreadSanitizer: pthread_cond_broadcast racing ~Signal).
void Signal::set() {
    std::lock_guard lock(mutex_);
    set_ = true;
    cv_.notify_all();
}

bool Signal::wait(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, timeout, [&] { return set_; });
}

bool Signal::is_set() {
    std::lock_guard lock(mutex_);
    return set_;
}

FakeServer::FakeServer(std::optional<Tls> tls) : impl_(std::make_unique<Impl>()), tls_(tls.has_value()) {
    if (tls) {
        impl_->tls.use_certificate_chain_file(tls->cert_file);
        impl_->tls.use_private_key_file(tls->key_file, ssl::context::pem);
    }
    tcp::endpoint ep(net::ip::make_address("127.0.0.1"), 0);
    impl_->acceptor.open(ep.protocol());
    impl_->acceptor.set_option(net::socket_base::reuse_address(true));
    impl_->acceptor.bind(ep);
    impl_->acceptor.listen();
    port_ = impl_->acceptor.local_endpoint().port();
    acceptor_thread_ = std::thread([this] { accept_loop(); });
}

FakeServer::~FakeServer() {
    stopping_.store(true);
    {
        // Wake the blocking accept() with a connection of our own.
        beast::error_code ec;
        net::io_context io;
        tcp::socket s(io);
        s.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port_), ec);
        acceptor_thread_.join();
    }
    {
        std::lock_guard lock(mutex_);
        for (int fd : live_fds_) ::shutdown(fd, SHUT_RDWR);  // unblocks reads of idle connections
    }
    for (std::thread& t : connection_threads_) t.join();
}

std::string FakeServer::url() const {
    return std::string(tls_ ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_) + "/mcp";
}

void FakeServer::on(Handler handler) {
    std::lock_guard lock(mutex_);
    handler_ = std::move(handler);
}

Handler FakeServer::handler() {
    std::lock_guard lock(mutex_);
    return handler_;
}

std::vector<Request> FakeServer::requests() {
    std::lock_guard lock(mutex_);
    return requests_;
}

std::vector<Request> FakeServer::requests(const std::string& method) {
    std::vector<Request> out;
    for (Request& r : requests())
        if (r.method == method) out.push_back(std::move(r));
    return out;
}

bool FakeServer::wait_requests(size_t count, const std::string& method, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, timeout, [&] {
        return static_cast<size_t>(std::count_if(requests_.begin(), requests_.end(), [&](const Request& r) {
                   return method.empty() || r.method == method;
               })) >= count;
    });
}

void FakeServer::record(const Request& r) {
    {
        std::lock_guard lock(mutex_);
        requests_.push_back(r);
    }
    cv_.notify_all();
}

void FakeServer::accept_loop() {
    while (!stopping_.load()) {
        beast::error_code ec;
        tcp::socket s(impl_->io);
        impl_->acceptor.accept(s, ec);
        if (ec || stopping_.load()) break;
        int fd = s.release(ec);
        std::lock_guard lock(mutex_);
        live_fds_.push_back(fd);
        connection_threads_.emplace_back([this, fd] { serve(fd); });
    }
}

namespace {

template <class Stream>
void serve_one(Stream& stream, const std::function<void(const Request&)>& record, const Handler& handler) {
    beast::flat_buffer buffer;
    // Beast's default body limit is 1 MiB: a 1 MiB argument plus its JSON-RPC frame is more.
    bhttp::request_parser<bhttp::string_body> parser;
    parser.body_limit(std::uint64_t{16} << 20);
    beast::error_code ec;
    bhttp::read(stream, buffer, parser, ec);
    if (ec) return;
    bhttp::request<bhttp::string_body> req = parser.release();
    Request r = to_request(req);
    record(r);
    StreamExchange<Stream> ex(std::move(r), stream);
    if (handler) handler(ex);
    if (!ex.responded()) ex.respond(404, "no handler for this request", {});
}

}  // namespace

void FakeServer::serve(int fd) {
    net::io_context io;
    tcp::socket socket(io, tcp::v4(), fd);
    auto rec = [this](const Request& r) { record(r); };
    Handler h = handler();
    beast::error_code ec;
    if (tls_) {
        beast::ssl_stream<tcp::socket> stream(std::move(socket), impl_->tls);
        stream.handshake(ssl::stream_base::server, ec);
        if (!ec) serve_one(stream, rec, h);
        std::lock_guard lock(mutex_);
        live_fds_.erase(std::remove(live_fds_.begin(), live_fds_.end(), fd), live_fds_.end());
        beast::get_lowest_layer(stream).shutdown(tcp::socket::shutdown_both, ec);
        beast::get_lowest_layer(stream).close(ec);
    } else {
        serve_one(socket, rec, h);
        std::lock_guard lock(mutex_);
        live_fds_.erase(std::remove(live_fds_.begin(), live_fds_.end(), fd), live_fds_.end());
        socket.shutdown(tcp::socket::shutdown_send, ec);
        socket.close(ec);
    }
}

unsigned short closed_port() { return mcph_test::closed_loopback_port(); }

TestCertificate::TestCertificate() {
    namespace fs = std::filesystem;
    std::string tmpl = (fs::temp_directory_path() / "mcph-http-tls-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) return;
    dir = tmpl;
    cert_file = dir + "/cert.pem";
    key_file = dir + "/key.pem";
    std::string cmd = "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2"
                      " -subj /CN=localhost -addext subjectAltName=DNS:localhost"
                      " -keyout '" + key_file + "' -out '" + cert_file + "' >/dev/null 2>&1";
    ok = std::system(cmd.c_str()) == 0 && fs::exists(cert_file) && fs::exists(key_file);
}

TestCertificate::~TestCertificate() {
    std::error_code ec;
    if (!dir.empty()) std::filesystem::remove_all(dir, ec);
}

Handler stream_then_answer(Signal& go, std::string event, std::function<std::string(int id)> answer,
                           std::chrono::milliseconds keep_alive) {
    return [&go, event = std::move(event), answer = std::move(answer), keep_alive](Exchange& ex) {
        if (ex.request.method == "GET") {
            ex.sse_begin();
            if (!go.wait(10s)) return ex.cut();
            ex.sse_send(event);
            // Held open until the client leaves (sse_send fails once it did).
            while (ex.sse_send(": keep-alive\n\n")) std::this_thread::sleep_for(keep_alive);
            return;
        }
        rapidjson::Document d;
        d.Parse(ex.request.body.c_str());
        if (d.HasParseError() || !d.IsObject() || !d.HasMember("id") || !d["id"].IsInt()) return ex.respond(202, "");
        ex.json(answer(d["id"].GetInt()));
    };
}

Handler silent_until(Signal& release) {
    return [&release](Exchange& ex) {
        release.wait(10s);
        ex.cut();
    };
}

}  // namespace http_test
