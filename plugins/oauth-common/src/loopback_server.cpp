#include "loopback_server.hpp"

#include "errors.hpp"
#include "url.hpp"

#include <utility>  // before Asio (ARCHITECTURE.md §2, g++ 12 + C++20)

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>

#include <cerrno>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include <sys/socket.h>
#include <unistd.h>

namespace mcph::oauth {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

const char* kDonePage =
    "<!doctype html><html><head><meta charset=\"utf-8\"><title>mcph</title></head><body>"
    "<p>Authorization complete. You can close this window.</p></body></html>";

}  // namespace

struct LoopbackServer::Impl {
    // One browser connection. A member type, not one of the anonymous namespace: Impl's lambdas
    // capture it, and a type with external linkage must not hold one with internal linkage.
    struct Session {
        explicit Session(tcp::socket s) : stream(std::move(s)) {}
        beast::tcp_stream stream;
        beast::flat_buffer buffer;
        http::request<http::string_body> request;
        http::response<http::string_body> response;
    };

    asio::io_context io;
    tcp::acceptor acceptor{io};
    std::string path;
    std::string expected_state;
    std::thread thread;
    bool done = false;  // only touched on the io thread
    // The outcome, handed from the io thread to wait(); a cancel wakes wait() too (a condition
    // variable rather than a future, which cannot be woken by anything but its promise).
    std::mutex mu;
    std::condition_variable cv;
    std::optional<CallbackResult> result;
    std::exception_ptr failure;
    bool cancelled = false;

    void finish(std::optional<CallbackResult> r, std::exception_ptr e) {
        {
            std::lock_guard<std::mutex> g(mu);
            result = std::move(r);
            failure = std::move(e);
        }
        cv.notify_all();
    }
    uint16_t bound_port = 0;

    // Asio's accept() does not ask for close-on-exec, so a browser (or any program) started
    // meanwhile would inherit the connection: wait for readiness, then accept4 with
    // SOCK_CLOEXEC ourselves and hand the descriptor to Asio.
    void accept() {
        acceptor.async_wait(tcp::acceptor::wait_read, [this](beast::error_code ec) {
            if (ec || done) return;
            int fd = ::accept4(acceptor.native_handle(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
            if (fd >= 0) {
                tcp::socket socket(io);
                beast::error_code aec;
                socket.assign(tcp::v4(), fd, aec);
                if (aec) ::close(fd);
                else serve(std::move(socket));
            } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED) {
                return;  // the listener is broken: wait() reports the timeout
            }
            accept();
        });
    }

    void serve(tcp::socket socket) {
        auto s = std::make_shared<Session>(std::move(socket));
        s->stream.expires_after(std::chrono::seconds(30));
        http::async_read(s->stream, s->buffer, s->request, [this, s](beast::error_code rec, size_t) { on_request(s, rec); });
    }

    void reply(const std::shared_ptr<Session>& s, http::status status, std::string body) {
        s->response.result(status);
        s->response.version(11);
        s->response.set(http::field::content_type, "text/html; charset=utf-8");
        s->response.set(http::field::cache_control, "no-store");
        s->response.set(http::field::connection, "close");
        s->response.body() = std::move(body);
        s->response.prepare_payload();
        http::async_write(s->stream, s->response, [s](beast::error_code, size_t) {
            beast::error_code ignored;
            s->stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
        });
    }

    void on_request(const std::shared_ptr<Session>& s, beast::error_code ec) {
        if (ec || done) return;
        std::string target(s->request.target());
        size_t q = target.find('?');
        std::string req_path = target.substr(0, q);
        if (s->request.method() != http::verb::get || req_path != path) {
            reply(s, http::status::not_found, "<p>Not found.</p>");  // e.g. /favicon.ico: keep waiting
            return;
        }
        auto params = parse_query(q == std::string::npos ? std::string() : target.substr(q + 1));
        CallbackResult r;
        r.code = params["code"];
        r.state = params["state"];
        r.iss_present = params.count("iss") != 0;
        r.iss = params["iss"];
        r.error = params["error"];
        r.error_description = params["error_description"];
        done = true;
        beast::error_code ignored;
        acceptor.close(ignored);  // one use: no further connections
        if (r.state != expected_state) {
            // Also covers a replayed callback: the state is consumed by the first one.
            reply(s, http::status::bad_request, "<p>Authorization refused: the state parameter does not match.</p>");
            finish(std::nullopt, std::make_exception_ptr(OAuthError(
                FailureKind::state_mismatch, "the authorization callback carried a wrong or reused state; refused")));
            return;
        }
        if (!r.error.empty()) reply(s, http::status::ok, "<p>Authorization was not granted. You can close this window.</p>");
        else reply(s, http::status::ok, kDonePage);
        finish(std::move(r), nullptr);
    }
};

LoopbackServer::LoopbackServer(uint16_t port, std::string path) : impl_(std::make_unique<Impl>()) {
    impl_->path = std::move(path);
    beast::error_code ec;
    tcp::endpoint ep(asio::ip::make_address_v4("127.0.0.1"), port);
    // Close-on-exec from the start (not a later fcntl another thread's fork could race): the
    // listener must not outlive this object in a browser's children, or a fixed callbackPort stays
    // bound and the next sign-in cannot listen.
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) ec.assign(errno, boost::system::system_category());
    else impl_->acceptor.assign(ep.protocol(), fd, ec);
    if (ec && fd >= 0 && !impl_->acceptor.is_open()) ::close(fd);
    if (!ec) impl_->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) impl_->acceptor.bind(ep, ec);
    if (!ec) impl_->acceptor.listen(asio::socket_base::max_listen_connections, ec);
    if (!ec) impl_->bound_port = impl_->acceptor.local_endpoint(ec).port();
    if (ec)
        throw OAuthError(FailureKind::config_invalid,
                         "cannot listen for the authorization callback on 127.0.0.1:" + std::to_string(port) + ": " +
                             ec.message());
}

