// What a hostile-server test asserts besides the outcome: this process's peak memory and its open
// descriptors. Header-only, shared by the transport plugin tests (which load the plugin in-process,
// so the plugin's memory is this process's memory).
#pragma once

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace mcph_test {

// A field of /proc/self/status in KiB (VmRSS, VmHWM), -1 if unreadable.
inline long proc_status_kib(const std::string& field) {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(field + ":", 0) == 0) return std::strtol(line.c_str() + field.size() + 1, nullptr, 10);
    return -1;
}

// Resets the peak (VmHWM) to the current RSS (Linux ≥ 4.0), so peak_rss_kib() later measures the
// high-water mark of what ran in between — a spike that is freed again still counts.
inline bool reset_peak_rss() {
    std::ofstream out("/proc/self/clear_refs");
    out << "5";
    return static_cast<bool>(out.flush());
}
inline long peak_rss_kib() { return proc_status_kib("VmHWM"); }
inline long rss_kib() { return proc_status_kib("VmRSS"); }

inline size_t open_fds() {
    size_t n = 0;
    if (DIR* d = ::opendir("/proc/self/fd")) {
        while (dirent* e = ::readdir(d))
            if (e->d_name[0] != '.') ++n;
        ::closedir(d);
    }
    return n;
}

// The socket an entry of /proc/self/fd names ("socket:[<inode>]"), 0 when it names none. Read
// by path, not with fstat(fd): ThreadSanitizer counts an fstat of a descriptor another thread
// accepts or closes as a data race on that descriptor.
inline unsigned long socket_inode(const char* fd_name) {
    char link[64];
    const std::string path = std::string("/proc/self/fd/") + fd_name;
    const ssize_t n = ::readlink(path.c_str(), link, sizeof link - 1);
    if (n <= 0) return 0;
    link[n] = '\0';
    unsigned long inode = 0;
    return std::sscanf(link, "socket:[%lu]", &inode) == 1 ? inode : 0;
}

// Whether descriptor `fd` is an IPv4 socket whose peer's port is `port`.
inline bool peer_port_is(int fd, unsigned short port) {
    sockaddr_in peer{};
    socklen_t len = sizeof peer;
    return ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len) == 0 && peer.sin_family == AF_INET &&
           ntohs(peer.sin_port) == port;
}

// The lowest descriptor of this process below `below` connected to 127.0.0.1:`port`; -1 when
// there is none.
inline int lowest_socket_to(unsigned short port, int below = 1 << 16) {
    for (int fd = 0; fd < below; ++fd)
        if (peer_port_is(fd, port)) return fd;
    return -1;
}

// The sockets (by inode) of this process whose peer is 127.0.0.1:`port`, as one pass over
// /proc/self/fd sees them. The pass is not a snapshot: a socket closed after its entry was read
// and a newer one read later are both in it. An fd is taken only if its peer is `port` both
// before and after its link is read (the number may be closed and reused meanwhile). The peer
// is asked first, one cheap call for each of the process's hundreds of descriptors; the link is
// read only for the few connected to `port`.
inline std::set<unsigned long> sockets_to(unsigned short port) {
    std::set<unsigned long> found;
    if (DIR* d = ::opendir("/proc/self/fd")) {
        while (dirent* e = ::readdir(d)) {
            if (e->d_name[0] == '.') continue;
            const int fd = std::atoi(e->d_name);
            if (!peer_port_is(fd, port)) continue;
            const unsigned long inode = socket_inode(e->d_name);
            if (inode != 0 && peer_port_is(fd, port)) found.insert(inode);
        }
        ::closedir(d);
    }
    return found;
}

// Connections of this process to 127.0.0.1:`port` (the client ends of connections to an in-process
// fake server; its own ends have `port` as their local port, not their peer's) that were all open
// at one instant: the sockets two passes in a row both saw were open from the end of the first to
// the start of the second. One pass alone counted 18 against a cap of 16 in a CI run while
// libcurl closed and opened connections during the pass.
inline size_t connections_to(unsigned short port) {
    const std::set<unsigned long> first = sockets_to(port);
    const std::set<unsigned long> second = sockets_to(port);
    size_t both = 0;
    for (unsigned long inode : second) both += first.count(inode);
    return both;
}

// ASan's quarantine keeps freed memory resident, and TSan maps shadow memory for every byte the
// program touches and keeps it: RSS bounds on many small allocations mean nothing under either
// (single large buffers still do under ASan).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#if defined(__SANITIZE_THREAD__)
inline constexpr bool kThreadSanitized = true;  // ~5x slower: some workloads are scaled down
#else
inline constexpr bool kThreadSanitized = false;
#endif

// Set by the valgrind ctest entries: RSS means nothing under valgrind, and it is ~30× slower.
inline bool under_valgrind() { return std::getenv("MCPH_UNDER_VALGRIND") != nullptr; }

// The threads of this process whose name (comm) is `name`: the plugins name theirs
// (mcph-stdio-out, mcph-http-loop, mcph-http-idle...).
inline size_t threads_named(std::string_view name) {
    size_t n = 0;
    if (DIR* d = ::opendir("/proc/self/task")) {
        while (dirent* e = ::readdir(d)) {
            if (e->d_name[0] == '.') continue;
            std::ifstream in(std::string("/proc/self/task/") + e->d_name + "/comm");
            std::string comm;
            if (in && std::getline(in, comm) && comm == name) ++n;  // a thread that ended meanwhile has no comm
        }
        ::closedir(d);
    }
    return n;
}

