// Streamable HTTP transport on /mcp: Boost.Beast, one thread, HTTP/1.1 keep-alive.
//
//   POST  request       → 200 application/json (or text/event-stream when the request produces
//                         progress notifications and the client accepts SSE)
//   POST  notification/response → 202, no body
//   POST  initialize    → 200 + a fresh Mcp-Session-Id; later requests must carry it
//                         (missing → 400, unknown → 404)
//   GET   → 405 (no server-initiated stream); with --get-stream and a known session id, 200
//           text/event-stream held open and silent until the client closes it (a client's
//           connection beside its calls, as servers with server-initiated messages keep one)
//   DELETE + session id → 200, session forgotten
//   POST  2026-07-28 message (params._meta names the revision) → served on its own by a fresh
//         handler, no session (the modern era is stateless); server/discover answers the era probe
//
// An Origin header, when present, must be a loopback origin (DNS-rebinding guard; 403 otherwise).
#include "mcp_handler.hpp"
#include "servers.hpp"

#include <sys/random.h>

#include <utility>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

namespace hello {

namespace {

constexpr int kHeaderMismatch = -32020;  // schema 2026-07-28 HEADER_MISMATCH

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using error_code = boost::system::error_code;

constexpr std::uint64_t kBodyLimit = std::uint64_t(256) << 20;

int fail(const error_code& ec, const char* what) {
    std::fprintf(stderr, "hello-server: %s: %s\n", what, ec.message().c_str());
    return 1;
}

std::string lower(boost::string_view s) {
    std::string out(s.data(), s.size());
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

bool accepts_json(const std::string& accept) {
    return accept.find("application/json") != std::string::npos || accept.find("application/*") != std::string::npos ||
           accept.find("*/*") != std::string::npos;
}

bool accepts_sse(const std::string& accept) { return accept.find("text/event-stream") != std::string::npos; }

// http(s)://localhost, 127.x.x.x or [::1], any port.
bool is_loopback_origin(boost::string_view origin) {
    std::string o = lower(origin);
    std::string_view rest(o);
    if (rest.rfind("http://", 0) == 0)
        rest.remove_prefix(7);
    else if (rest.rfind("https://", 0) == 0)
        rest.remove_prefix(8);
    else
        return false;
    std::string_view host = rest.substr(0, rest[0] == '[' ? rest.find(']') + 1 : rest.find_first_of(":/"));
    return host == "localhost" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

std::string new_session_id() {
    unsigned char bytes[16];
    size_t got = 0;
    while (got < sizeof bytes) {
        ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
        if (n > 0) got += static_cast<size_t>(n);
    }
    static const char hex[] = "0123456789abcdef";
    std::string id;
    for (unsigned char b : bytes) {
        id += hex[b >> 4];
        id += hex[b & 15];
    }
    return id;
}

struct ServerState {
    const ServerOptions& options;
    std::unordered_map<std::string, std::unique_ptr<McpHandler>> sessions;
};

// One keep-alive connection: read a request, answer it, repeat.
class Connection : public std::enable_shared_from_this<Connection> {
public:
    Connection(tcp::socket socket, ServerState& state)
        : socket_(std::move(socket)), timer_(socket_.get_executor()), state_(state) {}

    void start() { read(); }

private:
    void read() {
        parser_.emplace();
        parser_->body_limit(kBodyLimit);
        http::async_read(socket_, buffer_, *parser_, [self = shared_from_this()](error_code ec, std::size_t) {
            self->on_read(ec);
        });
    }

    void on_read(error_code ec) {
        if (ec == http::error::end_of_stream) return shutdown();
        if (ec) return;  // peer gone or a malformed request: drop the connection
        http::request<http::string_body> req = parser_->release();
        keep_alive_ = req.keep_alive();
        route(req);
    }

    void route(http::request<http::string_body>& req) {
        boost::string_view target = req.target();
        boost::string_view path = target.substr(0, target.find('?'));
        if (path != "/mcp") return send_error(http::status::not_found, "Not Found: the MCP endpoint is /mcp");
        auto origin = req.find(http::field::origin);
        if (origin != req.end() && !is_loopback_origin(origin->value()))
            return send_error(http::status::forbidden, "Forbidden: Origin is not a loopback origin");
        switch (req.method()) {
        case http::verb::post:
            return post(req);
        case http::verb::delete_:
            return remove(req);
        case http::verb::get:
            if (state_.options.get_stream) return listen(req);
            [[fallthrough]];
        default:
            res_ = {};
            res_.set(http::field::allow, "POST, DELETE");
            return send_error(http::status::method_not_allowed, "Method Not Allowed: this server offers no SSE stream");
        }
    }

    void post(http::request<http::string_body>& req) {
        const std::string accept = lower(req[http::field::accept]);
        if (!accepts_json(accept))
            return send_error(http::status::not_acceptable, "Not Acceptable: Accept must include application/json");
        if (lower(req[http::field::content_type]).rfind("application/json", 0) != 0)
            return send_error(http::status::unsupported_media_type, "Unsupported Media Type: Content-Type must be application/json");
        boost::string_view version = req["MCP-Protocol-Version"];
        if (!version.empty() && !is_supported_protocol_version(std::string_view(version.data(), version.size())))
            return send_error(http::status::bad_request, "Bad Request: unsupported MCP-Protocol-Version");

        McpHandler::Message msg = McpHandler::parse(req.body());
        if (msg.kind == McpHandler::Kind::Invalid) {
            res_ = {};
            return send_json(http::status::bad_request, error_message(nullptr, msg.error_code, msg.error));
        }
        // 2026-07-28: the header, when sent, must agree with the body (HEADER_MISMATCH, 400).
        if (msg.modern() && !version.empty() && std::string_view(version.data(), version.size()) != msg.envelope_version) {
            res_ = {};
            return send_json(http::status::bad_request,
                             error_message(msg.id, kHeaderMismatch, "Header mismatch: MCP-Protocol-Version does not match _meta"));
        }
        if (msg.modern() && msg.envelope_version != kModernVersion) {
            res_ = {};
            return send_json(http::status::bad_request, unsupported_version_message(msg.id, msg.envelope_version));
        }

        if (msg.kind == McpHandler::Kind::Request && msg.method == "initialize") {
            auto handler = std::make_unique<McpHandler>(state_.options);
            Reply reply = handler->handle(msg);
            res_ = {};
            if (!handler->protocol_version().empty()) {
                std::string id = new_session_id();
                res_.set("Mcp-Session-Id", id);
                state_.sessions.emplace(std::move(id), std::move(handler));
            }
            return send_json(http::status::ok, std::move(*reply.response));
        }

        Reply reply;
        if (msg.modern()) {
            McpHandler stateless(state_.options);
            reply = stateless.handle(msg);
        } else {
            auto session = session_of(req);
            if (session == state_.sessions.end()) return;
            reply = session->second->handle(msg);
        }
        res_ = {};
        if (msg.kind != McpHandler::Kind::Request || !reply.response) return send_empty(http::status::accepted);
        if (!reply.deferred()) return send_json(http::status::ok, std::move(*reply.response));
        pending_ = std::move(reply);
        step_ = 0;
        if (!pending_.steps.empty() && accepts_sse(accept)) return stream_start();
        // No SSE: the notifications are dropped, the response still waits as long as the work takes.
        auto total = pending_.response_delay;
        for (auto& s : pending_.steps) total += s.delay;
        timer_.expires_after(total);
        timer_.async_wait([self = shared_from_this()](error_code ec) {
            if (ec) return;
            self->send_json(http::status::ok, std::move(*self->pending_.response));
        });
    }

    // The stream's head, then nothing: reading on waits for the client's close (end of stream or
    // an error), which ends this connection.
    void listen(http::request<http::string_body>& req) {
        if (session_of(req) == state_.sessions.end()) return;
        write_sse_head([self = shared_from_this()](error_code ec, std::size_t) {
            if (ec) return;
            const bool verbose = self->state_.options.verbose;
            if (verbose) std::fprintf(stderr, "hello-server: GET stream open\n");
            self->socket_.async_wait(tcp::socket::wait_read, [self, verbose](error_code) {  // held until the close
                if (verbose) std::fprintf(stderr, "hello-server: GET stream closed by the client\n");
            });
        });
    }

    void remove(http::request<http::string_body>& req) {
        auto session = session_of(req);
        if (session == state_.sessions.end()) return;
        state_.sessions.erase(session);
        res_ = {};
        send_empty(http::status::ok);
    }

    // The request's session (Mcp-Session-Id); end() after answering 400 (no header) or 404
    // (unknown id) itself.
    std::unordered_map<std::string, std::unique_ptr<McpHandler>>::iterator session_of(
        const http::request<http::string_body>& req) {
        boost::string_view sid = req["Mcp-Session-Id"];
        if (sid.empty()) {
            send_error(http::status::bad_request, "Bad Request: Mcp-Session-Id header is required");
            return state_.sessions.end();
        }
        auto session = state_.sessions.find(std::string(sid.data(), sid.size()));
        if (session == state_.sessions.end()) send_error(http::status::not_found, "Session not found");
        return session;
    }

    // ---- plain responses ------------------------------------------------------------------------
    // (res_ is reset by the caller when it set headers first; send_error resets it unless an
    // Allow header is already there.)
    void send_error(http::status status, const std::string& message) {
        if (res_.find(http::field::allow) == res_.end()) res_ = {};
        send_json(status, error_message(nullptr, -32000, message));
    }

    void send_json(http::status status, std::string body) {
        res_.result(status);
        res_.version(11);
        res_.set(http::field::content_type, "application/json");
        res_.body() = std::move(body);
        write();
    }

    void send_empty(http::status status) {
        res_.result(status);
        res_.version(11);
        res_.body().clear();
        write();
    }

    void write() {
        res_.keep_alive(keep_alive_);
        res_.prepare_payload();
        http::async_write(socket_, res_, [self = shared_from_this()](error_code ec, std::size_t) {
            if (ec) return;
            self->res_ = {};
            if (!self->keep_alive_) return self->shutdown();
            self->read();
        });
    }

    // ---- SSE response: progress notifications as they fall due, then the response ----------------
    void stream_start() {
        write_sse_head([self = shared_from_this()](error_code ec, std::size_t) {
            if (ec) return;
            self->stream_next();
        });
    }

    // 200 text/event-stream, chunked: the head of a streamed response and of a held GET stream.
    template <class Then>
    void write_sse_head(Then then) {
        head_ = {};
        head_.result(http::status::ok);
        head_.version(11);
        head_.set(http::field::content_type, "text/event-stream");
        head_.set(http::field::cache_control, "no-cache");
        head_.keep_alive(keep_alive_);
        head_.chunked(true);
        serializer_.emplace(head_);
        http::async_write_header(socket_, *serializer_, std::move(then));
    }

    void stream_next() {
        bool last = step_ == pending_.steps.size();
        timer_.expires_after(last ? pending_.response_delay : pending_.steps[step_].delay);
        timer_.async_wait([self = shared_from_this(), last](error_code ec) {
            if (ec) return;
            auto& p = self->pending_;
            self->event_ = "event: message\ndata: " + (last ? *p.response : p.steps[self->step_++].message) + "\n\n";
            net::async_write(self->socket_, http::make_chunk(net::buffer(self->event_)), [self, last](error_code ec, std::size_t) {
                if (ec) return;
                if (!last) return self->stream_next();
                net::async_write(self->socket_, http::make_chunk_last(), [self](error_code ec, std::size_t) {
                    if (ec) return;
                    self->serializer_.reset();
                    self->pending_ = {};
                    if (!self->keep_alive_) return self->shutdown();
                    self->read();
                });
            });
        });
    }

    void shutdown() {
        error_code ignored;
        socket_.shutdown(tcp::socket::shutdown_send, ignored);
    }

    tcp::socket socket_;
    net::steady_timer timer_;
    ServerState& state_;
    beast::flat_buffer buffer_;
    std::optional<http::request_parser<http::string_body>> parser_;
    http::response<http::string_body> res_;
    bool keep_alive_ = true;
    // SSE streaming state
    http::response<http::empty_body> head_;
    std::optional<http::response_serializer<http::empty_body>> serializer_;
    Reply pending_;
    std::size_t step_ = 0;
    std::string event_;
};

class Listener {
public:
    Listener(net::io_context& ioc, ServerState& state) : acceptor_(ioc), state_(state) {}

    int open(const tcp::endpoint& endpoint) {
        error_code ec;
        acceptor_.open(endpoint.protocol(), ec);
        if (ec) return fail(ec, "open");
        acceptor_.set_option(net::socket_base::reuse_address(true), ec);
        acceptor_.bind(endpoint, ec);
        if (ec) return fail(ec, "bind");
        acceptor_.listen(net::socket_base::max_listen_connections, ec);
        if (ec) return fail(ec, "listen");
        return 0;
    }

    std::uint16_t port() const { return acceptor_.local_endpoint().port(); }

    void accept() {
        acceptor_.async_accept([this](error_code ec, tcp::socket socket) {
            if (ec == net::error::operation_aborted) return;
            if (!ec) {
                socket.set_option(tcp::no_delay(true), ec);  // small JSON replies: no Nagle delay
                std::make_shared<Connection>(std::move(socket), state_)->start();
            }
            accept();
        });
    }

    void close() {
        error_code ignored;
        acceptor_.close(ignored);
    }

private:
    tcp::acceptor acceptor_;
    ServerState& state_;
};

}  // namespace

int run_http_server(const ServerOptions& options) {
    error_code ec;
    std::string host = options.host == "localhost" ? "127.0.0.1" : options.host;
    auto address = net::ip::make_address(host, ec);
    if (ec) return fail(ec, ("bad --host " + options.host).c_str());
    if (!address.is_loopback())
        std::fprintf(stderr, "hello-server: warning: listening on non-loopback address %s (no authentication)\n", host.c_str());

    net::io_context ioc{1};
    ServerState state{options, {}};
    Listener listener(ioc, state);
    if (int rc = listener.open(tcp::endpoint(address, options.port))) return rc;
    listener.accept();

    net::signal_set signals(ioc, SIGINT, SIGTERM);
    signals.async_wait([&](error_code, int) {
        listener.close();
        ioc.stop();
    });

    std::string shown = address.is_v6() ? "[" + host + "]" : host;
    std::printf("listening on http://%s:%u/mcp\n", shown.c_str(), static_cast<unsigned>(listener.port()));
    std::fflush(stdout);
    ioc.run();
    if (options.verbose) std::fprintf(stderr, "hello-server: stopped\n");
    return 0;
}

}  // namespace hello
