#include "transport/transport_channel.hpp"
#include "url/redact.hpp"

#include <mcph/error.hpp>
#include <mcph/plugin_helper.hpp>

#include <cstddef>
#include <cstring>
#include <vector>

namespace mcph::transport {
namespace {

using mcph::plugin::make_error;
using mcph::plugin::str;
using mcph::plugin::view;

// The callbacks' user_data is the channel itself: it holds the listener and the auth hooks.
TransportChannel* channel_of(void* ud) { return static_cast<TransportChannel*>(ud); }

// A plugin's mcph_auth_request, owned (fields outside its struct_size stay empty).
AuthRequest auth_request_from(const mcph_auth_request* request) {
    const mcph::plugin::AuthRequest v = mcph::plugin::auth_request_from_c(request);
    AuthRequest out{std::string(v.method), std::string(v.url), v.http_status, std::string(v.www_authenticate), {}};
    for (const auto& [name, value] : v.response_headers) out.response_headers.emplace_back(name, value);
    return out;
}

// How deep this thread is in the plugin's callbacks. A wait started from inside one (a handler
// making a blocking call) must not pump: the thread already holds the read role, or is the
// plugin's own reader.
thread_local int t_callback_depth = 0;

struct InCallback {
    InCallback() noexcept { ++t_callback_depth; }
    ~InCallback() { --t_callback_depth; }
    InCallback(const InCallback&) = delete;
    InCallback& operator=(const InCallback&) = delete;
};

// The longest single pump: a result completed by another thread (the deadline timer's Timeout, a
// cancel, fail_all) does not wake a caller sleeping in the plugin's poll, so this bounds how late
// such a caller notices (the old timeout poll had the same 20 ms grain). A reply from the server
// ends the pump at once, whatever the slice.
constexpr auto kPumpSlice = std::chrono::milliseconds(20);

// Every host callback a plugin thread enters runs under this: no exception may unwind into the
// plugin's C frames (that is undefined, and in practice std::terminate). What was thrown is said
// as a diagnostic (itself shielded), so a broken listener shows up in the log rather than as a crash.
template <class Fn>
void shielded(TransportListener* listener, const char* callback, Fn&& fn) noexcept {
    const InCallback in_callback;
    try {
        fn();
        return;
    } catch (const std::exception& e) {
        try {
            listener->on_transport_diagnostic(MCPH_LOG_ERROR, std::string("internal error in the host's ") + callback +
                                                                  " callback: " + e.what());
        } catch (...) {
        }
    } catch (...) {
        try {
            listener->on_transport_diagnostic(MCPH_LOG_ERROR, std::string("internal error in the host's ") + callback +
                                                                  " callback");
        } catch (...) {
        }
    }
}

void add_all(const mcph_header_sink* sink, const HeaderList& headers) {
    for (const auto& [name, value] : headers) sink->add(sink->user_data, str(name), str(value));
}

// A category this host does not know (a newer plugin's) is OTHER. It is read as the integer the C
// side wrote: in C++ an enum object holding a value outside the enum's range is undefined.
mcph_failure_category category_from_c(const mcph_failure* f) {
    int raw = 0;
    static_assert(sizeof(raw) == sizeof(f->category));
    std::memcpy(&raw, &f->category, sizeof raw);
    return raw >= MCPH_FAILURE_OTHER && raw <= MCPH_FAILURE_PROCESS_EXITED ? static_cast<mcph_failure_category>(raw)
                                                                          : MCPH_FAILURE_OTHER;
}

// A plugin's texts name the endpoint they failed on; the URL may carry a key (url/redact.hpp).
Failure from_c(const mcph_failure* f) {
    Failure out;
    if (!f) return out;
    auto has = [f](size_t offset) { return f->struct_size > offset; };
    if (has(offsetof(mcph_failure, category))) out.category = category_from_c(f);
    if (has(offsetof(mcph_failure, os_error))) out.os_error = f->os_error;
    if (has(offsetof(mcph_failure, http_status))) out.http_status = f->http_status;
    if (has(offsetof(mcph_failure, message))) out.message = url::redact_urls_in_text(view(f->message));
    if (has(offsetof(mcph_failure, stderr_tail))) out.stderr_tail = std::string(view(f->stderr_tail));
    if (has(offsetof(mcph_failure, body))) out.body = std::string(view(f->body));
    return out;
}

// An ABI 1.0 plugin declares no traits. Its type is then the only evidence there is: a remote
// transport may lose its session, stdio cannot; "sse" speaks only the 2024-11-05 generation.
std::uint32_t traits_of_v10_plugin(const mcph_transport_vtable_v1* vtable) {
    std::uint32_t traits = MCPH_TRAIT_SESSION_CAN_EXPIRE;
    for (const char* const* type = vtable->config_types; type && *type; ++type) {
        const std::string_view t(*type);
        if (t == "stdio") traits &= ~MCPH_TRAIT_SESSION_CAN_EXPIRE;
        if (t == "sse" || t == "sse-ide") traits |= MCPH_TRAIT_LEGACY_ONLY;
    }
    return traits;
}

}  // namespace

Failure failure_from_c(const mcph_failure* failure) { return from_c(failure); }

TransportChannel::TransportChannel(std::shared_ptr<plugins::LoadedPlugin> plugin, const mcph_host_services* services,
                                   const std::string& config_json, TransportListener* listener)
    : plugin_(std::move(plugin)), vtable_(plugin_->transport()), listener_(listener) {
    std::memset(&callbacks_, 0, sizeof callbacks_);
    callbacks_.struct_size = sizeof callbacks_;
    callbacks_.user_data = this;
    callbacks_.on_message = &TransportChannel::on_message;
    callbacks_.on_closed = &TransportChannel::on_closed;
    callbacks_.on_diagnostic = &TransportChannel::on_diagnostic;
    callbacks_.get_request_headers = &TransportChannel::get_request_headers;
    callbacks_.on_auth_challenge = &TransportChannel::on_auth_challenge;
    callbacks_.on_request_failed = &TransportChannel::on_request_failed;
    callbacks_.on_failure = &TransportChannel::on_failure;
    callbacks_.on_closed_ex = &TransportChannel::on_closed_ex;
    callbacks_.get_request_headers_ex = &TransportChannel::get_request_headers_ex;
    callbacks_.on_auth_challenge_ex = &TransportChannel::on_auth_challenge_ex;
    auth_ = listener_->auth_hooks();
    traits_ = has_v11(offsetof(mcph_transport_vtable_v1, traits)) ? vtable_->traits : traits_of_v10_plugin(vtable_);
    can_pump_ = has_v11(offsetof(mcph_transport_vtable_v1, pump)) && vtable_->pump;

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
    close();  // makes a pump in progress return; then the pumper leaves soon
    {
        std::unique_lock lock(pump_mutex_);
        pump_cv_.wait(lock, [this] { return pump_users_ == 0; });
    }
    vtable_->destroy(transport_);
}

void TransportChannel::start() {
    mcph_error err = make_error();
    if (vtable_->start(transport_, &err) != MCPH_OK) throw Error(ErrorKind::Connection, err.message);
}

void TransportChannel::send(std::string_view message, const MessageFacts* facts) {
    mcph_error err = make_error();
    mcph_status status;
    if (facts && has_v11(offsetof(mcph_transport_vtable_v1, send_ex)) && vtable_->send_ex) {
        std::vector<mcph_header> params;
        params.reserve(facts->params.size());
        for (const auto& [name, value] : facts->params) params.push_back({str(name), str(value)});
        mcph_message_facts c{};
        c.struct_size = sizeof c;
        c.id = str(facts->id);
        c.method = str(facts->method);
        c.name = str(facts->name);
        c.protocol_version = str(facts->protocol_version);
        c.params = params.empty() ? nullptr : params.data();
        c.param_count = params.size();
        c.flags = facts->flags;
        status = vtable_->send_ex(transport_, str(message), &c, &err);
    } else {
        status = vtable_->send(transport_, str(message), &err);
    }
    if (status == MCPH_OK) return;
    throw Error(status == MCPH_ERR_INVALID_ARGUMENT ? ErrorKind::Usage : ErrorKind::Connection,
                std::string("send failed: ") + (err.message[0] ? err.message : "transport closed"));
}

void TransportChannel::cancel(std::string_view request_id) {
    if (!has_v11(offsetof(mcph_transport_vtable_v1, cancel)) || !vtable_->cancel) return;
    mcph_error err = make_error();
    vtable_->cancel(transport_, str(request_id), &err);
}

// An unknown key is ignored (ABI), and remembered for the plugin so it is not asked again.
void TransportChannel::set_option(std::string_view key, std::string_view value) {
    if (!vtable_->set_option || (plugin_ && plugin_->library().option_unsupported(key))) return;
    mcph_error err = make_error();
    if (vtable_->set_option(transport_, str(key), str(value), &err) == MCPH_ERR_UNSUPPORTED && plugin_)
        plugin_->library().note_option_unsupported(key);
}

// Pending auth answers are completed (CANCELLED) before the plugin's close, which may be joining
// an I/O thread that waits for one; the auth's blocking call (a sign-in waiting for its redirect)
// is told to give up, but never waited for: its job finds no entry left and drops its answer.
void TransportChannel::close() {
    std::call_once(closed_, [this] {
        {
            std::lock_guard lock(pump_mutex_);
            pump_closed_ = true;
            pump_cv_.notify_all();  // waiters for the pump role stop waiting for it
        }
        if (completions_->close() > 0 && auth_) auth_->cancel();
        vtable_->close(transport_);
    });
}

bool TransportChannel::enter_pump() {
    if (!can_pump_.load(std::memory_order_relaxed) || t_callback_depth > 0) return false;
    std::lock_guard lock(pump_mutex_);
    if (pump_closed_) return false;
    ++pump_users_;
    return true;
}

void TransportChannel::leave_pump() {
    std::lock_guard lock(pump_mutex_);
    if (--pump_users_ == 0 && pump_closed_) pump_cv_.notify_all();  // the destructor may be waiting
}

// One thread at a time in the plugin's pump; the others wait for a round to end (their result may
// have come with it) and one of them takes over when the pumper's own result is in. The lock is
// never held inside the plugin.
PumpWait TransportChannel::pump_until(const std::function<bool()>& ready, std::chrono::steady_clock::time_point deadline) {
    using Clock = std::chrono::steady_clock;
    std::unique_lock lock(pump_mutex_);
    for (;;) {
        if (ready()) return PumpWait::ready;
        const auto now = Clock::now();
        if (now >= deadline) return PumpWait::deadline;
        if (pump_closed_ || !can_pump_.load(std::memory_order_relaxed)) return PumpWait::unsupported;
        const auto slice_end = deadline - now > kPumpSlice ? now + kPumpSlice : deadline;
        if (pumping_) {
            ++pump_waiters_;
            pump_cv_.wait_until(lock, slice_end);
            --pump_waiters_;
            continue;
        }
        pumping_ = true;
        lock.unlock();
        const auto slice = std::chrono::ceil<std::chrono::milliseconds>(slice_end - now).count();
        mcph_error err = make_error();
        const mcph_status status = vtable_->pump(transport_, static_cast<std::int32_t>(slice), &err);
        lock.lock();
        pumping_ = false;
        if (pump_waiters_ > 0) pump_cv_.notify_all();
        if (status == MCPH_ERR_UNSUPPORTED) can_pump_ = false;
        // CLOSED (on_closed came, or close began), BUSY (a thread outside this gate reads),
        // anything else: the result arrives another way, as without pumping.
        if (status != MCPH_OK && status != MCPH_ERR_TIMEOUT) return PumpWait::unsupported;
    }
}

void TransportChannel::on_message(void* ud, mcph_str message) {
    TransportListener* l = channel_of(ud)->listener_;
    shielded(l, "on_message", [&] { l->on_transport_message(view(message)); });
}

// An ABI 1.0 plugin's close detail: the message, then (stdio) "; stderr:\n" and the child's last
// lines. That marker is the 1.0 convention; a 1.1 plugin sends the tail as its own field.
void TransportChannel::on_closed(void* ud, mcph_close_reason reason, mcph_str detail) {
    TransportListener* l = channel_of(ud)->listener_;
    shielded(l, "on_closed", [&] { closed_with(l, reason, view(detail)); });
}

void TransportChannel::closed_with(TransportListener* listener, mcph_close_reason reason, std::string_view detail) {
    Failure failure;
    const std::string text(detail);
    const std::string marker = "; stderr:\n";
    const auto at = text.find(marker);
    failure.message = url::redact_urls_in_text(at == std::string::npos ? text : text.substr(0, at));
    if (at != std::string::npos) failure.stderr_tail = text.substr(at + marker.size());
    listener->on_transport_closed(reason, failure);
}

void TransportChannel::on_closed_ex(void* ud, mcph_close_reason reason, const mcph_failure* failure) {
    TransportListener* l = channel_of(ud)->listener_;
    shielded(l, "on_closed_ex", [&] { l->on_transport_closed(reason, from_c(failure)); });
}

// A diagnostic is a log line for people: a level outside the enum is taken as the most severe
// known one (not as something above every threshold, or below), and the text is cut at
// kMaxDiagnosticBytes before it is redacted and logged — a plugin quoting a whole server reply must
// not cost the log (or the redaction pass) megabytes per line.
void TransportChannel::on_diagnostic(void* ud, mcph_log_level level, mcph_str message) {
    constexpr std::size_t kMaxDiagnosticBytes = 16 * 1024;
    TransportListener* l = channel_of(ud)->listener_;
    const mcph_log_level known = level > MCPH_LOG_ERROR || level < MCPH_LOG_DEBUG ? MCPH_LOG_ERROR : level;
    std::string_view text = view(message);
    std::string cut;
    if (text.size() > kMaxDiagnosticBytes) {
        cut.assign(text.substr(0, kMaxDiagnosticBytes));
        cut += "… (" + std::to_string(text.size() - kMaxDiagnosticBytes) + " more bytes)";
        text = cut;
    }
    shielded(l, "on_diagnostic", [&] { l->on_transport_diagnostic(known, url::redact_urls_in_text(text)); });
}

void TransportChannel::on_request_failed(void* ud, mcph_str request_id, const mcph_failure* failure) {
    TransportListener* l = channel_of(ud)->listener_;
    shielded(l, "on_request_failed", [&] { l->on_transport_request_failed(view(request_id), from_c(failure)); });
}

void TransportChannel::on_failure(void* ud, const mcph_failure* failure) {
    TransportListener* l = channel_of(ud)->listener_;
    shielded(l, "on_failure", [&] { l->on_transport_failure(from_c(failure)); });
}

// ABI 1.0/1.1 plugins: the request is not known; the hook may block their I/O thread.
mcph_status TransportChannel::get_request_headers(void* ud, const mcph_header_sink* sink, mcph_error* err) {
    return mcph::plugin::guarded(err, [&] {
        const std::shared_ptr<AuthHooks>& auth = channel_of(ud)->auth_;
        if (!auth) return;
        HeaderList headers;
        std::string reason;
        const mcph_status st = auth->headers(AuthRequest{}, /*nonblocking=*/false, &headers, &reason);
        if (st != MCPH_OK) throw mcph::plugin::Error(st, reason);
        add_all(sink, headers);
    });
}

mcph_status TransportChannel::on_auth_challenge(void* ud, int status, mcph_str challenge, mcph_str /*resource*/,
                                                mcph_error* err) {
    mcph_status answer = MCPH_ERR_AUTH;
    const mcph_status st = mcph::plugin::guarded(err, [&] {
        const std::shared_ptr<AuthHooks>& auth = channel_of(ud)->auth_;
        if (!auth) return;
        AuthRequest request;
        request.http_status = status;
        request.www_authenticate = std::string(view(challenge));
        std::string reason;
        answer = auth->challenge(request, &reason);
        if (answer != MCPH_OK) mcph::plugin::fill_error(err, answer, reason);
    });
    return st != MCPH_OK ? st : answer;
}

// The fast path first: a token at hand is added here, on the plugin's thread, with no hand-off.
// Otherwise the blocking call goes to the auth worker and the plugin parks this one request.
mcph_status TransportChannel::get_request_headers_ex(void* ud, const mcph_auth_request* request,
                                                     const mcph_header_sink* sink, const mcph_auth_completion* done,
                                                     mcph_error* err) {
    mcph_status answer = MCPH_OK;
    const mcph_status st = mcph::plugin::guarded(err, [&] {
        TransportChannel* self = channel_of(ud);
        if (!self->auth_) return;
        AuthRequest r = auth_request_from(request);
        HeaderList headers;
        std::string reason;
        answer = self->auth_->headers(r, /*nonblocking=*/done != nullptr, &headers, &reason);
        if (answer == MCPH_OK) return add_all(sink, headers);
        if (answer != MCPH_PENDING) return mcph::plugin::fill_error(err, answer, reason);
        answer = self->hand_off(std::move(r), /*challenge=*/false, *done, err);
    });
    return st != MCPH_OK ? st : answer;
}

// A challenge may refresh or sign in: always on the auth worker (when the plugin can wait).
mcph_status TransportChannel::on_auth_challenge_ex(void* ud, const mcph_auth_request* request,
                                                   const mcph_auth_completion* done, mcph_error* err) {
    mcph_status answer = MCPH_ERR_AUTH;
    const mcph_status st = mcph::plugin::guarded(err, [&] {
        TransportChannel* self = channel_of(ud);
        if (!self->auth_) return;
        AuthRequest r = auth_request_from(request);
        if (done) {
            answer = self->hand_off(std::move(r), /*challenge=*/true, *done, err);
            return;
        }
        std::string reason;
        answer = self->auth_->challenge(r, &reason);
        if (answer != MCPH_OK) mcph::plugin::fill_error(err, answer, reason);
    });
    return st != MCPH_OK ? st : answer;
}

// The job owns what it touches (the auth, the completions): the channel, its session and the
// plugin's transport may all be gone by the time it runs or finishes.
mcph_status TransportChannel::hand_off(AuthRequest request, bool challenge, const mcph_auth_completion& done,
                                       mcph_error* err) {
    const std::uint64_t id = completions_->add(done);
    if (id == 0) {
        mcph::plugin::fill_error(err, MCPH_ERR_CANCELLED, "the transport is closing");
        return MCPH_ERR_CANCELLED;
    }
    std::shared_ptr<AuthHooks> auth = auth_;
    std::shared_ptr<AuthCompletions> completions = completions_;
    try {
        auth_->run_blocking([auth, completions, id, challenge, request = std::move(request)] {
            if (!completions->waiting(id)) return;  // closed meanwhile: no network for nobody
            HeaderList headers;
            std::string reason;
            mcph_status status = MCPH_ERR_INTERNAL;
            try {
                status = challenge ? auth->challenge(request, &reason)
                                   : auth->headers(request, /*nonblocking=*/false, &headers, &reason);
            } catch (const std::exception& e) {
                reason = std::string("internal error in the auth hook: ") + e.what();
            }
            completions->complete(id, status, headers, reason);
        });
    } catch (...) {
        completions_->forget(id);
        throw;
    }
    return MCPH_PENDING;
}

}  // namespace mcph::transport
