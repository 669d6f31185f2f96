#include "transport/auth_completions.hpp"

#include <mcph/plugin_helper.hpp>

#include <vector>

namespace mcph::transport {

std::uint64_t AuthCompletions::add(const mcph_auth_completion& done) {
    std::lock_guard lock(mutex_);
    if (closed_) return 0;
    const std::uint64_t id = next_++;
    waiting_.emplace(id, done);
    return id;
}

bool AuthCompletions::waiting(std::uint64_t id) {
    std::lock_guard lock(mutex_);
    return waiting_.count(id) > 0;
}

void AuthCompletions::forget(std::uint64_t id) {
    std::lock_guard lock(mutex_);
    waiting_.erase(id);
}

// The plugin's completion runs outside the lock (it may ask for headers again from inside), and
// `calling_` lets close() wait for it: ABI v1.2 promises none runs after close has returned.
void AuthCompletions::complete(std::uint64_t id, mcph_status status, const HeaderList& headers,
                               const std::string& reason) {
    mcph_auth_completion done{};
    {
        std::lock_guard lock(mutex_);
        auto it = waiting_.find(id);
        if (it == waiting_.end()) return;
        done = it->second;
        waiting_.erase(it);
        ++calling_;
    }
    call(done, status, headers, reason);
    std::lock_guard lock(mutex_);
    if (--calling_ == 0) idle_.notify_all();
}

std::size_t AuthCompletions::close() {
    std::unordered_map<std::uint64_t, mcph_auth_completion> cancelled;
    {
        std::lock_guard lock(mutex_);
        closed_ = true;
        cancelled.swap(waiting_);
    }
    for (const auto& [id, done] : cancelled) call(done, MCPH_ERR_CANCELLED, {}, "the transport is closing");
    std::unique_lock lock(mutex_);
    idle_.wait(lock, [&] { return calling_ == 0; });
    return cancelled.size();
}

void AuthCompletions::call(const mcph_auth_completion& done, mcph_status status, const HeaderList& headers,
                           const std::string& reason) noexcept {
    if (done.struct_size < sizeof(mcph_auth_completion) || !done.complete) return;
    std::vector<mcph_header> c;
    try {
        c.reserve(headers.size());
        for (const auto& [name, value] : headers) c.push_back({mcph::plugin::str(name), mcph::plugin::str(value)});
    } catch (...) {
        // Out of memory building the header array: the plugin still gets its one answer.
        done.complete(done.user_data, MCPH_ERR_INTERNAL, nullptr, 0, nullptr);
        return;
    }
    mcph_error err = mcph::plugin::make_error();
    if (status != MCPH_OK) mcph::plugin::fill_error(&err, status, reason);
    done.complete(done.user_data, status, c.empty() ? nullptr : c.data(), c.size(), status == MCPH_OK ? nullptr : &err);
}

}  // namespace mcph::transport
