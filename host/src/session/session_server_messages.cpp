// SessionCore, what a server sends unasked: server→client requests (2025 era; answered through the
// ClientRequestRouter) and notifications (list changes, resource updates, logs).
#include "session/session_core.hpp"

#include "session/listen_filter.hpp"
#include "session/session_core_internals.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

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
    const bool roots = method == "roots/list";
    if (roots) count_roots_request(false);
    runtime_.run_callback([weak, method, shared_params, responder, roots] {
        auto self = weak.lock();
        if (!self) return;
        try {
            self->answer_server_request(method, *shared_params, *responder);
        } catch (const Error& e) {
            responder->error(e.kind() == ErrorKind::Remote ? e.code() : -32603, e.what());
        } catch (const std::exception& e) {
            responder->error(-32603, std::string("client callback failed: ") + e.what());
        }
        if (roots) self->count_roots_request(true);
    });
}

void SessionCore::count_roots_request(bool answered) {
    {
        std::lock_guard lock(roots_mutex_);
        ++(answered ? roots_answered_ : roots_asked_);
    }
    if (answered) roots_cv_.notify_all();
}

// A server that asks roots/list while it is being set up may apply the answer asynchronously —
// server-filesystem asks right after `initialized`, then resolves each root (realpath, stat on
// Node's thread pool) before it replaces its folders — so a first tool call sent on the heels of
// the answer is served with the old folders (issue #14: "a race on the first call"). Nothing on the
// wire says when a server has applied its roots, and a ping behind the answer is not enough either
// (measured: a third of the calls still saw the old folders; four pings, one in fifteen; a 50 ms
// wait, one in 25 with the machine loaded). So once every roots/list asked during the connect is
// answered, a ping makes the round trip behind the answer and the connect waits a grace of twenty
// such round trips, at least kRootsGraceMin and at most kRootsGraceMax (a loaded machine's slower
// round trip lengthens it). This narrows the race to a server stalled longer than that; it cannot
// close it, since only the server knows when it is done. Only servers that ask
// for roots while connecting pay it; the callback and the ping are bounded by kRootsSettle each,
// and a server that misses them is connected as it is.
void SessionCore::settle_roots() {
    constexpr std::chrono::milliseconds kRootsSettle{2000};
    constexpr std::chrono::milliseconds kRootsGraceMin{100};
    constexpr std::chrono::milliseconds kRootsGraceMax{1000};
    const auto bound = std::min(settings_.connect_timeout, kRootsSettle);
    {
        std::unique_lock lock(roots_mutex_);
        if (roots_asked_ == 0) return;
        if (!roots_cv_.wait_for(lock, bound, [this] { return roots_answered_ >= roots_asked_; })) {
            log(LogLevel::Debug, "roots/list not answered within " + std::to_string(bound.count()) + " ms of connecting");
            return;
        }
    }
    RequestOptions options;
    options.timeout = bound;
    const auto sent = std::chrono::steady_clock::now();
    try {
        call("ping", Json(), options);
    } catch (const Error& e) {
        log(LogLevel::Debug, std::string("ping after the roots answer: ") + e.what());  // its answer is all we wait for
    }
    const auto round_trip = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - sent);
    std::this_thread::sleep_for(std::clamp(round_trip * 20, kRootsGraceMin, kRootsGraceMax));
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
