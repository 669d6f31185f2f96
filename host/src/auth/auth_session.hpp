// The auth state of one server: an object of the auth plugin its config names, wrapped for C++.
// Transports ask it for headers before each request and report 401/403 challenges to it, through
// the session; which plugin answers is purely a matter of config.
#pragma once

#include "plugins/plugin_loader.hpp"

#include <mcph/plugin_api.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mcph::auth {

class AuthSession {
public:
    // Throws mcph::Error(Usage) when the plugin rejects the config, Error(Plugin) otherwise.
    AuthSession(std::shared_ptr<plugins::LoadedPlugin> plugin, const mcph_host_services* services,
                const std::string& server_name, const std::string& server_url, const std::string& config_json);
    ~AuthSession();
    AuthSession(const AuthSession&) = delete;
    AuthSession& operator=(const AuthSession&) = delete;

    const std::string& backend() const { return backend_; }
    // Headers for the next request. Throws Error(Connection) with the plugin's reason.
    std::vector<std::pair<std::string, std::string>> headers();
    // True when credentials were refreshed and the request should be retried once.
    bool handle_challenge(int http_status, const std::string& www_authenticate, std::string* reason);
    void login();   // throws Error(Connection)
    void logout();  // throws Error(Connection)
    std::string describe();  // JSON, never secrets; "{}" when the plugin says nothing

private:
    std::shared_ptr<plugins::LoadedPlugin> plugin_;
    const mcph_auth_vtable_v1* vtable_;
    mcph_auth* auth_ = nullptr;
    std::string backend_;
};

}  // namespace mcph::auth
