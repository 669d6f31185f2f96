// A test auth backend ("test-token") that gets its bearer token from a token endpoint on
// loopback — the test's scripted authorization server, which may answer slowly — so the host's
// handling of a slow refresh is seen over real sockets (tests/integration/auth_async_test.cpp).
//   {"backend":"test-token","tokenUrl":"http://127.0.0.1:<port>/token","signIn":false}
// headers_for: the token at hand (the non-blocking fast path), else fetched (blocking).
// handle_challenge: fetch a fresh token (a refresh); with "signIn": open the URL through the host
// and wait for a redirect that never comes, until cancel() (a browser sign-in abandoned on close).
#include <mcph/plugin_helper.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>

namespace {

using mcph::plugin::Error;
using namespace std::chrono_literals;

std::string json_field(std::string_view json, std::string_view key) {
    const std::string quoted = "\"" + std::string(key) + "\"";
    size_t at = json.find(quoted);
    if (at == std::string_view::npos) return {};
    at = json.find(':', at + quoted.size());
    if (at == std::string_view::npos) return {};
    at = json.find_first_not_of(" \t", at + 1);
    if (at == std::string_view::npos) return {};
    if (json[at] != '"') return std::string(json.substr(at, json.find_first_of(",}", at) - at));
    const size_t end = json.find('"', at + 1);
    return std::string(json.substr(at + 1, end - at - 1));
}

class TestTokenAuth : public mcph::plugin::Auth {
public:
    explicit TestTokenAuth(const mcph::plugin::AuthContext& ctx)
        : host_(ctx.host), token_url_(json_field(ctx.config_json, "tokenUrl")),
          sign_in_(json_field(ctx.config_json, "signIn") == "true") {
        const std::string prefix = "http://127.0.0.1:";
        if (token_url_.rfind(prefix, 0) != 0) throw Error(MCPH_ERR_INVALID_ARGUMENT, "tokenUrl must be http://127.0.0.1:<port>/...");
        const size_t slash = token_url_.find('/', prefix.size());
        port_ = std::stoi(token_url_.substr(prefix.size(), slash - prefix.size()));
        path_ = slash == std::string::npos ? "/" : token_url_.substr(slash);
    }

    std::vector<std::pair<std::string, std::string>> headers() override { return headers_for({}, false); }

    std::vector<std::pair<std::string, std::string>> headers_for(const mcph::plugin::AuthRequest&, bool nonblocking) override {
        {
            std::lock_guard lock(mutex_);
            if (!token_.empty()) return {{"Authorization", "Bearer " + token_}};
        }
        if (nonblocking) throw mcph::plugin::WouldBlock();
        return {{"Authorization", "Bearer " + fetch()}};
    }

    bool handle_challenge(int, std::string_view) override {
        if (sign_in_) return wait_for_redirect();
        fetch();
        return true;
    }

    void cancel() noexcept override {
        std::lock_guard lock(mutex_);
        cancelled_ = true;
        cv_.notify_all();
    }

private:
    // Opens the "authorization URL" and waits for a redirect nobody sends: only cancel() ends it.
    bool wait_for_redirect() {
        mcph_error err = mcph::plugin::make_error();
        const std::string url = token_url_ + "?authorize";
        if (host_->open_url(host_->host_data, mcph::plugin::str(url), &err) != MCPH_OK)
            throw Error(MCPH_ERR_AUTH, std::string("open_url: ") + err.message);
        std::unique_lock lock(mutex_);
        cancelled_ = false;
        if (!cv_.wait_for(lock, 20s, [&] { return cancelled_; })) throw Error(MCPH_ERR_TIMEOUT, "no redirect within 20 s");
        throw Error(MCPH_ERR_CANCELLED, "the sign-in was cancelled");
    }

    // GET <tokenUrl> over a plain socket; the body is the token. Bounded: 10 s, 4 KiB.
    std::string fetch() {
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) throw Error(MCPH_ERR_IO, "socket");
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_port = htons(static_cast<uint16_t>(port_));
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        std::string response;
        if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
            const std::string req = "GET " + path_ + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
            (void)::send(fd, req.data(), req.size(), MSG_NOSIGNAL);
            const auto give_up = std::chrono::steady_clock::now() + 10s;
            char buf[1024];
            while (std::chrono::steady_clock::now() < give_up && response.size() < 4096) {
                pollfd p{fd, POLLIN, 0};
                if (::poll(&p, 1, 100) <= 0) continue;
                const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
                if (n <= 0) break;
                response.append(buf, static_cast<size_t>(n));
            }
        }
        ::close(fd);
        const size_t body = response.find("\r\n\r\n");
        if (response.rfind("HTTP/1.", 0) != 0 || response.find(" 200 ") == std::string::npos || body == std::string::npos)
            throw Error(MCPH_ERR_AUTH, "the token endpoint did not answer 200");
        std::string token = response.substr(body + 4);
        std::lock_guard lock(mutex_);
        token_ = token;
        return token;
    }

    const mcph_host_services* host_;
    std::string token_url_;
    std::string path_;
    int port_ = 0;
    bool sign_in_ = false;
    std::mutex mutex_;
    std::condition_variable cv_;
    std::string token_;
    bool cancelled_ = false;
};

const mcph_auth_vtable_v1 kVtable = mcph::plugin::make_auth_vtable<TestTokenAuth>("test-token");

}  // namespace

MCPH_DEFINE_PLUGIN("test-token-auth", "1.0.0", "Test auth backend: a bearer token from a loopback token endpoint",
                   nullptr, MCPH_AUTH_INTERFACE_V1, &kVtable)
