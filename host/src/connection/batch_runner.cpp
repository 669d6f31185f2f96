#include "connection/batch_runner.hpp"

#include "connection/env_integer.hpp"

#include <mcph/error.hpp>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>

namespace mcph::connection {
namespace {

constexpr long long kMaxBatch = 1000;  // far above any sane value: a typo guard, not a tuning knob

void read_batch_size(const char* name, std::size_t& out) {
    if (auto v = env_integer(name, 1, kMaxBatch)) out = static_cast<std::size_t>(*v);
}

// Collects the first exception any task let escape; the rest are dropped (the first one explains).
class FirstError {
public:
    void run_guarded(const std::function<void()>& task) noexcept {
        try {
            if (task) task();
        } catch (...) {
            std::lock_guard lock(mutex_);
            if (!first_) first_ = std::current_exception();
        }
    }
    void rethrow() const {
        if (first_) std::rethrow_exception(first_);
    }

private:
    std::mutex mutex_;
    std::exception_ptr first_;
};

void run_batch(std::vector<std::function<void()>>::iterator begin, std::vector<std::function<void()>>::iterator end,
               FirstError& errors) {
    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(end - begin));
    for (auto it = begin; it != end; ++it) {
        try {
            threads.emplace_back([&errors, &task = *it] { errors.run_guarded(task); });
        } catch (const std::system_error&) {
            // Out of threads: run it here. The caller's thread would only be waiting anyway, so the
            // batch still never runs more than batch_size tasks at once.
            errors.run_guarded(*it);
        }
    }
    for (std::thread& t : threads) t.join();
}

}  // namespace

BatchSizes BatchSizes::from_environment() {
    BatchSizes sizes;
    read_batch_size("MCPH_LOCAL_CONNECT_BATCH", sizes.local);
    read_batch_size("MCPH_REMOTE_CONNECT_BATCH", sizes.remote);
    return sizes;
}

void run_in_batches(std::vector<std::function<void()>> tasks, std::size_t batch_size) {
    if (batch_size == 0) throw Error(ErrorKind::Usage, "run_in_batches: the batch size must be at least 1");
    FirstError errors;
    for (auto begin = tasks.begin(); begin != tasks.end();) {
        auto end = begin + static_cast<std::ptrdiff_t>(std::min(batch_size, static_cast<std::size_t>(tasks.end() - begin)));
        run_batch(begin, end, errors);
        begin = end;
    }
    errors.rethrow();
}

}  // namespace mcph::connection
