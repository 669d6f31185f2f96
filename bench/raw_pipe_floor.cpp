// bench-raw-pipe — the physical floor: the same MCP exchanges the mcph and TypeScript benchmarks
// make, with hand-written minimal I/O and no JSON library (lines are built with snprintf, replies
// are only checked for a "result" member). Whatever mcph or the SDK add on top of this is their cost.
//
//   stdio (default): spawns hello-server over pipes; one write() per message, read until '\n'.
//   --http URL:      one keep-alive HTTP/1.1 connection over a raw TCP socket; POST initialize
//                    first for the Mcp-Session-Id, then the same loop. Only Content-Length replies
//                    are understood (what hello-server sends for these requests); 16-in-flight uses
//                    HTTP/1.1 pipelining on that one connection.
//   --era modern:    the 2026-07-28 exchange instead: connect is one server/discover round trip (no
//                    initialize, no notification, no HTTP session), every request carries the same
//                    params._meta envelope mcph sends (byte for byte), and over HTTP the headers the
//                    binding requires (MCP-Protocol-Version, Mcp-Method, Mcp-Name).
//
// Prints one JSON object with the same keys as ts_client_bench.mjs and mcph-bench (see README.md).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_args.hpp"
#include "bench_stats.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void die(const std::string& what) {
    std::fprintf(stderr, "bench-raw-pipe: %s%s%s\n", what.c_str(), errno ? ": " : "", errno ? std::strerror(errno) : "");
    std::exit(1);
}

void write_all(int fd, const char* data, size_t size) {
    while (size > 0) {
        ssize_t n = ::write(fd, data, size);
        if (n < 0) {
            if (errno == EINTR) continue;
            die("write");
        }
        data += n;
        size -= static_cast<size_t>(n);
    }
}

// A growable receive buffer with a consumed prefix.
class InBuffer {
public:
    explicit InBuffer(int fd) : fd_(fd), buf_(1 << 20) {}
    // Reads more bytes; dies on EOF.
    void fill() {
        if (start_ > 0 && start_ == end_) start_ = end_ = 0;
        if (end_ == buf_.size()) {
            if (start_ > 0) {
                std::memmove(buf_.data(), buf_.data() + start_, end_ - start_);
                end_ -= start_;
                start_ = 0;
            } else {
                buf_.resize(buf_.size() * 2);
            }
        }
        ssize_t n;
        do n = ::read(fd_, buf_.data() + end_, buf_.size() - end_);
        while (n < 0 && errno == EINTR);
        if (n <= 0) die(n == 0 ? "peer closed the connection" : "read");
        end_ += static_cast<size_t>(n);
    }
    std::string_view data() const { return {buf_.data() + start_, end_ - start_}; }
    void consume(size_t n) { start_ += n; }

private:
    int fd_;
    std::vector<char> buf_;
    size_t start_ = 0, end_ = 0;
};

// One MCP peer connection: send a message, receive the next reply body.
class Channel {
public:
    virtual ~Channel() = default;
    // `headers`: extra HTTP header lines ("Name: value\r\n"...), ignored over stdio.
    virtual void send(const std::string& json, std::string_view headers = {}) = 0;
    virtual std::string_view receive() = 0;  // valid until the next receive
    virtual void notify(const std::string& json) = 0;  // send a notification (HTTP: and eat the 202)
};

