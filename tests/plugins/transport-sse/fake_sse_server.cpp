#include "fake_sse_server.hpp"
#include "../resource_probe.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <cctype>

namespace sse_test {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace net = boost::asio;
using tcp = boost::asio::ip::tcp;

struct FakeSseServer::Impl {
    net::io_context io;
    tcp::acceptor acceptor{io};
};

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

std::string to_std(boost::string_view s) { return std::string(s.data(), s.size()); }

Request to_request(const bhttp::request<bhttp::string_body>& req) {
    Request r;
    r.method = to_std(req.method_string());
    r.target = to_std(req.target());
    r.body = req.body();
    for (const auto& f : req) r.headers[lower(to_std(f.name_string()))] = to_std(f.value());
    return r;
}

template <class Stream>
void respond(Stream& s, int status, const std::string& content_type, const std::string& body,
             const std::vector<std::pair<std::string, std::string>>& extra = {}) {
    bhttp::response<bhttp::string_body> res{static_cast<bhttp::status>(status), 11};
    res.set(bhttp::field::connection, "close");
    if (!content_type.empty()) res.set(bhttp::field::content_type, content_type);
    for (const auto& [n, v] : extra) res.set(n, v);
    res.body() = body;
    res.prepare_payload();
    beast::error_code ec;
    bhttp::write(s, res, ec);
}

// True when the peer closed its side (readable with nothing to read) or the socket failed.
bool peer_gone(int fd, int timeout_ms) {
    pollfd p{fd, POLLIN | POLLRDHUP, 0};
    if (::poll(&p, 1, timeout_ms) <= 0) return false;
    if (p.revents & (POLLERR | POLLHUP | POLLRDHUP)) return true;
    char c;
    return ::recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

}  // namespace

std::string Request::header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? std::string() : it->second;
}

FakeSseServer::FakeSseServer() : impl_(std::make_unique<Impl>()) {
    tcp::endpoint ep(net::ip::make_address("127.0.0.1"), 0);
    impl_->acceptor.open(ep.protocol());
    impl_->acceptor.set_option(net::socket_base::reuse_address(true));
    impl_->acceptor.bind(ep);
    impl_->acceptor.listen();
    port_ = impl_->acceptor.local_endpoint().port();
    acceptor_thread_ = std::thread([this] { accept_loop(); });
}

FakeSseServer::~FakeSseServer() {
    stopping_.store(true);
    cv_.notify_all();
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

std::string FakeSseServer::origin() const { return "http://127.0.0.1:" + std::to_string(port_); }
std::string FakeSseServer::sse_url() const { return origin() + "/sse"; }

void FakeSseServer::script(const std::function<void(Script&)>& edit) {
    std::lock_guard lock(mutex_);
    edit(script_);
}

void FakeSseServer::enqueue(Command c) {
    {
        std::lock_guard lock(mutex_);
        commands_.push_back(std::move(c));
    }
    cv_.notify_all();
}

void FakeSseServer::push(const std::string& raw) { enqueue(Command{Command::Kind::Send, raw}); }
void FakeSseServer::push_message(const std::string& json) { push("event: message\ndata: " + json + "\n\n"); }
void FakeSseServer::end_stream() { enqueue(Command{Command::Kind::End, {}}); }
void FakeSseServer::cut_stream() { enqueue(Command{Command::Kind::Cut, {}}); }

bool FakeSseServer::wait_stream_open(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, timeout, [&] { return open_streams_ > 0; });
}

bool FakeSseServer::wait_stream_closed(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, timeout, [&] { return streams_opened_ > 0 && open_streams_ == 0; });
}

std::vector<std::string> FakeSseServer::post_events() {
    std::lock_guard lock(mutex_);
    return post_events_;
}

std::vector<Request> FakeSseServer::requests(const std::string& method) {
    std::lock_guard lock(mutex_);
    std::vector<Request> out;
    for (const Request& r : requests_)
        if (method.empty() || r.method == method) out.push_back(r);
    return out;
}

bool FakeSseServer::wait_requests(size_t count, const std::string& method, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, timeout, [&] {
        return static_cast<size_t>(std::count_if(requests_.begin(), requests_.end(), [&](const Request& r) {
                   return method.empty() || r.method == method;
               })) >= count;
    });
}