// Waits (bounded, polling) until `count` threads of this process are called `name`.
inline bool wait_threads_named(std::string_view name, size_t count,
                               std::chrono::milliseconds bound = std::chrono::seconds(5)) {
    for (const auto deadline = std::chrono::steady_clock::now() + bound; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(std::chrono::milliseconds(5)))
        if (threads_named(name) == count) return true;
    return threads_named(name) == count;
}

// How many of `lines` (a recorder's diagnostics, a plugin's log) contain `needle`.
inline size_t count_lines_with(const std::vector<std::string>& lines, std::string_view needle) {
    size_t n = 0;
    for (const std::string& line : lines) n += line.find(needle) != std::string::npos ? 1 : 0;
    return n;
}

// The first line of `lines()` that contains `needle`, waited for (bounded, polling); "" when none
// came in time.
template <class Lines>
std::string wait_line_with(Lines&& lines, std::string_view needle,
                           std::chrono::milliseconds bound = std::chrono::seconds(10)) {
    for (const auto deadline = std::chrono::steady_clock::now() + bound;;
         std::this_thread::sleep_for(std::chrono::milliseconds(5))) {
        for (const std::string& line : lines())
            if (line.find(needle) != std::string::npos) return line;
        if (std::chrono::steady_clock::now() >= deadline) return {};
    }
}

// The calling thread's name (comm).
inline std::string this_thread_name() {
    char name[16] = {};
    ::pthread_getname_np(::pthread_self(), name, sizeof name);
    return name;
}

// /dev/null descriptors held by a test under a changed soft RLIMIT_NOFILE: what the two classes
// below share. release() closes them and puts the soft limit back.
class DescriptorFillers {
public:
    DescriptorFillers() = default;
    ~DescriptorFillers() { release(); }
    DescriptorFillers(const DescriptorFillers&) = delete;
    DescriptorFillers& operator=(const DescriptorFillers&) = delete;

    // Sets the soft limit (within the hard one), remembering the first value to put back.
    bool set_soft_limit(rlim_t soft) {
        rlimit lim{};
        if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return false;
        if (lim.rlim_max != RLIM_INFINITY && lim.rlim_max < soft) return false;
        if (!changed_) saved_soft_ = lim.rlim_cur;
        lim.rlim_cur = soft;
        if (::setrlimit(RLIMIT_NOFILE, &lim) != 0) return false;
        changed_ = true;
        return true;
    }
    // Opens /dev/null until the open fails or returns a descriptor >= stop_at; the last one opened.
    int fill(int stop_at = 1 << 30) {
        int fd = -1;
        while ((fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0) {
            fillers_.push_back(fd);
            if (fd >= stop_at) break;
        }
        return fillers_.empty() ? -1 : fillers_.back();
    }
    void release() {
        for (int fd : fillers_) ::close(fd);
        fillers_.clear();
        if (!changed_) return;
        changed_ = false;
        rlimit lim{};
        ::getrlimit(RLIMIT_NOFILE, &lim);
        lim.rlim_cur = saved_soft_;
        ::setrlimit(RLIMIT_NOFILE, &lim);
    }

private:
    bool changed_ = false;
    rlim_t saved_soft_ = 0;
    std::vector<int> fillers_;
};

// Takes away every descriptor this process could still open, for tests of descriptor exhaustion:
// the soft RLIMIT_NOFILE is lowered to a few above what is open and the rest is filled with
// /dev/null. give_back() (or the destructor) closes the fillers and restores the limit. Not under
// a sanitizer, whose runtime needs descriptors of its own (kSanitized).
class DescriptorsTaken {
public:
    DescriptorsTaken() {
        if (!fillers_.set_soft_limit(open_fds() + 8)) return;
        taken_ = true;
        fillers_.fill();
    }
    bool taken() const { return taken_; }  // false: the limit could not be lowered
    void give_back() {
        taken_ = false;
        fillers_.release();
    }

private:
    bool taken_ = false;
    DescriptorFillers fillers_;
};

// Fills the descriptors below `floor` (default 1100, above FD_SETSIZE's 1024) with /dev/null, so
// that every descriptor opened while this lives has a number at or above it -- what a host with a
// few hundred servers meets. The soft RLIMIT_NOFILE is raised to make room if it is lower (within
// the hard limit). The destructor closes the fillers and restores the limit.
class LowDescriptorsTaken {
public:
    explicit LowDescriptorsTaken(int floor = 1100) : floor_(floor) {
        rlimit lim{};
        const rlim_t wanted = static_cast<rlim_t>(floor) + 256;
        if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return;
        if (lim.rlim_cur < wanted && !fillers_.set_soft_limit(wanted)) return;
        taken_ = fillers_.fill(floor - 1) >= floor - 1;
    }
    bool taken() const { return taken_; }  // false: the hard limit leaves no room
    // Fills the holes below the floor that descriptors closed since (by other threads, the test's
    // servers) left: call it just before the code under test opens what must be above it.
    void refill() { fillers_.fill(floor_ - 1); }

private:
    int floor_;
    bool taken_ = false;
    DescriptorFillers fillers_;
};

// A port on 127.0.0.1 where nothing listens: bound and held until the process ends, never
// listening, so a connection is refused and no other socket (another test's listener, a server
// started in parallel) can take it. A port bound and closed again could go to the next listener.
inline unsigned short closed_loopback_port() {
    static std::mutex mutex;
    static std::vector<int> held;  // never closed: the ports stay taken for the process's life
    std::lock_guard lock(mutex);
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
        return 0;  // port 0: a connection fails as well, and the test's own check says so
    held.push_back(fd);
    return ntohs(addr.sin_port);
}

}  // namespace mcph_test
