// A live transport plugin object, wrapped for C++: owns the plugin's mcph_transport, keeps its
// shared library mapped, and turns the C callbacks into calls on a TransportListener.
#pragma once

#include "plugins/plugin_loader.hpp"
#include "transport/auth_completions.hpp"
#include "transport/transport.hpp"

#include <mcph/plugin_api.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcph::transport {

// A plugin's typed failure as the host holds it: fields outside the plugin's struct_size are left
// default, a category newer than this host becomes OTHER, URLs in the message are redacted.
Failure failure_from_c(const mcph_failure* failure);

class TransportChannel : public Transport {
public:
    // Builds the plugin object from the server's config JSON. Throws mcph::Error(Usage) when the
    // plugin rejects the config, Error(Plugin) on other failures.
    TransportChannel(std::shared_ptr<plugins::LoadedPlugin> plugin, const mcph_host_services* services,
                     const std::string& config_json, TransportListener* listener);
    ~TransportChannel() override;
    TransportChannel(const TransportChannel&) = delete;
    TransportChannel& operator=(const TransportChannel&) = delete;

    void start() override;                        // throws Error(Connection)
    using Transport::send;
    void send(std::string_view message, const MessageFacts* facts) override;  // throws Error(Connection)
    void set_option(std::string_view key, std::string_view value) override;  // unsupported options are ignored
    void cancel(std::string_view request_id) override;
    std::uint32_t traits() const override { return traits_; }
    void close() override;                        // idempotent; no callbacks after it returns
    bool enter_pump() override;
    PumpWait pump_until(const std::function<bool()>& ready, std::chrono::steady_clock::time_point deadline) override;
    void leave_pump() override;

private:
    static void on_message(void* ud, mcph_str message);
    static void on_closed(void* ud, mcph_close_reason reason, mcph_str detail);
    static void on_diagnostic(void* ud, mcph_log_level level, mcph_str message);
    static void on_request_failed(void* ud, mcph_str request_id, const mcph_failure* failure);
    static void on_failure(void* ud, const mcph_failure* failure);
    static void on_closed_ex(void* ud, mcph_close_reason reason, const mcph_failure* failure);
    static void closed_with(TransportListener* listener, mcph_close_reason reason, std::string_view detail);
    bool has_v11(size_t offset) const { return vtable_->struct_size > offset; }
    static mcph_status get_request_headers(void* ud, const mcph_header_sink* sink, mcph_error* err);
    static mcph_status on_auth_challenge(void* ud, int status, mcph_str challenge, mcph_str resource, mcph_error* err);
    // ABI v1.2: the hooks that see the request and may answer MCPH_PENDING.
    static mcph_status get_request_headers_ex(void* ud, const mcph_auth_request* request, const mcph_header_sink* sink,
                                              const mcph_auth_completion* done, mcph_error* err);
    // Runs the blocking auth call on the auth worker, then completes `done`: MCPH_PENDING, or
    // MCPH_ERR_CANCELLED once closing.
    mcph_status hand_off(AuthRequest request, bool challenge, const mcph_auth_completion& done, mcph_error* err);
    static mcph_status on_auth_challenge_ex(void* ud, const mcph_auth_request* request,
                                            const mcph_auth_completion* done, mcph_error* err);

    std::shared_ptr<plugins::LoadedPlugin> plugin_;
    std::shared_ptr<AuthHooks> auth_;  // the listener's, taken once; null: no auth
    // Answers the plugin waits for (v1.2 hooks that said PENDING); completed or cancelled by close().
    std::shared_ptr<AuthCompletions> completions_ = std::make_shared<AuthCompletions>();
    const mcph_transport_vtable_v1* vtable_;
    TransportListener* listener_;
    mcph_transport_callbacks callbacks_;
    mcph_transport* transport_ = nullptr;
    std::uint32_t traits_ = 0;
    std::once_flag closed_;

    // ABI 1.3 pump: one host thread at a time is inside the plugin's pump (pumping_); the other
    // waiters sleep on pump_cv_ and are woken after each round, to find their result or take over.
    // pump_users_ counts threads between enter_pump and leave_pump: the destructor waits for them.
    std::mutex pump_mutex_;
    std::condition_variable pump_cv_;
    bool pumping_ = false;
    int pump_waiters_ = 0;
    int pump_users_ = 0;
    bool pump_closed_ = false;           // close() began: nobody pumps again
    std::atomic<bool> can_pump_{false};  // the plugin has pump and has not said UNSUPPORTED
};

}  // namespace mcph::transport