void FakeSseServer::accept_loop() {
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

void FakeSseServer::serve(int fd) {
    net::io_context io;
    tcp::socket socket(io, tcp::v4(), fd);
    beast::flat_buffer buffer;
    bhttp::request<bhttp::string_body> req;
    beast::error_code ec;
    bhttp::read(socket, buffer, req, ec);
    if (!ec) {
        Request r = to_request(req);
        {
            std::lock_guard lock(mutex_);
            requests_.push_back(r);
            if (r.method == "POST") post_events_.push_back("arrived " + r.body);
        }
        cv_.notify_all();
        handle(socket, r);
    }
    {
        std::lock_guard lock(mutex_);
        live_fds_.erase(std::remove(live_fds_.begin(), live_fds_.end(), fd), live_fds_.end());
    }
    socket.shutdown(tcp::socket::shutdown_send, ec);
    socket.close(ec);
}

template <class Stream>
void FakeSseServer::handle(Stream& stream, const Request& r) {
    Script script;
    bool unauthorized = false;
    bool nonce_demand = false;
    {
        std::lock_guard lock(mutex_);
        script = script_;
        if (r.method == "GET") unauthorized = gets_seen_++ < script.unauthorized_gets;
        if (r.method == "POST") {
            const int n = posts_seen_++;
            unauthorized = n < script.unauthorized_posts;
            nonce_demand = !unauthorized && n < script.unauthorized_posts + script.nonce_demands;
        }
    }
    if (nonce_demand)
        return respond(stream, 401, "text/plain", "nonce required",
                       {{"WWW-Authenticate", "DPoP error=\"use_dpop_nonce\""},
                        {"DPoP-Nonce", "n-" + std::to_string(posts_seen_)}});
    if (unauthorized)
        return respond(stream, 401, "text/plain", "unauthorized",
                       {{"WWW-Authenticate", "Bearer resource_metadata=\"" + origin() + "/.well-known/x\""}});
    if (r.method == "GET") {
        if (script.get_status != 200 || script.get_content_type != "text/event-stream")
            return respond(stream, script.get_status, script.get_content_type, script.get_body);
        return run_stream(stream, script);
    }
    if (r.method == "POST") {
        if (script.post_delay.count() > 0 && (script.delay_only_body.empty() || r.body == script.delay_only_body)) {
            auto until = Clock::now() + script.post_delay;
            while (Clock::now() < until && !stopping_.load()) std::this_thread::sleep_for(10ms);
        }
        if (script.echo && script.post_status >= 200 && script.post_status < 300) echo(r);
        respond(stream, script.post_status, "text/plain", script.post_body);
        std::lock_guard lock(mutex_);
        post_events_.push_back("answered " + r.body);
        return;
    }
    respond(stream, 405, "text/plain", "method not allowed");
}

template <class Stream>
void FakeSseServer::run_stream(Stream& stream, const Script& script) {
    bhttp::response<bhttp::empty_body> res{bhttp::status::ok, 11};
    res.set(bhttp::field::connection, "close");
    res.set(bhttp::field::content_type, "text/event-stream");
    res.set(bhttp::field::cache_control, "no-cache");
    res.chunked(true);
    bhttp::response_serializer<bhttp::empty_body> sr{res};
    beast::error_code ec;
    bhttp::write_header(stream, sr, ec);
    if (ec) return;
    {
        std::lock_guard lock(mutex_);
        ++open_streams_;
        ++streams_opened_;
    }
    cv_.notify_all();

    auto send = [&](const std::string& raw) {
        net::write(stream, bhttp::make_chunk(net::buffer(raw)), ec);
        return !ec;
    };
    bool ok = true;
    for (const std::string& chunk : script.prelude) ok = ok && send(chunk);
    if (ok && script.end_after_prelude) {
        net::write(stream, bhttp::make_chunk_last(), ec);
        ok = false;
    }
    if (ok && script.endpoint) ok = send("event: endpoint\ndata: " + *script.endpoint + "\n\n");
    int fd = stream.native_handle();
    while (ok && !stopping_.load()) {
        std::optional<Command> c;
        {
            std::unique_lock lock(mutex_);
            cv_.wait_for(lock, 20ms, [&] { return !commands_.empty() || stopping_.load(); });
            if (!commands_.empty()) {
                c = std::move(commands_.front());
                commands_.pop_front();
            }
        }
        if (!c) {
            if (peer_gone(fd, 0)) break;
            continue;
        }
        switch (c->kind) {
            case Command::Kind::Send: ok = send(c->raw); break;
            case Command::Kind::End:
                net::write(stream, bhttp::make_chunk_last(), ec);
                ok = false;
                break;
            case Command::Kind::Cut: {
                beast::error_code ignored;
                stream.shutdown(tcp::socket::shutdown_both, ignored);
                ok = false;
                break;
            }
        }
    }
    {
        std::lock_guard lock(mutex_);
        --open_streams_;
    }
    cv_.notify_all();
}

// Like a real server: each request POSTed is answered on the event stream.
void FakeSseServer::echo(const Request& r) {
    rapidjson::Document d;
    d.Parse(r.body.c_str());
    if (d.HasParseError() || !d.IsObject() || !d.HasMember("id") || !d.HasMember("method")) return;
    rapidjson::StringBuffer b;
    rapidjson::Writer<rapidjson::StringBuffer> w(b);
    w.StartObject();
    w.Key("jsonrpc");
    w.String("2.0");
    w.Key("id");
    d["id"].Accept(w);
    w.Key("result");
    w.StartObject();
    w.Key("echo");
    d["method"].Accept(w);
    w.EndObject();
    w.EndObject();
    push_message(b.GetString());
}

unsigned short free_port() {
    net::io_context io;
    tcp::acceptor a(io, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
    unsigned short port = a.local_endpoint().port();
    a.close();
    return port;
}

unsigned short closed_port() { return mcph_test::closed_loopback_port(); }

}  // namespace sse_test
