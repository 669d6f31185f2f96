#include "options.hpp"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <string>

namespace fake {

long long monotonic_ms() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<long long>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

Trace::Trace(const std::string& path) {
    if (!path.empty()) fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
}

Trace::~Trace() {
    if (fd_ >= 0) ::close(fd_);
}

void Trace::event(const char* name) {
    if (fd_ < 0) return;
    const std::string line =
        std::string(name) + " " + std::to_string(::getpid()) + " " + std::to_string(monotonic_ms()) + "\n";
    [[maybe_unused]] ssize_t n = ::write(fd_, line.data(), line.size());  // one write: atomic with O_APPEND
}

}  // namespace fake
