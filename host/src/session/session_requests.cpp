// SessionCore, requests: the modern envelope on every request, one request to its end in the modern
// era (multi round-trip input, a version correction, a broken stream re-issued), session-expiry
// recovery in the legacy era, and the response cache.
#include "session/session_core.hpp"

#include "extensions/tasks.hpp"
#include "session/input_required.hpp"
#include "session/request_meta.hpp"
#include "session/session_core_internals.hpp"

namespace mcph::detail {

using namespace core_internal;


// The channel is picked under the shared lock (a reconnect swaps it under the exclusive one);
// enter_pump keeps it alive until leave_pump, so no session lock is held while inside the plugin.
void SessionCore::pump_until(const std::function<bool()>& ready, std::chrono::steady_clock::time_point deadline) {
    transport::Transport* channel = nullptr;
    {
        std::shared_lock lock(channel_mutex_);
        if (!channel_ || !channel_->enter_pump()) return;
        channel = channel_.get();
    }
    struct Leave {
        transport::Transport* channel;
        ~Leave() { channel->leave_pump(); }
    } leave{channel};
    channel->pump_until(ready, deadline);
}

PendingRequest SessionCore::request(const std::string& method, Json params, const RequestOptions& options) {
    if (!engine_) {
        std::promise<Json> failed;
        failed.set_exception(std::make_exception_ptr(disconnected_error()));
        return PendingRequest(failed.get_future(), {});
    }
    const auto f = facts();
    if (f->era == session::Era::Modern) return send_request(method, std::move(params), options, f->protocol_version);
    return engine_->start_request(method, std::move(params), request_settings(options));
}

// A modern request's settings: the envelope in _meta, and the facts an HTTP transport mirrors in
// headers.
jsonrpc::RequestSettings SessionCore::modern_settings(const std::string& method, Json& params,
                                                      const RequestOptions& options, const std::string& version) {
    session::RequestMeta meta;
    meta.protocol_version = version;
    meta.capabilities = &client_capabilities_;
    meta.client_info = &client_info_json_;
    if (!options.log_level.empty()) {
        meta.log_level = options.log_level;
    } else {
        std::lock_guard lock(log_level_mutex_);
        meta.log_level = log_level_;
    }
    meta.traceparent = options.traceparent;
    meta.tracestate = options.tracestate;
    meta.baggage = options.baggage;
    jsonrpc::RequestSettings settings = request_settings(options);
    add_envelope(params, meta, settings);
    settings.facts.protocol_version = version;
    settings.facts.name = routed_name(method, params);
    if (method == "tools/call" && (transport_traits_.load() & MCPH_TRAIT_HTTP_HEADERS)) {
        std::lock_guard lock(state_mutex_);
        if (auto it = param_headers_.find(settings.facts.name); it != param_headers_.end())
            if (const JsonValue* arguments = json::object_member(params, "arguments"))
                settings.facts.params = session::extract_param_headers(it->second, *arguments);
    }
    if (method == "subscriptions/listen") settings.facts.flags |= MCPH_MESSAGE_LISTEN_STREAM;
    return settings;
}

PendingRequest SessionCore::send_request(const std::string& method, Json params, const RequestOptions& options,
                                         const std::string& version) {
    jsonrpc::RequestSettings settings = modern_settings(method, params, options, version);
    return engine_->start_request(method, std::move(params), std::move(settings));
}

// The library's own waits (every call, list and handshake) take the engine's blocking call rather
// than a PendingRequest: the same pumped wait without a std::promise per request.
Json SessionCore::answer(const std::string& method, Json params, const RequestOptions& options,
                         const std::function<bool()>& is_cancelled) {
    if (!engine_) throw disconnected_error();
    const auto f = facts();
    if (f->era == session::Era::Modern)
        return answer_modern(method, std::move(params), options, f->protocol_version, is_cancelled);
    return engine_->call(method, std::move(params), request_settings(options), is_cancelled);
}

Json SessionCore::answer_modern(const std::string& method, Json params, const RequestOptions& options,
                                const std::string& version, const std::function<bool()>& is_cancelled) {
    return answer_modern_in_place(method, params, options, version, is_cancelled);
}

Json SessionCore::answer_modern_in_place(const std::string& method, Json& params, const RequestOptions& options,
                                         const std::string& version, const std::function<bool()>& is_cancelled) {
    jsonrpc::RequestSettings settings = modern_settings(method, params, options, version);
    return engine_->call_in_place(method, params, std::move(settings), is_cancelled);
}

void SessionCore::request_async(const std::string& method, Json params, ResponseHandler done,
                                const RequestOptions& options) {
    if (!engine_) {
        Error error = disconnected_error();
        done(Json(), &error);
        return;
    }
    jsonrpc::RequestSettings settings = request_settings(options);
    const auto f = facts();
    if (f->era == session::Era::Modern) {
        session::RequestMeta meta;
        meta.protocol_version = f->protocol_version;
        meta.capabilities = &client_capabilities_;
        meta.client_info = &client_info_json_;
        meta.log_level = options.log_level;
        meta.traceparent = options.traceparent;
        meta.tracestate = options.tracestate;
        meta.baggage = options.baggage;
        add_envelope(params, meta, settings);
        settings.facts.protocol_version = f->protocol_version;
        settings.facts.name = routed_name(method, params);
    }
    engine_->start_request_async(method, std::move(params), std::move(settings), std::move(done));
}

std::shared_ptr<const std::string> SessionCore::kept_envelope(const session::RequestMeta& meta) {
    std::lock_guard lock(envelope_mutex_);
    if (!envelope_json_ || envelope_version_ != meta.protocol_version || envelope_log_level_ != meta.log_level) {
        envelope_json_ = std::make_shared<const std::string>(session::serialized_request_meta(meta));
        envelope_version_ = meta.protocol_version;
        envelope_log_level_ = meta.log_level;
    }
    return envelope_json_;
}

// The kept text only when it can go in as it is: params without a `_meta` of its own and no progress
// token to come. Everything else (trace context, a caller's `_meta`, progress) takes the tree path,
// so the bytes sent are exactly those of session::add_request_meta.
void SessionCore::add_envelope(Json& params, const session::RequestMeta& meta, jsonrpc::RequestSettings& settings) {
    const bool trace_context = !meta.traceparent.empty() || !meta.tracestate.empty() || !meta.baggage.empty();
    if (envelope_goes_into_params(params, trace_context, static_cast<bool>(settings.on_progress)))
        session::add_request_meta(params, meta);
    else settings.meta_json = kept_envelope(meta);
}

bool SessionCore::envelope_goes_into_params(const JsonValue& params, bool trace_context, bool progress) {
    return trace_context || progress || json::member(params, "_meta");
}

jsonrpc::RequestSettings SessionCore::request_settings(const RequestOptions& options) const {
    jsonrpc::RequestSettings settings;
    settings.timeout = options.timeout.value_or(settings_.request_timeout);
    settings.reset_timeout_on_progress = options.reset_timeout_on_progress;
    settings.max_total_timeout = options.max_total_timeout;
    if (!settings.max_total_timeout && settings.reset_timeout_on_progress)
        settings.max_total_timeout = settings.timeout >= kLongestDefaultTotal / kProgressMaxTotalFactor
                                         ? kLongestDefaultTotal
                                         : settings.timeout * kProgressMaxTotalFactor;
    settings.on_progress = options.on_progress;
    return settings;
}

Json SessionCore::call(const std::string& method, Json params, const RequestOptions& options) {
    if (!session_can_expire() || t_in_recovery) return exchange(method, std::move(params), options);
    // Remote sessions can expire under us: keep a copy of the params to retry once on a fresh one.
    Json retry_params = clone_json(params);
    const std::uint64_t generation = generation_.load();
    try {
        return exchange(method, std::move(params), options);
    } catch (const Error& e) {
        if (e.code() != kSessionExpiredCode || method == "initialize") throw;
    }
    recover_expired_session(generation);
    try {
        return exchange(method, std::move(retry_params), options);
    } catch (const Error& e) {
        if (e.code() != kSessionExpiredCode) throw;
        // One recovery per call: a server whose fresh session is gone at once as well (a load
        // balancer without affinity, a restart loop) gets a clear error, not a loop.
        throw Error(ErrorKind::Connection, "server '" + settings_.server_name + "' expired a fresh session at once too (" +
                                               e.what() + "); gave up after one session recovery");
    }
}

Json SessionCore::exchange(const std::string& method, Json params, const RequestOptions& options, int* input_rounds) {
    if (modern()) return modern_exchange(method, std::move(params), options, input_rounds);
    // With RequestOptions::is_cancelled the wait is polled, so a person's Ctrl-C (the shell) cancels a
    // plain request as it cancels a task: notifications/cancelled is sent and the call fails Cancelled.
    Json result = answer(method, std::move(params), options, options.is_cancelled);
    // Earlier servers omit resultType (= complete); one that says otherwise is not followed.
    if (result.IsObject() && session::result_type(result, {method, settings_.server_name}) != session::ResultType::Complete)
        throw Error(ErrorKind::Protocol, method + " from '" + settings_.server_name + "': a " +
                                             std::string(facts()->protocol_version) +
                                             " server answered with a multi round-trip result, which that version does not have");
    return result;
}

// One modern request to its end: input rounds answered through the application's callbacks
// (each retry a new id, the original params plus this round's inputResponses and requestState),
// one retry at a version the server names as shared, one re-issue after a broken response stream.
Json SessionCore::modern_exchange(const std::string& method, Json params, const RequestOptions& options,
                                  int* input_rounds) {
    const session::RequestLabel request{method, settings_.server_name};
    Json original;  // the caller's params, copied only when a first input round needs them
    Json current = std::move(params);
    bool version_retried = false;
    bool stream_retried = false;
    bool headers_retried = false;
    int rounds = 0;
    // The loop below may send `current` again (a retry) or copy it as the caller's params (a first
    // input round). A request sent with the session's kept envelope leaves its params as they are,
    // so it is sent from `current` itself; one whose envelope or progress token goes into the
    // params is sent from a copy (a copy per call was ~5% of a modern call's client instructions).
    const bool trace_context = !options.traceparent.empty() || !options.tracestate.empty() || !options.baggage.empty();
    for (;;) {
        Json copy;
        Json* sent = &current;
        if (envelope_goes_into_params(current, trace_context, static_cast<bool>(options.on_progress))) {
            copy = clone_json(current);
            sent = &copy;
        }
        const auto f = facts();
        Json result;
        try {
            result = answer_modern_in_place(method, *sent, options, f->protocol_version, options.is_cancelled);
        } catch (const Error& e) {
            if (auto refused = session::unsupported_version(e)) {
                auto mutual = session::mutual_modern_version(refused->supported);
                if (mutual && !version_retried) {
                    version_retried = true;
                    if (*mutual != f->protocol_version) {
                        auto changed = std::make_shared<ServerFacts>();
                        changed->era = f->era;
                        changed->protocol_version = *mutual;
                        changed->server_info = f->server_info;
                        changed->capabilities.CopyFrom(f->capabilities, changed->capabilities.GetAllocator());
                        changed->instructions = f->instructions;
                        publish(std::move(changed));
                    }
                    continue;
                }
                throw Error(ErrorKind::Protocol, request.text() + ": the server refused protocol version " + f->protocol_version +
                                                     " (it supports " + joined(refused->supported) + ")");
            }
            if (e.code() == session::kHeaderMismatchCode && method == "tools/call" && !headers_retried) {
                // The tool's annotations may have changed: list the tools again, then retry once.
                headers_retried = true;
                log(LogLevel::Info, request.text() + ": the server reported a header mismatch; refreshing the tool list");
                cache_->evict_method(cache_identity_, "tools/list");
                refresh_list("tools");
                continue;
            }
            if (e.code() == kResponseStreamBrokenCode && !stream_retried) {
                stream_retried = true;  // the request was lost with its stream: re-issue it once, new id
                log(LogLevel::Info, request.text() + ": the response stream broke; re-issuing the request once");
                continue;
            }
            throw;
        }
        if (!result.IsObject()) throw Error(ErrorKind::Protocol, request.text() + ": the result is not an object");
        switch (session::result_type(result, request)) {
            case session::ResultType::Complete:
                if (input_rounds) *input_rounds = rounds;
                return result;
            case session::ResultType::Task: {
                // Tasks extension: poll the task to its end here; the caller sees the final result.
                // Only tools/call may become a task (a task for anything else is an invalid answer).
                if (method != "tools/call")
                    throw Error(ErrorKind::Protocol, request.text() + ": the server answered with a task, which " + method +
                                                         " does not support");
                const RequestOptions poll = extensions::task_poll_options(options);
                extensions::TaskRun run = extensions::task_run_for(
                    extensions::TaskDialect::Extension, request.text(), options, settings_.request_timeout,
                    [this, poll](const std::string& m, Json p) {
                        return answer_modern(m, std::move(p), poll, facts()->protocol_version, {});
                    });
                run.answer_inputs = [this, context = request.text()](const JsonValue& task) {
                    return std::move(session::answer_input_requests(
                                         task,
                                         [this](const std::string& m, const JsonValue& p) {
                                             return client_requests_.answer(m, p);
                                         },
                                         [this](const std::string& warning) { log(LogLevel::Warn, warning); }, context)
                                         .responses);
                };
                return extensions::run_task(result, run);
            }
            case session::ResultType::InputRequired:
                break;
        }
        if (!session::supports_input_required(method))
            throw Error(ErrorKind::Protocol, request.text() + ": input_required is not allowed for " + method);
        if (++rounds > max_input_rounds_)
            throw Error(ErrorKind::Protocol, request.text() + ": the server still asked for input after " +
                                                 std::to_string(max_input_rounds_) +
                                                 " rounds (the client's round cap, maxInputRounds); gave up");
        session::InputRound round = session::answer_input_requests(
            result,
            [this](const std::string& m, const JsonValue& p) { return client_requests_.answer(m, p); },
            [this](const std::string& warning) { log(LogLevel::Warn, warning); }, request.text());
        if (rounds == 1) original.CopyFrom(current, original.GetAllocator());  // still the caller's params
        current = session::retry_params(original, round);
    }
}

// The spec's caching hints (ttlMs, cacheScope) apply to what one authorization context sees: a
// private entry is keyed by a digest of the request's auth headers, never the token itself.
std::string SessionCore::cache_principal() const {
    return settings_.auth ? session::cache_principal(settings_.auth->headers()) : std::string();
}

Json SessionCore::cached_call(const std::string& method, Json params, const RequestOptions& options) {
    if (!modern()) return call(method, std::move(params), options);
    const std::string principal = cache_principal();
    auto key = session::make_cache_key(cache_identity_, method, &params, principal);
    if (!key) return call(method, std::move(params), options);
    if (auto hit = cache_->lookup(*key, std::chrono::steady_clock::now())) return std::move(*hit);
    int rounds = 0;
    Json result;
    try {
        result = exchange(method, std::move(params), options, &rounds);
    } catch (const Error&) {
        // A failed page (an invalid cursor) makes every cached page of that list suspect.
        if (method != "resources/read") cache_->evict_method(cache_identity_, method);
        throw;
    }
    // Results that took input rounds, or were fetched as another principal, are not kept.
    if (rounds == 0 && cache_principal() == principal) cache_->store(*key, result, std::chrono::steady_clock::now());
    return result;
}

void SessionCore::notify(const std::string& method, Json params) {
    if (!engine_) throw disconnected_error();
    engine_->notify(method, &params);
}

}  // namespace mcph::detail
