// SessionCore, what a server sends unasked: server→client requests (2025 era; answered through the
// ClientRequestRouter) and notifications (list changes, resource updates, logs).
#include "session/session_core.hpp"

#include "session/listen_filter.hpp"
#include "session/session_core_internals.hpp"

namespace mcph::detail {

using namespace core_internal;

void SessionCore::on_server_request(const std::string& method, Json params, std::shared_ptr<jsonrpc::Responder> responder) {
    // The engine bounds how many of these are in flight; on top, prompts that reach the application
    // (a person or a model) are rate-limited, refused at once when the server asks too fast.
    std::string why;
    if (!client_requests_.take_prompt(method, &why)) {
        responder->error(session::kPromptRateLimitedCode, why);
        return;
    }
    // Application callbacks may block (a person answering a form): run them on the callback pool
    // so this transport thread keeps reading and the timer loop keeps ticking.
    auto shared_params = std::make_shared<Json>(std::move(params));
    std::weak_ptr<SessionCore> weak = weak_from_this();
    runtime_.run_callback([weak, method, shared_params, responder] {
        auto self = weak.lock();
        if (!self) return;
        try {
            self->answer_server_request(method, *shared_params, *responder);
        } catch (const Error& e) {
            responder->error(e.kind() == ErrorKind::Remote ? e.code() : -32603, e.what());
        } catch (const std::exception& e) {
            responder->error(-32603, std::string("client callback failed: ") + e.what());
        }
    });
}

void SessionCore::answer_server_request(const std::string& method, const Json& params, jsonrpc::Responder& responder) {
    responder.result(client_requests_.answer_taken(method, params));  // the budget was taken on arrival
}

void SessionCore::on_server_notification(const std::string& method, const JsonValue& params) {
    const ClientCallbacks& cb = settings_.callbacks;
    cache_->evict_for_notification(cache_identity_, method, &params);  // before any refresh reads it
    // Modern era: change notifications come only on our listen stream, tagged with its id; one
    // that names another (or no) subscription is not ours to act on.
    if (session::is_subscription_notification(method) && modern()) {
        std::int64_t current = -1;
        {
            std::lock_guard lock(listen_mutex_);
            current = listen_id_;
        }
        if (current < 0 || !session::names_subscription(params, current)) {
            log(LogLevel::Debug, "ignored " + method + " that names no open subscription of ours");
            return;
        }
        if (method == "notifications/subscriptions/acknowledged") {
            on_listen_acknowledged(params);
            return;
        }
    }
    if (method == "notifications/tools/list_changed") schedule_refresh("tools");
    else if (method == "notifications/resources/list_changed") schedule_refresh("resources");
    else if (method == "notifications/prompts/list_changed") schedule_refresh("prompts");
    else if (method == "notifications/resources/updated") {
        if (cb.on_resource_updated) cb.on_resource_updated(settings_.server_name, json::string_or(params, "uri"));
    } else if (method == "notifications/message") {
        static const JsonValue kNull;
        const JsonValue* data = json::member(params, "data");
        if (cb.on_log)
            cb.on_log(settings_.server_name, json::string_or(params, "level", "info"), json::string_or(params, "logger"),
                      data ? *data : kNull);
        else
            log(LogLevel::Debug, "server log: " + (data ? to_json(*data) : std::string()));
    } else {
        log(LogLevel::Debug, "ignored notification " + method);
    }
}

}  // namespace mcph::detail
