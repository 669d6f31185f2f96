#include "idle_watch.hpp"

#include "resource_limits.hpp"
#include "thread_name.hpp"

#include <mcph/plugin_helper.hpp>

#include <sys/epoll.h>

#include <cerrno>
#include <system_error>

namespace mcph::stdio {

IdleWatch& IdleWatch::instance() {
    static IdleWatch* const watch = new IdleWatch;  // deliberately never destroyed (see the header)
    return *watch;
}

IdleWatch::IdleWatch() = default;

void IdleWatch::stop_if_unused() noexcept {
    std::lock_guard life(lifecycle_);
    std::thread thread;
    {
        std::lock_guard lock(mutex_);
        if (!entries_.empty() || !thread_.joinable()) return;
        thread = std::move(thread_);
        stop_->signal();
    }
    thread.join();
    std::lock_guard lock(mutex_);
    epoll_.reset();  // the next start makes both again
    stop_.reset();
}

void IdleWatch::start_locked() {
    if (thread_.joinable()) return;
    if (!epoll_) {
        UniqueFd epoll(::epoll_create1(EPOLL_CLOEXEC));
        if (!epoll) throw_system_error(errno, "epoll_create1 for the idle watch");
        std::optional<Wakeup> stop;
        stop.emplace();
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.u64 = 0;  // entry ids start at 1
        if (::epoll_ctl(epoll.get(), EPOLL_CTL_ADD, stop->fd(), &ev) != 0)
            throw_system_error(errno, "epoll_ctl for the idle watch");
        epoll_ = std::move(epoll);
        stop_ = std::move(stop);
    }
    try {
        thread_ = std::thread([this] { run(); });
    } catch (const std::system_error& e) {  // EAGAIN at the thread limit
        throw mcph::plugin::Error(MCPH_ERR_IO, std::string("cannot start the idle watch thread: ") + e.what() +
                                                   limit_hint(e.code().value()));
    }
}

void IdleWatch::arm(void* owner, int stdout_fd, int stderr_fd, Revive revive) {
    std::lock_guard life(lifecycle_);
    std::lock_guard lock(mutex_);
    start_locked();
    if (auto old = by_owner_.find(owner); old != by_owner_.end()) remove_locked(entries_.find(old->second));
    const std::uint64_t id = next_id_++;
    Entry entry{owner, {stdout_fd, stderr_fd}, revive};
    for (int& fd : entry.fds) {
        if (fd < 0) continue;
        epoll_event ev{};
        ev.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT;  // level-triggered: bytes already there fire at once
        ev.data.u64 = id;
        if (::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &ev) != 0) {
            const int error = errno;
            if (&fd != &entry.fds[0] && entry.fds[0] >= 0) ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, entry.fds[0], nullptr);
            throw_system_error(error, "epoll_ctl for the idle watch");
        }
    }
    entries_.emplace(id, entry);
    by_owner_[owner] = id;
}

void IdleWatch::disarm(void* owner) noexcept {
    std::unique_lock lock(mutex_);
    if (auto it = by_owner_.find(owner); it != by_owner_.end()) remove_locked(entries_.find(it->second));
    dispatched_.wait(lock, [&] { return dispatching_ != owner; });
}

void IdleWatch::remove_locked(std::unordered_map<std::uint64_t, Entry>::iterator it) noexcept {
    if (it == entries_.end()) return;
    for (int fd : it->second.fds)
        if (fd >= 0) ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, fd, nullptr);
    by_owner_.erase(it->second.owner);
    entries_.erase(it);
}

void IdleWatch::run() noexcept {
    name_this_thread(kIdleWatchThreadName);
    epoll_event events[64];
    for (;;) {
        const int n = ::epoll_wait(epoll_.get(), events, 64, -1);
        if (n < 0) {
            if (errno == EINTR) continue;
            return;  // cannot happen with a valid epoll descriptor; armed servers keep their pumps
        }
        for (int i = 0; i < n; ++i) {
            if (events[i].data.u64 == 0) return;  // stop_if_unused()
            dispatch(events[i].data.u64);
        }
    }
}

// The entry is removed before its owner is revived (one revive per arm), and revive runs without
// the mutex: it starts a thread and may report a failure to the host.
void IdleWatch::dispatch(std::uint64_t id) noexcept {
    std::unique_lock lock(mutex_);
    auto it = entries_.find(id);
    if (it == entries_.end()) return;  // disarmed meanwhile, or the other pipe fired first
    const Entry entry = it->second;
    remove_locked(it);
    dispatching_ = entry.owner;
    lock.unlock();
    entry.revive(entry.owner);
    lock.lock();
    dispatching_ = nullptr;
    dispatched_.notify_all();
}

}  // namespace mcph::stdio
