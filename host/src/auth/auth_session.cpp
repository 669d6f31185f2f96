#include "auth/auth_session.hpp"

#include <mcph/error.hpp>
#include <mcph/plugin_helper.hpp>

#include <cstddef>
#include <cstdio>
#include <vector>

namespace mcph::auth {
namespace {

using mcph::plugin::make_error;
using mcph::plugin::str;
using mcph::plugin::view;

using mcph::plugin::auth_request_to_c;

mcph_header_sink sink_into(transport::HeaderList* out) {
    return mcph_header_sink{sizeof(mcph_header_sink), out, [](void* ud, mcph_str n, mcph_str v) {
                                static_cast<transport::HeaderList*>(ud)->emplace_back(std::string(view(n)),
                                                                                      std::string(view(v)));
                            }};
}

}  // namespace

AuthSession::AuthSession(std::shared_ptr<plugins::LoadedPlugin> plugin, std::shared_ptr<plugins::HostServices> services,
                         const std::string& server_name, const std::string& server_url, const std::string& config_json)
    : services_(std::move(services)), plugin_(std::move(plugin)), vtable_(plugin_->auth()),
      backend_(vtable_->backend_name ? vtable_->backend_name : "") {
    mcph_error err = make_error();
    mcph_status status =
        vtable_->create(services_->table(), str(server_name), str(server_url), str(config_json), &auth_, &err);
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

mcph_status AuthSession::headers(const transport::AuthRequest& request, bool nonblocking, transport::HeaderList* out,
                                 std::string* reason) {
    transport::HeaderList got;
    mcph_header_sink sink = sink_into(&got);
    mcph_error err = make_error();
    mcph_status status;
    // A request without a method comes from an ABI 1.0/1.1 transport, which does not say what it
    // sends: the 1.0 call then, never a proof bound to nothing (DPoP).
    const bool described = !request.method.empty();
    if (described && has_v12(offsetof(mcph_auth_vtable_v1, get_headers_ex)) && vtable_->get_headers_ex) {
        std::vector<mcph_header> storage;
        const mcph_auth_request c = auth_request_to_c(request, storage);
        status = vtable_->get_headers_ex(auth_, &c, nonblocking ? MCPH_AUTH_NONBLOCKING : 0u, &sink, &err);
    } else if (nonblocking) {
        return MCPH_PENDING;  // a 1.0 get_headers may refresh on the network
    } else {
        status = vtable_->get_headers(auth_, &sink, &err);
    }
    if (status == MCPH_PENDING && !nonblocking) {
        status = MCPH_ERR_INTERNAL;  // only the non-blocking call may defer
        std::snprintf(err.message, sizeof err.message, "the auth plugin answered 'pending' to a blocking call");
    }
    if (status == MCPH_OK) {
        *out = std::move(got);
    } else if (status != MCPH_PENDING && reason) {
        *reason = std::string("auth (") + backend_ + "): " + err.message;
    }
    return status;
}

mcph_status AuthSession::challenge(const transport::AuthRequest& request, std::string* reason) {
    mcph_error err = make_error();
    mcph_status status;
    if (!request.method.empty() && has_v12(offsetof(mcph_auth_vtable_v1, handle_challenge_ex)) &&
        vtable_->handle_challenge_ex) {
        std::vector<mcph_header> storage;
        const mcph_auth_request c = auth_request_to_c(request, storage);
        status = vtable_->handle_challenge_ex(auth_, &c, &err);
    } else if (vtable_->handle_challenge) {
        status = vtable_->handle_challenge(auth_, request.http_status, str(request.www_authenticate), &err);
    } else {
        return MCPH_ERR_AUTH;
    }
    if (status == MCPH_PENDING) status = MCPH_ERR_INTERNAL;  // not an asynchronous call
    if (status != MCPH_OK && reason) *reason = err.message[0] ? err.message : "no credentials";
    return status;
}

void AuthSession::cancel() noexcept {
    if (has_v12(offsetof(mcph_auth_vtable_v1, cancel)) && vtable_->cancel) vtable_->cancel(auth_);
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