LoopbackServer::~LoopbackServer() {
    impl_->io.stop();
    if (impl_->thread.joinable()) impl_->thread.join();
    beast::error_code ignored;
    impl_->acceptor.close(ignored);
}

uint16_t LoopbackServer::port() const { return impl_->bound_port; }

std::string LoopbackServer::redirect_uri() const {
    return "http://127.0.0.1:" + std::to_string(port()) + impl_->path;
}

void LoopbackServer::start(const std::string& expected_state) {
    impl_->expected_state = expected_state;
    impl_->accept();
    impl_->thread = std::thread([this] {
        // Keep running after the callback until the destructor stops us, so the response to the
        // browser is fully written.
        auto guard = asio::make_work_guard(impl_->io);
        impl_->io.run();
    });
}

CallbackResult LoopbackServer::wait(std::chrono::milliseconds timeout, const CancelScope& cancel) {
    Impl& m = *impl_;
    Cancellation::Wake wake(cancel.cancellation, cancel.started, [&m] {
        {
            std::lock_guard<std::mutex> g(m.mu);
            m.cancelled = true;
        }
        m.cv.notify_all();
    });
    std::unique_lock<std::mutex> lk(m.mu);
    const bool arrived = m.cv.wait_for(lk, timeout, [&m] { return m.result || m.failure || m.cancelled; });
    if (m.failure) std::rethrow_exception(m.failure);
    if (m.result) return *m.result;  // a callback that beat the cancel is still used
    if (arrived)
        throw OAuthError(FailureKind::user_cancelled, "the sign-in was cancelled while waiting for the browser");
    throw OAuthError(FailureKind::callback_timeout, "the browser step did not complete within " +
                                                        std::to_string(timeout.count() / 1000) + " s (no callback on " +
                                                        redirect_uri() + ")");
}

}  // namespace mcph::oauth
