#include "pipe_growth.hpp"

#include <fcntl.h>

#include <algorithm>
#include <atomic>
#include <cstdio>

namespace mcph::stdio {
namespace {

std::atomic<size_t> budget_used{0};

// The largest pipe an unprivileged process may ask for (read once; 1 MiB when unreadable).
size_t system_max() noexcept {
    static const size_t max = [] {
        size_t value = size_t{1} << 20;
        if (std::FILE* f = std::fopen("/proc/sys/fs/pipe-max-size", "re")) {
            unsigned long v = 0;
            if (std::fscanf(f, "%lu", &v) == 1 && v > 0) value = v;
            std::fclose(f);
        }
        return value;
    }();
    return max;
}

size_t round_up_pow2(size_t n) noexcept {
    size_t p = 4096;
    while (p < n && p < (size_t{1} << 40)) p <<= 1;
    return p;
}

}  // namespace

PipeGrowth::~PipeGrowth() {
    if (taken_) budget_used.fetch_sub(taken_);
}

void PipeGrowth::ensure(int fd, size_t bytes) noexcept {
    if (size_ == 0) {
        const int current = ::fcntl(fd, F_GETPIPE_SZ);
        if (current <= 0) {
            at_limit_ = true;  // not a pipe (a test's socket, say): nothing to grow
            return;
        }
        size_ = static_cast<size_t>(current);
    }
    if (bytes <= size_ || at_limit_) return;
    // The kernel rounds to a power of two pages; ask for that, bounded by the system's maximum.
    const size_t want = std::min(round_up_pow2(bytes), std::max(system_max(), size_));
    if (want <= size_) {
        at_limit_ = true;
        return;
    }
    const size_t extra = want - size_;
    size_t used = budget_used.load();
    do {
        if (used + extra > kBudgetBytes) {
            at_limit_ = true;
            return;
        }
    } while (!budget_used.compare_exchange_weak(used, used + extra));
    const int got = ::fcntl(fd, F_SETPIPE_SZ, static_cast<int>(want));
    if (got <= 0) {  // EPERM (user limits) or EBUSY: keep the pipe as it is
        budget_used.fetch_sub(extra);
        at_limit_ = true;
        return;
    }
    // The kernel may round differently than asked: account for what the pipe really holds.
    const size_t now = static_cast<size_t>(got);
    const size_t delta = now > size_ ? now - size_ : 0;
    if (delta > extra) budget_used.fetch_add(delta - extra);
    else budget_used.fetch_sub(extra - delta);
    taken_ += delta;
    size_ = std::max(size_, now);
}

}  // namespace mcph::stdio
