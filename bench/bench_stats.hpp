// What every bench client measures the same way: client CPU (getrusage), percentiles, peak RSS.
// Shared by bench-raw-pipe and mcph-bench so that the floor and mcph count alike.
#pragma once

#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace bench {

// CPU time of the whole client process (every thread: the caller and the transport's I/O
// threads), in µs. Unlike wall time it does not count the time the server or another process held
// the CPU, so it stays comparable on a loaded machine.
inline double process_cpu_us() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    auto us = [](const timeval& t) { return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_usec); };
    return us(u.ru_utime) + us(u.ru_stime);
}

inline double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    size_t i = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)];
}

// VmHWM of this process, MB.
inline double peak_rss_mb() {
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::strtod(line.c_str() + 6, nullptr) / 1024.0;
    return 0;
}

}  // namespace bench
