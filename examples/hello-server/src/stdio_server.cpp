// stdio transport: newline-delimited JSON-RPC on stdin/stdout, logs only on stderr.
//
// Hot path: one read() into a large buffer, every complete line handled in place, each response
// written with one writev() (message + "\n"). Delayed output (countdown) waits in a small timer
// queue; while it is non-empty the loop polls stdin with the time to the next due message, so
// other requests (and notifications/cancelled) are still served meanwhile.
#include "mcp_handler.hpp"
#include "servers.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace hello {

namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kInitialBuffer = 1 << 20;      // 1 MiB
constexpr size_t kMaxLine = size_t(256) << 20;  // a longer line is refused with -32700

extern "C" void exit_on_signal(int) { _exit(0); }

// Writes one message and its newline with a single writev (looping only on partial writes).
bool write_line(const std::string& message) {
    static const char newline = '\n';
    iovec iov[2] = {{const_cast<char*>(message.data()), message.size()}, {const_cast<char*>(&newline), 1}};
    int count = 2;
    iovec* v = iov;
    while (count > 0) {
        ssize_t n = ::writev(STDOUT_FILENO, v, count);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        size_t left = static_cast<size_t>(n);
        while (count > 0 && left >= v->iov_len) {
            left -= v->iov_len;
            ++v;
            --count;
        }
        if (count > 0) {
            v->iov_base = static_cast<char*>(v->iov_base) + left;
            v->iov_len -= left;
        }
    }
    return true;
}

struct Pending {
    std::string request_key;  // for notifications/cancelled
    std::string message;
};

class StdioServer {
public:
    explicit StdioServer(const ServerOptions& options) : handler_(options) {}

    int run() {
        std::vector<char> buf(kInitialBuffer);
        size_t len = 0;   // bytes in buf
        size_t scan = 0;  // bytes already searched for a newline
        bool discarding = false;  // inside an over-long line
        for (;;) {
            if (!flush_due()) return 0;
            if (!queue_.empty() && !wait_readable()) continue;  // a queued message fell due first
            if (len == buf.size()) {
                if (buf.size() >= kMaxLine) {
                    if (!discarding && !write_line(error_message(nullptr, rpc::parse_error, "Parse error: message too long"))) return 0;
                    discarding = true;
                    len = scan = 0;
                } else {
                    buf.resize(buf.size() * 2);
                }
            }
            ssize_t n = ::read(STDIN_FILENO, buf.data() + len, buf.size() - len);
            if (n < 0) {
                if (errno == EINTR) continue;
                std::fprintf(stderr, "hello-server: read stdin: %s\n", std::strerror(errno));
                return 1;
            }
            if (n == 0) return drain();
            len += static_cast<size_t>(n);

            size_t start = 0;
            while (char* nl = static_cast<char*>(std::memchr(buf.data() + scan, '\n', len - scan))) {
                size_t end = static_cast<size_t>(nl - buf.data());
                if (discarding)
                    discarding = false;
                else if (!handle_line(buf.data() + start, end - start))
                    return 0;
                start = scan = end + 1;
            }
            scan = len;
            if (start > 0) {
                std::memmove(buf.data(), buf.data() + start, len - start);
                len -= start;
                scan -= start;
            }
        }
    }

private:
    // Handles one line; false when stdout is gone.
    bool handle_line(const char* data, size_t size) {
        while (size > 0 && (data[size - 1] == '\r' || data[size - 1] == ' ' || data[size - 1] == '\t')) --size;
        size_t skip = 0;
        while (skip < size && (data[skip] == ' ' || data[skip] == '\t')) ++skip;
        if (skip == size) return true;  // blank line
        Reply reply = handler_.handle(std::string_view(data + skip, size - skip));
        if (reply.cancelled_key) cancel(*reply.cancelled_key);
        if (!reply.response) return true;
        if (!reply.deferred()) return write_line(*reply.response);
        auto due = Clock::now();
        for (auto& step : reply.steps) {
            due += step.delay;
            queue_.emplace(due, Pending{reply.request_key, std::move(step.message)});
        }
        due += reply.response_delay;
        queue_.emplace(due, Pending{reply.request_key, std::move(*reply.response)});
        return true;
    }

    // A cancelled request sends nothing more, not even its response.
    void cancel(const std::string& key) {
        for (auto it = queue_.begin(); it != queue_.end();)
            it = it->second.request_key == key ? queue_.erase(it) : std::next(it);
    }

    // Writes every queued message that is due; false when stdout is gone.
    bool flush_due() {
        auto now = Clock::now();
        while (!queue_.empty() && queue_.begin()->first <= now) {
            if (!write_line(queue_.begin()->second.message)) return false;
            queue_.erase(queue_.begin());
        }
        return true;
    }

    // Waits until stdin is readable (true) or the next queued message is due (false).
    bool wait_readable() {
        auto wait = std::chrono::ceil<std::chrono::milliseconds>(queue_.begin()->first - Clock::now());
        pollfd pfd{STDIN_FILENO, POLLIN, 0};
        int r = ::poll(&pfd, 1, static_cast<int>(std::max<std::int64_t>(0, wait.count())));
        return r != 0;  // readable, hung up, or an error the next read() reports
    }

    // stdin closed: send what is still queued (in order, on time), then exit 0.
    int drain() {
        while (!queue_.empty()) {
            auto wait = queue_.begin()->first - Clock::now();
            if (wait.count() > 0) std::this_thread::sleep_for(wait);
            if (!flush_due()) return 0;
        }
        return 0;
    }

    McpHandler handler_;
    std::multimap<Clock::time_point, Pending> queue_;  // equal times keep insertion order
};

}  // namespace

int run_stdio_server(const ServerOptions& options) {
    ::signal(SIGPIPE, SIG_IGN);         // a closed stdout shows up as EPIPE from writev
    ::signal(SIGINT, exit_on_signal);   // nothing to flush: responses are written unbuffered
    ::signal(SIGTERM, exit_on_signal);
    if (options.verbose) std::fprintf(stderr, "hello-server: stdio mode, notes file %s\n", options.notes_path.c_str());
    StdioServer server(options);
    return server.run();
}

}  // namespace hello