// ---- stdio ------------------------------------------------------------------------------------
class PipeChannel : public Channel {
public:
    PipeChannel(const std::string& server, const std::vector<std::string>& args) {
        int in[2], out[2];
        if (::pipe2(in, O_CLOEXEC) || ::pipe2(out, O_CLOEXEC)) die("pipe");
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, in[0], 0);
        posix_spawn_file_actions_adddup2(&fa, out[1], 1);
        std::vector<char*> argv{const_cast<char*>(server.c_str())};
        for (auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        if (int rc = posix_spawn(&pid_, server.c_str(), &fa, nullptr, argv.data(), environ)) {
            errno = rc;
            die("spawn " + server);
        }
        posix_spawn_file_actions_destroy(&fa);
        ::close(in[0]);
        ::close(out[1]);
        to_ = in[1];
        from_ = out[0];
        in_ = std::make_unique<InBuffer>(from_);
    }
    ~PipeChannel() override {
        ::close(to_);  // EOF: hello-server exits 0
        int status = 0;
        ::waitpid(pid_, &status, 0);
        ::close(from_);
    }
    void send(const std::string& json, std::string_view) override {
        line_.assign(json).push_back('\n');
        write_all(to_, line_.data(), line_.size());
    }
    void notify(const std::string& json) override { send(json, {}); }
    std::string_view receive() override {
        in_->consume(pending_);
        size_t scanned = 0;
        for (;;) {
            auto d = in_->data();
            auto nl = d.find('\n', scanned);
            if (nl != std::string_view::npos) {
                pending_ = nl + 1;
                return d.substr(0, nl);
            }
            scanned = d.size();
            in_->fill();
        }
    }

private:
    pid_t pid_ = 0;
    int to_ = -1, from_ = -1;
    std::unique_ptr<InBuffer> in_;
    size_t pending_ = 0;
    std::string line_;
};

// ---- HTTP ---------------------------------------------------------------------------------------
struct Url {
    std::string host, port, path;
};

Url parse_url(const std::string& url) {
    const std::string prefix = "http://";
    if (url.rfind(prefix, 0) != 0) die("--http needs an http:// URL");
    std::string rest = url.substr(prefix.size());
    auto slash = rest.find('/');
    std::string authority = rest.substr(0, slash);
    Url u;
    u.path = slash == std::string::npos ? "/" : rest.substr(slash);
    auto colon = authority.rfind(':');
    u.host = authority.substr(0, colon);
    u.port = colon == std::string::npos ? "80" : authority.substr(colon + 1);
    if (!u.host.empty() && u.host.front() == '[') u.host = u.host.substr(1, u.host.size() - 2);
    return u;
}

bool iequals_prefix(std::string_view s, std::string_view prefix) {
    if (s.size() < prefix.size()) return false;
    for (size_t i = 0; i < prefix.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(s[i])) != std::tolower(static_cast<unsigned char>(prefix[i]))) return false;
    return true;
}

class HttpChannel : public Channel {
public:
    explicit HttpChannel(const Url& url) : url_(url) {
        addrinfo hints{}, *res = nullptr;
        hints.ai_socktype = SOCK_STREAM;
        if (getaddrinfo(url.host.c_str(), url.port.c_str(), &hints, &res) != 0) die("resolve " + url.host);
        fd_ = ::socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd_ < 0 || ::connect(fd_, res->ai_addr, res->ai_addrlen) != 0) die("connect " + url.host + ":" + url.port);
        freeaddrinfo(res);
        int one = 1;
        ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        in_ = std::make_unique<InBuffer>(fd_);
    }
    ~HttpChannel() override {
        if (!session_.empty()) {  // DELETE the session, as a well-behaved client does
            std::string req = "DELETE " + url_.path + " HTTP/1.1\r\nHost: " + url_.host + "\r\nMcp-Session-Id: " + session_ +
                              "\r\nContent-Length: 0\r\n\r\n";
            write_all(fd_, req.data(), req.size());
            receive();
        }
        ::close(fd_);
    }
    void send(const std::string& json, std::string_view headers) override {
        req_.clear();
        req_.append("POST ").append(url_.path).append(" HTTP/1.1\r\nHost: ").append(url_.host)
            .append("\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n");
        if (!session_.empty()) req_.append("Mcp-Session-Id: ").append(session_).append("\r\nMCP-Protocol-Version: 2025-11-25\r\n");
        req_.append(headers);
        req_.append("Content-Length: ").append(std::to_string(json.size())).append("\r\n\r\n").append(json);
        write_all(fd_, req_.data(), req_.size());
    }
    void notify(const std::string& json) override {
        send(json, {});
        receive();
    }
    // Minimal response reader: status line, headers up to the blank line, Content-Length body.
    std::string_view receive() override {
        in_->consume(pending_);
        size_t header_end;
        for (;;) {
            header_end = in_->data().find("\r\n\r\n");
            if (header_end != std::string_view::npos) break;
            in_->fill();
        }
        std::string_view head = in_->data().substr(0, header_end);
        int status = std::atoi(std::string(head.substr(9, 3)).c_str());
        size_t length = 0;
        bool has_length = false;
        size_t pos = head.find("\r\n");
        while (pos != std::string_view::npos && pos < head.size()) {
            size_t next = head.find("\r\n", pos + 2);
            std::string_view line = head.substr(pos + 2, (next == std::string_view::npos ? head.size() : next) - pos - 2);
            if (iequals_prefix(line, "content-length:")) {
                length = std::strtoull(std::string(line.substr(15)).c_str(), nullptr, 10);
                has_length = true;
            } else if (iequals_prefix(line, "mcp-session-id:")) {
                std::string_view v = line.substr(15);
                while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
                session_ = std::string(v);
            }
            pos = next;
        }
        if (!has_length) die("HTTP reply without Content-Length (status " + std::to_string(status) + ")");
        if (status >= 300) die("HTTP status " + std::to_string(status));
        size_t body_start = header_end + 4;
        while (in_->data().size() < body_start + length) in_->fill();
        pending_ = body_start + length;
        return in_->data().substr(body_start, length);
    }

