#include "auth/auth_session.hpp"

#include <mcph/error.hpp>
#include <mcph/plugin_helper.hpp>

namespace mcph::auth {
namespace {

using mcph::plugin::make_error;
using mcph::plugin::str;
using mcph::plugin::view;

}  // namespace

AuthSession::AuthSession(std::shared_ptr<plugins::LoadedPlugin> plugin, const mcph_host_services* services,
                         const std::string& server_name, const std::string& server_url, const std::string& config_json)
    : plugin_(std::move(plugin)), vtable_(plugin_->auth()), backend_(vtable_->backend_name ? vtable_->backend_name : "") {
    mcph_error err = make_error();
    mcph_status status =
        vtable_->create(services, str(server_name), str(server_url), str(config_json), &auth_, &err);
    if (status != MCPH_OK || !auth_) {
        auth_ = nullptr;
        throw Error(status == MCPH_ERR_INVALID_ARGUMENT ? ErrorKind::Usage : ErrorKind::Plugin,
                    "server '" + server_name + "': auth backend '" + backend_ + "' refused its config: " + err.message);
    }
}

AuthSession::~AuthSession() {
    if (auth_) vtable_->destroy(auth_);
}

std::vector<std::pair<std::string, std::string>> AuthSession::headers() {
    std::vector<std::pair<std::string, std::string>> out;
    mcph_header_sink sink{sizeof(mcph_header_sink), &out, [](void* ud, mcph_str n, mcph_str v) {
                              static_cast<decltype(out)*>(ud)->emplace_back(std::string(view(n)), std::string(view(v)));
                          }};
    mcph_error err = make_error();
    if (vtable_->get_headers(auth_, &sink, &err) != MCPH_OK)
        throw Error(ErrorKind::Connection, std::string("auth (") + backend_ + "): " + err.message);
    return out;
}

bool AuthSession::handle_challenge(int http_status, const std::string& www_authenticate, std::string* reason) {
    if (!vtable_->handle_challenge) return false;
    mcph_error err = make_error();
    if (vtable_->handle_challenge(auth_, http_status, str(www_authenticate), &err) == MCPH_OK) return true;
    if (reason) *reason = err.message;
    return false;
}

void AuthSession::login() {
    if (!vtable_->login) throw Error(ErrorKind::Usage, "auth backend '" + backend_ + "' has no interactive login");
    mcph_error err = make_error();
    if (vtable_->login(auth_, &err) != MCPH_OK) throw Error(ErrorKind::Connection, std::string("login failed: ") + err.message);
}

void AuthSession::logout() {
    if (!vtable_->logout) return;
    mcph_error err = make_error();
    if (vtable_->logout(auth_, &err) != MCPH_OK) throw Error(ErrorKind::Connection, std::string("logout failed: ") + err.message);
}

std::string AuthSession::describe() {
    if (!vtable_->describe) return "{}";
    std::string out = "{}";
    mcph_string_sink sink{sizeof(mcph_string_sink), &out,
                          [](void* ud, mcph_str v) { *static_cast<std::string*>(ud) = std::string(view(v)); }};
    mcph_error err = make_error();
    if (vtable_->describe(auth_, &sink, &err) != MCPH_OK) return "{}";
    return out;
}

}  // namespace mcph::auth
