// SessionCore, subscriptions/listen (2026 era): one long-lived stream per server for change
// notifications; acknowledged, re-opened after a loss, re-filtered when subscriptions change.
#include "session/session_core.hpp"

#include "session/listen_filter.hpp"
#include "session/request_meta.hpp"
#include "session/session_core_internals.hpp"

namespace mcph::detail {

using namespace core_internal;

// Opens the listen stream for what this server can tell (its listChanged capabilities and the
// application's resource subscriptions). It stays open with no timeout; its end, a missing
// acknowledgment or a lost connection are handled by the callbacks below.
void SessionCore::start_listen() {
    const auto f = facts();
    if (f->era != session::Era::Modern || closing_ || !connected_ || !engine_) return;
    session::ListenFilter filter;
    std::uint64_t generation = 0;
    {
        std::lock_guard lock(listen_mutex_);
        filter = session::wanted_filter(f->capabilities, resource_subscriptions_);
        generation = ++listen_generation_;
        listen_id_ = -1;
        listen_acked_ = false;
        listen_asked_ = filter;
        listen_state_ = filter.empty() ? "none" : "pending";
    }
    if (filter.empty()) return;
    Json params(rapidjson::kObjectType);
    params.AddMember("notifications", JsonValue(filter.to_json(), params.GetAllocator()), params.GetAllocator());
    session::RequestMeta meta;
    meta.protocol_version = f->protocol_version;
    meta.capabilities = &client_capabilities_;
    meta.client_info = &client_info_json_;
    session::add_request_meta(params, meta);
    jsonrpc::RequestSettings settings;
    settings.long_lived = true;
    settings.facts.protocol_version = f->protocol_version;
    settings.facts.flags = MCPH_MESSAGE_LISTEN_STREAM;
    std::weak_ptr<SessionCore> weak = weak_from_this();
    // Held across the send: the acknowledgment may arrive (on the transport thread) before the id
    // is stored, and must then wait for it. The completion never takes this lock in place.
    std::lock_guard lock(listen_mutex_);
    listen_id_ = engine_->start_request_async(
        "subscriptions/listen", std::move(params), std::move(settings), [weak, generation](Json, const Error* error) {
            auto self = weak.lock();
            if (!self) return;
            std::optional<Error> copy;
            if (error) copy = *error;
            self->runtime_.post([weak, generation, copy] {
                if (auto s = weak.lock()) s->on_listen_ended(generation, copy ? &*copy : nullptr);
            });
        });
    after(listen_ack_wait_, [generation](SessionCore& self) { self.on_listen_ack_overdue(generation); });
}

// The application's subscriptions changed: the stream is opened again with the new filter.
void SessionCore::restart_listen() {
    std::int64_t old_id = -1;
    {
        std::lock_guard lock(listen_mutex_);
        old_id = listen_id_;
        ++listen_generation_;  // the old stream's end is not a loss
        listen_id_ = -1;
    }
    if (old_id >= 0 && engine_) engine_->cancel(old_id, "subscriptions changed");
    start_listen();
}

void SessionCore::on_listen_acknowledged(const JsonValue& params) {
    static const JsonValue kNone(rapidjson::kObjectType);
    const JsonValue* granted_json = json::object_member(params, "notifications");
    const session::ListenFilter granted = session::ListenFilter::from_json(granted_json ? *granted_json : kNone);
    bool refresh = false;
    std::vector<std::string> missing;
    {
        std::lock_guard lock(listen_mutex_);
        listen_acked_ = true;
        listen_failures_ = 0;
        listen_granted_ = granted;
        listen_state_ = "acknowledged";
        missing = session::not_granted(listen_asked_, granted);
        refresh = std::exchange(listen_was_lost_, false);
    }
    for (const auto& what : missing) log(LogLevel::Info, "the server does not send " + what + " on its listen stream");
    if (refresh) {
        // Changes made while no stream was open went unannounced: list again, once.
        std::weak_ptr<SessionCore> weak = weak_from_this();
        runtime_.run_background([weak] {
            if (auto self = weak.lock())
                for (const char* which : {"tools", "resources", "prompts"})
                    if (self->has_capability(which)) self->schedule_refresh(which);
        });
    }
}

void SessionCore::on_listen_ack_overdue(std::uint64_t generation) {
    std::int64_t id = -1;
    {
        std::lock_guard lock(listen_mutex_);
        if (generation != listen_generation_ || listen_acked_ || listen_id_ < 0) return;
        id = listen_id_;
    }
    log(LogLevel::Warn, "the server did not acknowledge subscriptions/listen within " +
                            std::to_string(listen_ack_wait_.count()) +
                            " ms; list changes may go unseen until it does (listening again later)");
    if (engine_) engine_->cancel(id, "not acknowledged");  // its end schedules the next attempt
}

// The stream ended: the server closed it gracefully, it broke, or the connection went. While the
// connection lasts the client listens again, later and later if it keeps ending.
void SessionCore::on_listen_ended(std::uint64_t generation, const Error* error) {
    {
        std::lock_guard lock(listen_mutex_);
        if (generation != listen_generation_) return;  // replaced on purpose
        listen_id_ = -1;
        listen_was_lost_ = true;
        ++listen_failures_;
        listen_state_ = "retrying";
    }
    if (closing_ || !connected_ || !modern()) return;
    log(error ? LogLevel::Warn : LogLevel::Info,
        std::string("the listen stream ended") + (error ? std::string(": ") + error->what() : " (the server closed it)") +
            "; listening again");
    schedule_relisten(generation);
}

void SessionCore::schedule_relisten(std::uint64_t generation) {
    int failures = 0;
    {
        std::lock_guard lock(listen_mutex_);
        failures = listen_failures_;
    }
    after(session::relisten_delay(failures), [generation](SessionCore& self) {
        {
            std::lock_guard lock(self.listen_mutex_);
            if (generation != self.listen_generation_ || self.listen_id_ >= 0) return;
        }
        self.start_listen();
    });
}

// Runs `work` on the event loop after `delay`, if the session still exists then.
void SessionCore::after(std::chrono::milliseconds delay, std::function<void(SessionCore&)> work) {
    auto timer = std::make_shared<boost::asio::steady_timer>(runtime_.loop(), delay);
    std::weak_ptr<SessionCore> weak = weak_from_this();
    timer->async_wait([weak, timer, work = std::move(work)](const boost::system::error_code& ec) {
        if (ec) return;
        if (auto self = weak.lock()) work(*self);
    });
}

void SessionCore::subscribe_resource(const std::string& uri) {
    if (!modern()) {
        call("resources/subscribe", object_with("uri", uri));
        return;
    }
    {
        std::lock_guard lock(listen_mutex_);
        if (!resource_subscriptions_.insert(uri).second) return;
    }
    restart_listen();
}

void SessionCore::unsubscribe_resource(const std::string& uri) {
    if (!modern()) {
        call("resources/unsubscribe", object_with("uri", uri));
        return;
    }
    {
        std::lock_guard lock(listen_mutex_);
        if (!resource_subscriptions_.erase(uri)) return;
    }
    restart_listen();
}

Json SessionCore::listen_status() const {
    Json out;
    if (!modern()) return out;
    out.SetObject();
    auto& a = out.GetAllocator();
    std::lock_guard lock(listen_mutex_);
    out.AddMember("state", json::string_value(listen_state_, a), a);
    if (listen_acked_) out.AddMember("notifications", JsonValue(listen_granted_.to_json(), a), a);
    return out;
}

}  // namespace mcph::detail