private:
    Url url_;
    int fd_ = -1;
    std::unique_ptr<InBuffer> in_;
    size_t pending_ = 0;
    std::string session_, req_;
};

// ---- the measurements -------------------------------------------------------------------------
struct Config {
    std::string server;
    std::vector<std::string> server_args;
    std::string http_url;
    bool modern = false;  // --era modern
    int calls = 20000, inflight = 16, echo_calls = 50, connects = 5, warmup = 1000;
    size_t echo_bytes = 1 << 20;
    bool one_shot = false;  // --one-shot: connect, one add, exit (run.sh times the whole process)
};

std::unique_ptr<Channel> open_channel(const Config& c) {
    if (!c.http_url.empty()) return std::make_unique<HttpChannel>(parse_url(c.http_url));
    return std::make_unique<PipeChannel>(c.server, c.server_args);
}

void expect_result(std::string_view reply, const char* what) {
    if (reply.find("\"result\"") == std::string_view::npos)
        die(std::string(what) + ": unexpected reply " + std::string(reply.substr(0, 200)));
}

// The 2026-07-28 envelope every modern request carries in params._meta: exactly the bytes mcph
// sends (its capabilities and identity), so that the server parses the same message for the floor
// as for mcph and the mcph/floor ratio compares like with like.
#define MODERN_META                                                                                                    \
    R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":)" \
    R"({"roots":{},"sampling":{},"elicitation":{},"extensions":{"io.modelcontextprotocol/skills":{}}},)"               \
    R"("io.modelcontextprotocol/clientInfo":{"name":"mcph","version":"0.1.0","title":"mcph MCP host"}})"

// HTTP headers of the modern binding: the version, and the method (and name) mirrored from the body.
constexpr std::string_view kModernDiscoverHeaders = "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: server/discover\r\n";
constexpr std::string_view kModernAddHeaders = "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: add\r\n";
constexpr std::string_view kModernEchoHeaders = "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\n";

