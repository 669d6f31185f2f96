// What a hostile-server test asserts besides the outcome: this process's peak memory and its open
// descriptors. Header-only, shared by the transport plugin tests (which load the plugin in-process,
// so the plugin's memory is this process's memory).
#pragma once

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdlib>
#include <fstream>
#include <string>

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

// Sockets of this process connected to 127.0.0.1:`port` — the client ends of connections to an
// in-process fake server (its own ends have `port` as their local port, not their peer's).
inline size_t connections_to(unsigned short port) {
    size_t n = 0;
    if (DIR* d = ::opendir("/proc/self/fd")) {
        while (dirent* e = ::readdir(d)) {
            if (e->d_name[0] == '.') continue;
            sockaddr_in peer{};
            socklen_t len = sizeof peer;
            int fd = std::atoi(e->d_name);
            if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len) == 0 && peer.sin_family == AF_INET &&
                ntohs(peer.sin_port) == port)
                ++n;
        }
        ::closedir(d);
    }
    return n;
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

}  // namespace mcph_test
