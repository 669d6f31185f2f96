// The auth state of one server: an object of the auth plugin its config names, wrapped for C++.
// Transports ask it for headers before each request and report 401/403 challenges to it, through
// the session; which plugin answers is purely a matter of config.
#pragma once

#include "auth/auth_worker.hpp"
#include "plugins/host_services.hpp"
#include "plugins/plugin_loader.hpp"
#include "transport/transport.hpp"

#include <mcph/plugin_api.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mcph::auth {

// The transports' hooks reach it as transport::AuthHooks (ABI v1.2: with the request, and
// off their I/O thread through its worker).
class AuthSession : public transport::AuthHooks {
public:
    // Throws mcph::Error(Usage) when the plugin rejects the config, Error(Plugin) otherwise.
    // `services` is kept alive with the session: a sign-in still running on the auth worker when
    // the host goes away may log or store a token when it ends.
    AuthSession(std::shared_ptr<plugins::LoadedPlugin> plugin, std::shared_ptr<plugins::HostServices> services,
                const std::string& server_name, const std::string& server_url, const std::string& config_json);
    ~AuthSession() override;
    AuthSession(const AuthSession&) = delete;
    AuthSession& operator=(const AuthSession&) = delete;

    const std::string& backend() const { return backend_; }
    // Headers for the next request. Throws Error(Connection) with the plugin's reason.
    std::vector<std::pair<std::string, std::string>> headers();
    // transport::AuthHooks: get_headers_ex / handle_challenge_ex when the plugin has them (ABI
    // v1.2), else the 1.0 calls (which may block: non-blocking then always answers PENDING).
    mcph_status headers(const transport::AuthRequest& request, bool nonblocking, transport::HeaderList* out,
                        std::string* reason) override;
    mcph_status challenge(const transport::AuthRequest& request, std::string* reason) override;
    void run_blocking(std::function<void()> job) override { worker_.post(std::move(job)); }
    void cancel() noexcept override;
    void login();   // throws Error(Connection)
    void logout();  // throws Error(Connection)
    std::string describe();  // JSON, never secrets; "{}" when the plugin says nothing

private:
    // Declared first, destroyed last: the plugin's table must outlive its shutdown.
    std::shared_ptr<plugins::HostServices> services_;
    std::shared_ptr<plugins::LoadedPlugin> plugin_;
    const mcph_auth_vtable_v1* vtable_;
    mcph_auth* auth_ = nullptr;
    std::string backend_;
    bool has_v12(size_t offset) const { return vtable_->struct_size > offset; }
    AuthWorker worker_;  // last member: destroyed first, never waits for a job
};

}  // namespace mcph::auth
