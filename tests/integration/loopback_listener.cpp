#include "loopback_listener.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

namespace mcph::test {

int listen_on_loopback(int& port, int backlog, int socket_flags) {
    port = 0;
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | socket_flags, 0);
    if (fd < 0) return -1;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, backlog) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
        ::close(fd);
        return -1;
    }
    port = ntohs(addr.sin_port);
    return fd;
}

LoopbackAcceptor::LoopbackAcceptor(std::function<void(int client)> on_client, int backlog)
    : on_client_(std::move(on_client)) {
    fd_ = listen_on_loopback(port_, backlog);
    if (fd_ < 0) return;
    thread_ = std::thread([this] {
        while (!stop_) {
            pollfd p{fd_, POLLIN, 0};
            if (::poll(&p, 1, 50) <= 0) continue;
            const int client = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
            if (client >= 0) on_client_(client);
        }
    });
}

LoopbackAcceptor::~LoopbackAcceptor() { stop(); }

void LoopbackAcceptor::stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

namespace {

constexpr size_t kMaxRequestBytes = size_t{16} << 20;  // a body
constexpr size_t kMaxHeadBytes = size_t{64} << 10;

std::string lowered(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

// The Content-Length of a lower-cased head; nullopt when it is there but not a number.
std::optional<size_t> content_length(const std::string& head) {
    const size_t at = head.find("\r\ncontent-length:");
    if (at == std::string::npos) return size_t{0};
    try {
        return std::stoul(head.substr(at + 17));
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

}  // namespace

std::string HttpRequest::lower_head() const { return lowered(head); }

bool HttpRequest::has_header(const std::string& lower_name) const {
    return lower_head().find("\r\n" + lower_name + ":") != std::string::npos;
}

std::optional<HttpRequest> read_http_request(int fd, std::string& pending, std::chrono::steady_clock::time_point until,
                                             const std::atomic<bool>* stop) {
    size_t head_end = std::string::npos;
    size_t body_length = 0;
    HttpRequest r;
    for (;;) {
        if (head_end == std::string::npos && (head_end = pending.find("\r\n\r\n")) != std::string::npos) {
            r.head = pending.substr(0, head_end);
            const size_t space = r.head.find(' ');
            r.method = r.head.substr(0, space);
            if (space != std::string::npos) r.target = r.head.substr(space + 1, r.head.find(' ', space + 1) - space - 1);
            std::optional<size_t> length = content_length(r.lower_head());
            if (!length || *length > kMaxRequestBytes) return std::nullopt;
            body_length = *length;
        }
        if (head_end != std::string::npos && pending.size() >= head_end + 4 + body_length) break;
        if (head_end == std::string::npos && pending.size() > kMaxHeadBytes) return std::nullopt;
        if ((stop && stop->load()) || std::chrono::steady_clock::now() >= until) return std::nullopt;
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 50) <= 0) continue;
        char chunk[4096];
        const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
        if (n <= 0) return std::nullopt;
        pending.append(chunk, static_cast<size_t>(n));
    }
    r.body = pending.substr(head_end + 4, body_length);
    pending.erase(0, head_end + 4 + body_length);
    return r;
}

bool send_all(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
        const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
        if (n <= 0) return false;
        bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
}

ThreadedHttpServer::ThreadedHttpServer(Connections connections, Handler handle)
    : connections_(connections), handle_(std::move(handle)), acceptor_([this](int fd) {
          std::lock_guard lock(mutex_);
          threads_.emplace_back([this, fd] { serve(fd); });
      }) {}

ThreadedHttpServer::~ThreadedHttpServer() {
    stop_ = true;
    acceptor_.stop();
    std::lock_guard lock(mutex_);
    for (std::thread& t : threads_) t.join();
}

void ThreadedHttpServer::serve(int fd) {
    std::string pending;
    const auto no_deadline = std::chrono::steady_clock::time_point::max();  // stop_ ends the wait
    while (std::optional<HttpRequest> request = read_http_request(fd, pending, no_deadline, &stop_)) {
        handle_(fd, *request);
        if (connections_ == Connections::OneRequest) break;
    }
    ::close(fd);
}

}  // namespace mcph::test
