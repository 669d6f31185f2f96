#include "transport/transport_channel.hpp"
#include "url/redact.hpp"

#include <mcph/error.hpp>
#include <mcph/plugin_helper.hpp>

#include <cstring>

namespace mcph::transport {
namespace {

using mcph::plugin::make_error;
using mcph::plugin::str;
using mcph::plugin::view;

TransportListener* listener_of(void* ud) { return static_cast<TransportListener*>(ud); }

}  // namespace

TransportChannel::TransportChannel(std::shared_ptr<plugins::LoadedPlugin> plugin, const mcph_host_services* services,
                                   const std::string& config_json, TransportListener* listener)
    : plugin_(std::move(plugin)), vtable_(plugin_->transport()), listener_(listener) {
    std::memset(&callbacks_, 0, sizeof callbacks_);
    callbacks_.struct_size = sizeof callbacks_;
    callbacks_.user_data = listener_;
    callbacks_.on_message = &TransportChannel::on_message;
    callbacks_.on_closed = &TransportChannel::on_closed;
    callbacks_.on_diagnostic = &TransportChannel::on_diagnostic;
    callbacks_.get_request_headers = &TransportChannel::get_request_headers;
    callbacks_.on_auth_challenge = &TransportChannel::on_auth_challenge;

    mcph_error err = make_error();
    mcph_status status = vtable_->create(services, str(config_json), &callbacks_, &transport_, &err);
    if (status != MCPH_OK || !transport_) {
        transport_ = nullptr;
        const std::string plugin_name = plugin_->descriptor().name ? plugin_->descriptor().name : "?";
        // Only INVALID_ARGUMENT is the config's fault; an I/O failure (e.g. no descriptor left:
        // the message names the limit) is the connection's, and anything else the plugin's.
        if (status == MCPH_ERR_INVALID_ARGUMENT)
            throw Error(ErrorKind::Usage, "invalid transport config (" + plugin_name + "): " + err.message);
        throw Error(status == MCPH_ERR_IO ? ErrorKind::Connection : ErrorKind::Plugin,
                    "cannot create the transport (" + plugin_name + "): " + err.message);
    }
}

TransportChannel::~TransportChannel() {
    if (!transport_) return;
    close();
    vtable_->destroy(transport_);
}

void TransportChannel::start() {
    mcph_error err = make_error();
    if (vtable_->start(transport_, &err) != MCPH_OK) throw Error(ErrorKind::Connection, err.message);
}

void TransportChannel::send(std::string_view message) {
    mcph_error err = make_error();
    mcph_status status = vtable_->send(transport_, str(message), &err);
    if (status == MCPH_OK) return;
    throw Error(status == MCPH_ERR_INVALID_ARGUMENT ? ErrorKind::Usage : ErrorKind::Connection,
                std::string("send failed: ") + (err.message[0] ? err.message : "transport closed"));
}

void TransportChannel::set_option(std::string_view key, std::string_view value) {
    if (!vtable_->set_option) return;
    mcph_error err = make_error();
    vtable_->set_option(transport_, str(key), str(value), &err);
}

void TransportChannel::close() {
    std::call_once(closed_, [this] { vtable_->close(transport_); });
}

void TransportChannel::on_message(void* ud, mcph_str message) { listener_of(ud)->on_transport_message(view(message)); }

// A transport's texts name the endpoint it failed on; the URL may carry a key (url/redact.hpp).
void TransportChannel::on_closed(void* ud, mcph_close_reason reason, mcph_str detail) {
    listener_of(ud)->on_transport_closed(reason, url::redact_urls_in_text(view(detail)));
}

void TransportChannel::on_diagnostic(void* ud, mcph_log_level level, mcph_str message) {
    listener_of(ud)->on_transport_diagnostic(level, url::redact_urls_in_text(view(message)));
}

mcph_status TransportChannel::get_request_headers(void* ud, const mcph_header_sink* sink, mcph_error* err) {
    return mcph::plugin::guarded(err, [&] {
        for (const auto& [name, value] : listener_of(ud)->request_headers())
            sink->add(sink->user_data, str(name), str(value));
    });
}

mcph_status TransportChannel::on_auth_challenge(void* ud, int status, mcph_str challenge, mcph_str /*resource*/,
                                                mcph_error* err) {
    bool retry = false;
    mcph_status st = mcph::plugin::guarded(err, [&] { retry = listener_of(ud)->auth_challenge(status, view(challenge)); });
    if (st != MCPH_OK) return st;
    return retry ? MCPH_OK : MCPH_ERR_AUTH;
}

}  // namespace mcph::transport
