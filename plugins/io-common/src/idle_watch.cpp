#include "idle_watch.hpp"

#include "limit_hint.hpp"
#include "threads.hpp"

#include <mcph/plugin_helper.hpp>

#include <sys/epoll.h>

#include <algorithm>
#include <cerrno>
#include <string>

namespace mcph::io {
namespace {

// epoll data of the two eventfds; entry ids start at 1 and never reach kRearmId.
constexpr std::uint64_t kStopId = 0;
constexpr std::uint64_t kRearmId = ~std::uint64_t{0};

[[noreturn]] void fail(const char* what, int error_number) {
    throw_system_error(error_number, std::string(what) + " for the idle watch");
}

}  // namespace

IdleWatch& IdleWatch::instance(const char* thread_name) {
    static IdleWatch* const watch = new IdleWatch(thread_name);  // deliberately never destroyed (see the header)
    return *watch;
}

void IdleWatch::stop_if_unused() noexcept {
    std::lock_guard life(lifecycle_);
    std::thread thread;
    {
        std::lock_guard lock(mutex_);
        if (!entries_.empty() || !thread_.joinable()) return;
        thread = std::move(thread_);
        stop_->signal();  // never cleared: this thread ends; the next start makes a new one
    }
    thread.join();
    std::lock_guard lock(mutex_);
    epoll_.reset();  // the next start makes them again
    stop_.reset();
    rearm_.reset();
}

void IdleWatch::start_locked() {
    if (thread_.joinable()) return;
    if (!epoll_) {
        UniqueFd epoll(::epoll_create1(EPOLL_CLOEXEC));
        if (!epoll) fail("epoll_create1", errno);
        std::optional<Wakeup> stop(std::in_place, "eventfd for the idle watch");
        std::optional<Wakeup> rearm(std::in_place, "eventfd for the idle watch");
        for (auto [fd, id] : {std::pair{stop->fd(), kStopId}, std::pair{rearm->fd(), kRearmId}}) {
            epoll_event ev{};
            ev.events = EPOLLIN;
            ev.data.u64 = id;
            if (::epoll_ctl(epoll.get(), EPOLL_CTL_ADD, fd, &ev) != 0) fail("epoll_ctl", errno);
        }
        epoll_ = std::move(epoll);
        stop_ = std::move(stop);
        rearm_ = std::move(rearm);
    }
    thread_ = start_thread("the idle watch thread", [this] { run(); });
}

void IdleWatch::arm(void* owner, std::span<const int> fds, Revive revive, Clock::time_point deadline) {
    Entry entry{owner, {}, revive, deadline};
    for (int fd : fds)
        if (fd >= 0 && std::find(entry.fds.begin(), entry.fds.end(), fd) == entry.fds.end()) entry.fds.push_back(fd);
    std::lock_guard life(lifecycle_);
    std::lock_guard lock(mutex_);
    start_locked();
    if (auto old = by_owner_.find(owner); old != by_owner_.end()) remove_locked(entries_.find(old->second));
    const std::uint64_t id = next_id_++;
    for (size_t i = 0; i < entry.fds.size(); ++i) {
        epoll_event ev{};
        ev.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT;  // level-triggered: bytes already there fire at once
        ev.data.u64 = id;
        if (::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, entry.fds[i], &ev) != 0) {
            const int error = errno;
            for (size_t j = 0; j < i; ++j) ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, entry.fds[j], nullptr);
            fail("epoll_ctl", error);
        }
    }
    entries_.emplace(id, std::move(entry));
    by_owner_[owner] = id;
    if (deadline != Clock::time_point::max()) rearm_->signal();  // the thread computes its wait again
}

std::string IdleWatch::arm_retry(void* owner, Revive revive, std::chrono::milliseconds after) noexcept {
    try {
        arm(owner, {}, revive, Clock::now() + after);
        return "; tried again every " + std::to_string(after.count()) + " ms";
    } catch (const std::exception& e) {
        return std::string("; and no retry can be scheduled: ") + e.what();
    }
}

void IdleWatch::disarm(void* owner) noexcept {
    std::unique_lock lock(mutex_);
    if (auto it = by_owner_.find(owner); it != by_owner_.end()) remove_locked(entries_.find(it->second));
    dispatched_.wait(lock, [&] { return dispatching_ != owner; });
}

void IdleWatch::remove_locked(std::unordered_map<std::uint64_t, Entry>::iterator it) noexcept {
    if (it == entries_.end()) return;
    for (int fd : it->second.fds) ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, fd, nullptr);
    by_owner_.erase(it->second.owner);
    entries_.erase(it);
}

void IdleWatch::run() noexcept {
    name_this_thread(thread_name_);
    epoll_event events[64];
    for (;;) {
        const int n = ::epoll_wait(epoll_.get(), events, 64, wait_ms());
        if (n < 0) {
            if (errno == EINTR) continue;
            return;  // cannot happen with a valid epoll descriptor; armed servers keep their pumps
        }
        for (int i = 0; i < n; ++i) {
            if (events[i].data.u64 == kStopId) return;  // stop_if_unused()
            if (events[i].data.u64 == kRearmId) {
                rearm_->clear();  // wait_ms() below sees the new entry
                continue;
            }
            dispatch(events[i].data.u64);
        }
        dispatch_due();
    }
}

int IdleWatch::wait_ms() noexcept {
    std::lock_guard lock(mutex_);
    auto next = Clock::time_point::max();
    for (const auto& [id, entry] : entries_) next = std::min(next, entry.deadline);
    if (next == Clock::time_point::max()) return -1;
    const auto ms = std::chrono::ceil<std::chrono::milliseconds>(next - Clock::now()).count();
    return static_cast<int>(std::clamp<long long>(ms, 0, 1 << 30));
}

void IdleWatch::dispatch_due() noexcept {
    std::vector<std::uint64_t> due;
    {
        std::lock_guard lock(mutex_);
        const auto now = Clock::now();
        for (const auto& [id, entry] : entries_)
            if (entry.deadline <= now) due.push_back(id);
    }
    for (std::uint64_t id : due) dispatch(id);  // (an entry disarmed meanwhile is skipped there)
}

// The entry is removed before its owner is revived (one revive per arm), and revive runs without
// the mutex: it starts a thread and may report a failure to the host.
void IdleWatch::dispatch(std::uint64_t id) noexcept {
    std::unique_lock lock(mutex_);
    auto it = entries_.find(id);
    if (it == entries_.end()) return;  // disarmed meanwhile, or the other pipe fired first
    void* const owner = it->second.owner;
    const Revive revive = it->second.revive;
    remove_locked(it);
    dispatching_ = owner;
    lock.unlock();
    revive(owner);
    lock.lock();
    dispatching_ = nullptr;
    dispatched_.notify_all();
}

}  // namespace mcph::io