// legacy: initialize + notifications/initialized; modern: one server/discover round trip.
void connect_era(Channel& ch, bool modern) {
    if (modern) {
        ch.send(R"({"jsonrpc":"2.0","id":0,"method":"server/discover","params":{)" MODERN_META "}}", kModernDiscoverHeaders);
        expect_result(ch.receive(), "server/discover");
        return;
    }
    ch.send(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench-raw-pipe","version":"0.1.0"}}})");
    expect_result(ch.receive(), "initialize");
    ch.notify(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
}

// What mcph's connect() does after the handshake before it returns: the tools, resources and prompts
// lists it caches (hello-server offers all three), one after the other. The floor of the
// "connect with the lists" row (bench/README.md).
void list_features(Channel& ch, bool modern) {
    static const char* const kLists[] = {"tools/list", "resources/list", "prompts/list"};
    long id = 100;
    for (const char* method : kLists) {
        char body[1024];
        const int n = modern ? std::snprintf(body, sizeof body, R"({"jsonrpc":"2.0","id":%ld,"method":"%s","params":{)" MODERN_META "}}", id, method)
                             : std::snprintf(body, sizeof body, R"({"jsonrpc":"2.0","id":%ld,"method":"%s"})", id, method);
        const std::string headers = modern ? std::string("MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: ") + method + "\r\n" : std::string();
        ch.send(std::string(body, static_cast<size_t>(n)), headers);
        expect_result(ch.receive(), method);
        ++id;
    }
}

std::string add_request(long id, bool modern) {
    char buf[512];
    int n = modern ? std::snprintf(buf, sizeof buf,
                                   R"({"jsonrpc":"2.0","id":%ld,"method":"tools/call","params":{"name":"add","arguments":{"a":%ld,"b":1},)" MODERN_META "}}",
                                   id, id)
                   : std::snprintf(buf, sizeof buf,
                                   R"({"jsonrpc":"2.0","id":%ld,"method":"tools/call","params":{"name":"add","arguments":{"a":%ld,"b":1}}})", id, id);
    return std::string(buf, static_cast<size_t>(n));
}

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

using bench::peak_rss_mb;
using bench::percentile;
using bench::process_cpu_us;

std::string default_server() {
    std::error_code ec;
    auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    return (self.parent_path() / "hello-server").string();
}

int usage() {
    std::fprintf(stderr,
                 "usage: bench-raw-pipe [--server PATH] [--http URL] [--era legacy|modern] [--calls N] [--inflight K] [--echo-calls M]\n"
                 "                      [--echo-bytes B] [--connects C] [--warmup W] [--one-shot] [-- server args...]\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    ::signal(SIGPIPE, SIG_IGN);
    Config c;
    c.server = default_server();
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) std::exit(usage());
            return argv[++i];
        };
        if (a == "--server") c.server = next();
        else if (a == "--http") c.http_url = next();
        else if (a == "--era") {
            std::string era = next();
            if (era != "legacy" && era != "modern") return usage();
            c.modern = era == "modern";
        }
        else if (a == "--one-shot") c.one_shot = true;
        else if (a == "--") {
            while (++i < argc) c.server_args.push_back(argv[i]);
        } else if (!bench::numeric_option(c, a, next())) return usage();
    }
    if (c.http_url.empty() && ::access(c.server.c_str(), X_OK) != 0) die("no executable hello-server at " + c.server);
    if (c.one_shot) {
        // The floor of a one-shot client (`mcph call`): start, connect, one call, close the server, exit.
        auto ch = open_channel(c);
        connect_era(*ch, c.modern);
        ch->send(add_request(1, c.modern), c.modern ? kModernAddHeaders : std::string_view());
        expect_result(ch->receive(), "tools/call add (one-shot)");
        ch.reset();
        std::printf("{\"client\":\"raw\",\"one_shot\":true,\"peak_rss_mb\":%.1f}\n", peak_rss_mb());
        return 0;
    }

    // 1. connect + initialize / server/discover (fresh process / TCP connection each time), median.
    std::vector<double> connect_ms;
    for (int i = 0; i < c.connects; ++i) {
        auto t = Clock::now();
        auto ch = open_channel(c);
        connect_era(*ch, c.modern);
        connect_ms.push_back(seconds_since(t) * 1e3);
    }

    // 1b. the same, then the three lists mcph's connect() caches before it returns.
    std::vector<double> connect_lists_ms;
    for (int i = 0; i < c.connects; ++i) {
        auto t = Clock::now();
        auto ch = open_channel(c);
        connect_era(*ch, c.modern);
        list_features(*ch, c.modern);
        connect_lists_ms.push_back(seconds_since(t) * 1e3);
    }

    auto ch = open_channel(c);
    connect_era(*ch, c.modern);
    const std::string_view add_headers = c.modern ? kModernAddHeaders : std::string_view();
    long id = 1;
    for (int i = 0; i < c.warmup; ++i) {
        ch->send(add_request(id++, c.modern), add_headers);
        expect_result(ch->receive(), "warm-up");
    }

    // 2. sequential tools/call add.
    std::vector<double> lat_us;
    lat_us.reserve(static_cast<size_t>(c.calls));
    const double cpu0 = process_cpu_us();
    auto t0 = Clock::now();
    for (int i = 0; i < c.calls; ++i) {
        auto t = Clock::now();
        ch->send(add_request(id++, c.modern), add_headers);
        expect_result(ch->receive(), "tools/call add");
        lat_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t).count());
    }
    double seq_s = seconds_since(t0);
    const double seq_cpu_us = (process_cpu_us() - cpu0) / c.calls;

    // 3. K calls in flight (refilled as each reply arrives), N in total.
    t0 = Clock::now();
    int sent = 0, done = 0;
    for (; sent < std::min(c.inflight, c.calls); ++sent) ch->send(add_request(id++, c.modern), add_headers);
    while (done < c.calls) {
        expect_result(ch->receive(), "tools/call add (in flight)");
        ++done;
        if (sent < c.calls) {
            ch->send(add_request(id++, c.modern), add_headers);
            ++sent;
        }
    }
    double inflight_s = seconds_since(t0);

    // 4. echo with a large text payload, sequential.
    std::string prefix = R"({"jsonrpc":"2.0","id":)";
    std::string payload(c.echo_bytes, 'x');
    const double echo_cpu0 = process_cpu_us();
    t0 = Clock::now();
    for (int i = 0; i < c.echo_calls; ++i) {
        std::string req = prefix + std::to_string(id++) +
                          R"(,"method":"tools/call","params":{"name":"echo","arguments":{"text":")" + payload + "\"}" +
                          (c.modern ? "," MODERN_META "}}" : "}}");
        ch->send(req, c.modern ? kModernEchoHeaders : std::string_view());
        auto reply = ch->receive();
        expect_result(reply, "tools/call echo");
        if (reply.size() < c.echo_bytes) die("echo reply too short");
    }
    double echo_s = seconds_since(t0);
    const double echo_cpu_us = c.echo_calls ? (process_cpu_us() - echo_cpu0) / c.echo_calls : 0.0;
    ch.reset();

    std::printf(
        "{\"client\":\"raw\",\"era\":\"%s\",\"transport\":\"%s\",\"connect_ms_median\":%.3f,\"connect_lists_ms_median\":%.3f,"
        "\"seq_calls\":%d,\"seq_p50_us\":%.2f,\"seq_p99_us\":%.2f,\"seq_calls_per_s\":%.0f,\"seq_cpu_us\":%.2f,"
        "\"inflight\":%d,\"inflight_calls\":%d,\"inflight_calls_per_s\":%.0f,"
        "\"echo_calls\":%d,\"echo_payload_bytes\":%zu,\"echo_mb_per_s\":%.1f,\"echo_cpu_us\":%.1f,\"peak_rss_mb\":%.1f}\n",
        c.modern ? "modern" : "legacy", c.http_url.empty() ? "stdio" : "http", percentile(connect_ms, 0.5), percentile(connect_lists_ms, 0.5), c.calls,
        percentile(lat_us, 0.5), percentile(lat_us, 0.99), c.calls / seq_s, seq_cpu_us, c.inflight, c.calls, c.calls / inflight_s, c.echo_calls, c.echo_bytes,
        c.echo_calls ? 2.0 * static_cast<double>(c.echo_bytes) * c.echo_calls / echo_s / 1e6 : 0.0, echo_cpu_us, peak_rss_mb());
    return 0;
}
