#include "jsonrpc/rpc_engine.hpp"

#include "json/json_access.hpp"
#include "json/message_parse.hpp"

#include <mcph/bounded_json.hpp>
#include <mcph/json_writer.hpp>
#include <mcph/scratch_buffer.hpp>

#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <charconv>

namespace mcph::jsonrpc {
namespace {

// Outgoing text is written into this thread's retained scratch block (a big request's buffer
// would otherwise be fresh memory, page-faulted in on every send) with strings copied in runs.
using Buffer = scratch::StringBuffer;
using Writer = json_writer::Writer<Buffer>;
using LimitedWriter = json_bounds::DepthLimitedHandler<Writer>;

constexpr int kLogWarn = 2;

std::string_view as_view(const Buffer& buffer) { return {buffer.GetString(), buffer.GetSize()}; }

std::string excerpt(std::string_view text) {
    constexpr std::size_t kMax = 200;
    return text.size() <= kMax ? std::string(text) : std::string(text.substr(0, kMax)) + "...";
}

// Adds params._meta.progressToken = id, creating the objects as needed.
void attach_progress_token(Json& params, std::int64_t id) {
    auto& alloc = params.GetAllocator();
    if (!params.IsObject()) params.SetObject();
    auto meta = params.FindMember("_meta");
    if (meta == params.MemberEnd() || !meta->value.IsObject()) {
        if (meta != params.MemberEnd()) params.RemoveMember(meta);
        params.AddMember("_meta", rapidjson::Value(rapidjson::kObjectType), alloc);
        meta = params.FindMember("_meta");
    }
    meta->value.RemoveMember("progressToken");
    meta->value.AddMember("progressToken", rapidjson::Value(static_cast<int64_t>(id)), alloc);
}

// Writes `value` into an envelope being written by `w`, under the host's write bound (the envelope's
// own level counts). False when the value is too deep.
bool write_nested(const JsonValue& value, Writer& w) {
    LimitedWriter limited(w, json::kWriteDepth - 1);
    return value.Accept(limited);  // json-bounds-ok: the depth-limited handler
}

// params with a serialised `_meta` object: written as its last member, raw, when params has none of
// its own (the session's kept 2026 envelope; the session sends requests with a `_meta` or a
// progress token down the tree path). Otherwise — a progress token attached here, another caller
// of the engine — it is parsed and merged into the tree with json::set_member, the merge
// session::add_request_meta uses (the envelope's keys replace the same keys, the others are kept).
bool write_params_with_meta(Json& params, const std::string& meta_json, Writer& w) {
    if (!params.IsObject()) params.SetObject();
    JsonValue* own = json::member_mut(params, "_meta");
    if (own) {
        Json meta;
        if (!json_bounds::parse(meta, meta_json) || !meta.IsObject()) return false;  // ours: cannot fail
        if (!own->IsObject()) own->SetObject();
        auto& a = params.GetAllocator();
        for (auto& m : meta.GetObject()) json::set_member(*own, JsonValue(m.name, a), JsonValue(m.value, a), a);
        return write_nested(params, w);
    }
    w.StartObject();
    for (const auto& m : params.GetObject()) {
        w.Key(m.name.GetString(), m.name.GetStringLength());
        LimitedWriter limited(w, json::kWriteDepth - 2);
        if (!m.value.Accept(limited)) return false;  // json-bounds-ok: the depth-limited handler
    }
    w.Key("_meta");
    w.RawValue(meta_json.data(), meta_json.size(), rapidjson::kObjectType);
    return w.EndObject();
}

Error too_deep_to_send(std::string_view what) {
    return Error(ErrorKind::Usage, std::string(what) + " is nested deeper than " + std::to_string(json::kWriteDepth) +
                                       " levels; not sent");
}

// Reads only the top-level "id" of a message that was refused (too deep), so the request it answers
// fails at once instead of waiting for its timeout. SAX, iterative, under the same depth bound:
// the id usually precedes the deep part and is found before the parse stops.
class TopLevelId : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, TopLevelId> {
public:
    std::optional<std::int64_t> id;

    bool Default() { return take_scalar(std::nullopt); }
    bool Int(int i) { return take_scalar(i); }
    bool Uint(unsigned u) { return take_scalar(u); }
    bool Int64(int64_t i) { return take_scalar(i); }
    bool Key(const char* s, rapidjson::SizeType n, bool) {
        id_next_ = depth_ == 1 && std::string_view(s, n) == "id";
        return true;
    }
    bool StartObject() { return open(); }
    bool StartArray() { return open(); }
    bool EndObject(rapidjson::SizeType) { return close(); }
    bool EndArray(rapidjson::SizeType) { return close(); }

private:
    bool take_scalar(std::optional<std::int64_t> value) {
        if (id_next_ && value) id = value;
        id_next_ = false;
        return true;
    }
    bool open() {
        id_next_ = false;
        return ++depth_ <= json_bounds::kMaxDepth;
    }
    bool close() {
        --depth_;
        return true;
    }
    unsigned depth_ = 0;
    bool id_next_ = false;
};

void write_envelope_start(Writer& w) {
    w.StartObject();
    w.Key("jsonrpc");
    w.String("2.0");
}

std::optional<std::int64_t> integer_id(const JsonValue& id) {
    if (id.IsInt64()) return id.GetInt64();
    if (id.IsUint64()) return std::nullopt;  // beyond what we ever send
    return std::nullopt;
}

Error remote_error(const JsonValue& error, const std::string& method) {
    int code = 0;
    std::string message = "server returned an error";
    std::string data;
    if (error.IsObject()) {
        if (const JsonValue* c = json::member(error, "code"); c && c->IsInt()) code = c->GetInt();
        message = json::string_or(error, "message", message);
        if (const JsonValue* d = json::member(error, "data")) data = to_json(*d);
    }
    return Error(ErrorKind::Remote, method + ": " + message + " (JSON-RPC error " + std::to_string(code) + ")", code,
                 data);
}

}  // namespace

std::string id_to_json(const JsonValue& id) { return to_json(id); }

// ---- Responder ----------------------------------------------------------------------------------

Responder::~Responder() { release_slot(); }

void Responder::release_slot() {
    if (!holds_slot_.exchange(false)) return;
    if (auto engine = engine_.lock()) engine->inbound_in_flight_.fetch_sub(1);
}

void Responder::send(std::string_view message) {
    auto engine = engine_.lock();
    release_slot();  // answered: the slot is free even if the answer cannot be delivered
    if (!engine) return;
    try {
        engine->send_raw(message);
    } catch (const Error&) {
        // The connection is gone; the server will never read the answer. Nothing to do.
    }
}

void Responder::result(const JsonValue& result) {
    Buffer buffer;
    Writer w(buffer);
    write_envelope_start(w);
    w.Key("id");
    w.RawValue(id_json_.data(), id_json_.size(), rapidjson::kNumberType);
    w.Key("result");
    if (!write_nested(result, w)) {
        error(-32603, "the client's answer is nested deeper than " + std::to_string(json::kWriteDepth) + " levels");
        return;
    }
    w.EndObject();
    send(as_view(buffer));
}

void Responder::error(int code, const std::string& message) {
    Buffer buffer;
    Writer w(buffer);
    write_envelope_start(w);
    w.Key("id");
    w.RawValue(id_json_.data(), id_json_.size(), rapidjson::kNumberType);
    w.Key("error");
    w.StartObject();
    w.Key("code");
    w.Int(code);
    w.Key("message");
    w.String(message.c_str(), static_cast<rapidjson::SizeType>(message.size()));
    w.EndObject();
    w.EndObject();
    send(as_view(buffer));
}

// ---- Engine -------------------------------------------------------------------------------------

RpcEngine::RpcEngine(std::string peer_name, EngineHooks hooks) : peer_(std::move(peer_name)), hooks_(std::move(hooks)) {
    // One pump for every wait (shared, so a request copies a pointer, not a function).
    if (hooks_.pump) pump_ = std::make_shared<const detail::RequestResult::Pump>(hooks_.pump);
    spare_pending_.reserve(kSpareNodes);
    spare_deadlines_.reserve(kSpareNodes);
}

namespace {
// Keeps a node for reuse while there is room (the vector's capacity is reserved: no allocation).
template <class Node>
void keep_spare(std::vector<Node>& spares, Node&& node, std::size_t max) {
    if (!node.empty() && spares.size() < max) spares.push_back(std::move(node));
}
}  // namespace

void RpcEngine::insert_pending(std::int64_t id, Pending entry) {
    if (!entry.long_lived) {
        if (spare_deadlines_.empty()) {
            entry.slot = deadlines_.emplace(entry.due(), id);
        } else {
            DeadlineIndex::node_type node = std::move(spare_deadlines_.back());
            spare_deadlines_.pop_back();
            node.key() = entry.due();
            node.mapped() = id;
            entry.slot = deadlines_.insert(std::move(node));
        }
    }
    if (spare_pending_.empty()) {
        pending_.emplace(id, std::move(entry));
        return;
    }
    auto node = std::move(spare_pending_.back());
    spare_pending_.pop_back();
    node.key() = id;
    node.mapped() = std::move(entry);
    pending_.insert(std::move(node));
}

PendingRequest RpcEngine::start_request(std::string_view method, Json params, RequestSettings settings) {
    auto result = std::make_shared<detail::RequestResult>(pump_);
    Pending entry;
    entry.result = detail::OwedResult(result);
    const std::int64_t id = register_and_send(method, params, settings, std::move(entry));
    std::weak_ptr<RpcEngine> weak = weak_from_this();
    return PendingRequest(std::move(result), [weak, id](const std::string& reason) {
        if (auto engine = weak.lock()) engine->cancel(id, reason);
    });
}

std::int64_t RpcEngine::start_request_async(std::string_view method, Json params, RequestSettings settings,
                                            ResponseHandler done) {
    Pending entry;
    entry.handler = std::move(done);
    return register_and_send(method, params, settings, std::move(entry));
}

Json RpcEngine::call(std::string_view method, Json params, RequestSettings settings,
                     const std::function<bool()>& is_cancelled) {
    return wait_for_answer(method, params, settings, is_cancelled);
}

Json RpcEngine::call_in_place(std::string_view method, Json& params, RequestSettings settings,
                              const std::function<bool()>& is_cancelled) {
    return wait_for_answer(method, params, settings, is_cancelled);
}

Json RpcEngine::wait_for_answer(std::string_view method, Json& params, RequestSettings& settings,
                                const std::function<bool()>& is_cancelled) {
    detail::RequestResult slot(pump_);  // on this stack: the handler is done with it once take() returns
    Pending entry;
    entry.handler = [&slot](Json result, const Error* error) { slot.fill(std::move(result), error); };
    const std::int64_t id = register_and_send(method, params, settings, std::move(entry));
    if (is_cancelled) {  // the 50 ms polls of a cancellable wait (the shell's Ctrl-C)
        constexpr auto kPoll = std::chrono::milliseconds(50);
        while (!slot.wait_until(Clock::now() + kPoll)) {
            if (!is_cancelled()) continue;
            cancel(id, "cancelled by the user");
            break;
        }
    }
    return slot.take();
}

std::int64_t RpcEngine::register_and_send(std::string_view method, Json& params, RequestSettings& settings,
                                          Pending entry) {
    const std::int64_t id = next_id_.fetch_add(1, std::memory_order_relaxed);
    if (settings.on_progress) attach_progress_token(params, id);

    Buffer buffer;
    Writer w(buffer);
    write_envelope_start(w);
    w.Key("id");
    w.Int64(id);
    w.Key("method");
    w.String(method.data(), static_cast<rapidjson::SizeType>(method.size()));
    bool too_deep = false;
    if (settings.meta_json) {
        w.Key("params");
        too_deep = !write_params_with_meta(params, *settings.meta_json, w);
    } else if (!params.IsNull()) {
        w.Key("params");
        too_deep = !write_nested(params, w);
    }
    if (!too_deep) w.EndObject();  // a writer stopped mid-tree is left as it is: nothing of it is sent

    entry.method = std::string(method);
    if (too_deep) {
        fail(entry, too_deep_to_send(entry.method + " params"));
        return id;
    }
    entry.timeout = settings.timeout;
    const auto now = Clock::now();
    entry.long_lived = settings.long_lived;
    entry.deadline = settings.long_lived ? Clock::time_point::max() : now + settings.timeout;
    entry.hard_deadline = settings.max_total_timeout && !settings.long_lived ? now + *settings.max_total_timeout
                                                                             : Clock::time_point::max();
    entry.max_total = settings.max_total_timeout.value_or(std::chrono::milliseconds(0));
    entry.reset_on_progress = settings.reset_timeout_on_progress;
    if (settings.on_progress)
        entry.on_progress = std::make_shared<const std::function<void(const Progress&)>>(std::move(settings.on_progress));

    bool sooner = false;
    {
        std::unique_lock lock(mutex_);
        if (closed_error_) {
            Error error = *closed_error_;
            lock.unlock();
            fail(entry, Error(error.kind(), entry.method + " failed: " + error.what(), error.code(), error.data_json()));
            return id;
        }
        // The owner's timer moves only for a deadline sooner than its wake-up (long-lived requests
        // have none); a stream of requests with one timeout re-arms it once per firing, not per call.
        if (entry.long_lived) {
            ++long_lived_;
        } else if (const Clock::time_point due = entry.due(); due < wake_at_) {
            wake_at_ = due;
            sooner = true;
        }
        insert_pending(id, std::move(entry));
    }
    if (sooner && hooks_.arm_timeouts) hooks_.arm_timeouts();

    settings.facts.id = std::to_string(id);
    settings.facts.method = std::string(method);
    try {
        send_raw(as_view(buffer), &settings.facts);
    } catch (const Error& e) {
        if (auto taken = take(id)) fail(*taken, e);
    } catch (const std::exception& e) {  // the contract says Error; anything else still must not leak
        if (auto taken = take(id)) fail(*taken, Error(ErrorKind::Connection, std::string("send failed: ") + e.what()));
    }
    return id;
}

void RpcEngine::complete(Pending& entry, Json result) {
    if (entry.handler) entry.handler(std::move(result), nullptr);
    else entry.result.fill(std::move(result), nullptr);
}

void RpcEngine::fail(Pending& entry, const Error& error) {
    if (entry.handler) entry.handler(Json(), &error);
    else entry.result.fill(Json(), &error);
}

void RpcEngine::notify(std::string_view method, const JsonValue* params) {
    Buffer buffer;
    Writer w(buffer);
    write_envelope_start(w);
    w.Key("method");
    w.String(method.data(), static_cast<rapidjson::SizeType>(method.size()));
    if (params && !params->IsNull()) {
        w.Key("params");
        if (!write_nested(*params, w)) throw too_deep_to_send(std::string(method) + " params");
    }
    w.EndObject();
    send_raw(as_view(buffer));
}

void RpcEngine::cancel(std::int64_t id, const std::string& reason) {
    auto taken = take(id);
    if (!taken) return;  // already answered
    send_cancelled(id, reason);
    fail(*taken, Error(ErrorKind::Cancelled, taken->method + " cancelled: " + reason));
}

void RpcEngine::fail_request(std::string_view id_json, const Error& error) {
    std::int64_t id = 0;
    const char* end = id_json.data() + id_json.size();
    auto [ptr, ec] = std::from_chars(id_json.data(), end, id);
    if (ec != std::errc() || ptr != end) return;  // not one of ours: the engine only mints integer ids
    auto taken = take(id);
    if (!taken) return;
    // Named like a JSON-RPC error of the same request: "<method>: <why>".
    Error named(error.kind(), taken->method + ": " + error.what(), error.code(), error.data_json());
    named.set_http_status(error.http_status());
    fail(*taken, named);
}

std::optional<RpcEngine::Pending> RpcEngine::take(std::int64_t id) {
    std::lock_guard lock(mutex_);
    auto node = pending_.extract(id);
    if (node.empty()) return std::nullopt;
    // The timer is not moved: it wakes, finds nothing due, re-arms.
    if (node.mapped().long_lived) --long_lived_;
    else keep_spare(spare_deadlines_, deadlines_.extract(node.mapped().slot), kSpareNodes);
    std::optional<Pending> taken(std::move(node.mapped()));
    keep_spare(spare_pending_, std::move(node), kSpareNodes);
    return taken;
}

void RpcEngine::send_cancelled(std::int64_t id, const std::string& reason) {
    if (cancel_by_stream_ && hooks_.cancel_stream) {
        hooks_.cancel_stream(std::to_string(id));
        return;
    }
    Json params(rapidjson::kObjectType);
    params.AddMember("requestId", rapidjson::Value(static_cast<int64_t>(id)), params.GetAllocator());
    params.AddMember("reason", json::string_value(reason, params.GetAllocator()), params.GetAllocator());
    try {
        notify("notifications/cancelled", &params);
    } catch (const Error&) {
        // The connection is gone: the server cannot be told, and need not be.
    }
}

void RpcEngine::handle_message(std::string_view text) {
    Json doc;
    const json_bounds::ParseOutcome outcome = json::parse_message(doc, text);
    if (outcome.status == json_bounds::ParseOutcome::Status::TooDeep) {
        refuse_too_deep(text, outcome.message());
        return;
    }
    if (!outcome) {
        log(kLogWarn, "ignored malformed JSON from server: " + outcome.message() + ": " + excerpt(text));
        return;
    }
    if (doc.IsArray()) {  // a JSON-RPC batch (2025-03-26 allows servers to send them)
        for (const JsonValue& message : doc.GetArray()) dispatch_value(message);
        return;
    }
    dispatch(doc);
}

// A message nested past the bound is malformed: it is dropped, and if it answers one of our
// requests that request fails now, naming the bound.
void RpcEngine::refuse_too_deep(std::string_view text, const std::string& reason) {
    TopLevelId finder;
    rapidjson::MemoryStream stream(text.data(), text.size());
    rapidjson::Reader reader;
    reader.Parse<rapidjson::kParseIterativeFlag>(stream, finder);  // json-bounds-ok: depth-checked SAX, ids only
    auto taken = finder.id ? take(*finder.id) : std::nullopt;
    log(kLogWarn, "ignored a message from server: " + reason + (taken ? " (it answered " + taken->method + ")" : ""));
    if (taken)
        fail(*taken, Error(ErrorKind::Protocol, taken->method + " to '" + peer_ + "': response refused, " + reason));
}

void RpcEngine::dispatch(Json& doc) {
    if (!doc.IsObject()) {
        log(kLogWarn, "ignored a message that is not a JSON object");
        return;
    }
    const JsonValue* id = json::member(doc, "id");
    const bool is_response = !json::member(doc, "method") && id &&
                             (json::member(doc, "result") || json::member(doc, "error"));
    if (is_response) {
        if (auto numeric = integer_id(*id); numeric && json::member(doc, "result")) {
            handle_response(*numeric, doc);  // hot path: completes without copying the result
            return;
        }
    }
    dispatch_value(doc);
}

void RpcEngine::dispatch_value(const JsonValue& message) {
    if (!message.IsObject()) {
        log(kLogWarn, "ignored a message that is not a JSON object");
        return;
    }
    const JsonValue* method = json::member(message, "method");
    const JsonValue* id = json::member(message, "id");
    if (method && method->IsString()) {
        if (id && !id->IsNull()) {
            handle_inbound_request(message);
            return;
        }
        const std::string name(json::view(*method));
        static const JsonValue kEmpty(rapidjson::kObjectType);
        const JsonValue* params = json::member(message, "params");
        if (name == "notifications/progress") {
            if (params) handle_progress(*params);
        } else if (name == "notifications/cancelled") {
            // The server withdrew one of its requests; our callbacks answer at most once and a late
            // answer is harmless (the spec lets the receiver ignore it), so nothing to undo here.
        } else if (hooks_.on_notification) {
            hooks_.on_notification(name, params ? *params : kEmpty);
        }
        return;
    }
    if (id && (json::member(message, "result") || json::member(message, "error"))) {
        handle_response_value(message);
        return;
    }
    log(kLogWarn, "ignored a message that is neither request, response nor notification: " + excerpt(to_json(message)));
}

void RpcEngine::handle_response(std::int64_t id, Json& doc) {
    auto taken = take(id);
    if (!taken) {
        log(kLogWarn, "ignored a response with unknown id " + std::to_string(id) + " (late, duplicate or invented)");
        return;
    }
    // Move the result into the document's root: the parsed tree is reused, not copied.
    rapidjson::Value result;
    result.Swap(doc["result"]);
    static_cast<rapidjson::Value&>(doc).Swap(result);
    complete(*taken, std::move(doc));
}

void RpcEngine::handle_response_value(const JsonValue& message) {
    const JsonValue& id = message["id"];
    auto numeric = integer_id(id);
    auto taken = numeric ? take(*numeric) : std::nullopt;
    if (!taken) {
        if (id.IsNull() && json::member(message, "error"))
            log(kLogWarn, "server reported an error without a request id: " + excerpt(to_json(message["error"])));
        else
            log(kLogWarn, "ignored a response with unknown id " + excerpt(to_json(id)));
        return;
    }
    if (const JsonValue* error = json::member(message, "error")) {
        fail(*taken, remote_error(*error, taken->method));
        return;
    }
    complete(*taken, clone_json(message["result"]));
}

void RpcEngine::handle_progress(const JsonValue& params) {
    const JsonValue* token = json::member(params, "progressToken");
    if (!token || !token->IsInt64()) return;  // we only ever issue integer tokens
    std::shared_ptr<const std::function<void(const Progress&)>> callback;
    {
        std::lock_guard lock(mutex_);
        auto it = pending_.find(token->GetInt64());
        if (it == pending_.end()) return;  // progress for a finished request: harmless
        if (it->second.reset_on_progress && !it->second.long_lived) {
            Pending& entry = it->second;
            entry.deadline = Clock::now() + entry.timeout;
            // Re-keyed in place (no allocation). It only moves later, so the owner's timer, set
            // for the old deadline at the latest, wakes in time and re-arms for the new one.
            auto node = deadlines_.extract(entry.slot);
            node.key() = entry.due();
            entry.slot = deadlines_.insert(std::move(node));
        }
        callback = it->second.on_progress;
    }
    if (!callback) return;
    Progress progress;
    if (const JsonValue* p = json::member(params, "progress"); p && p->IsNumber()) progress.progress = p->GetDouble();
    if (const JsonValue* t = json::member(params, "total"); t && t->IsNumber()) progress.total = t->GetDouble();
    progress.message = json::string_or(params, "message");
    (*callback)(progress);
}

bool RpcEngine::claim_inbound_slot() {
    std::size_t now = inbound_in_flight_.load();
    do {
        if (now >= hooks_.max_inbound_in_flight) return false;
    } while (!inbound_in_flight_.compare_exchange_weak(now, now + 1));
    return true;
}

void RpcEngine::handle_inbound_request(const JsonValue& message) {
    const std::string method(json::view(message["method"]));
    const std::string id = id_to_json(message["id"]);
    if (method == "ping") {
        static const JsonValue kEmptyResult(rapidjson::kObjectType);
        Responder(weak_from_this(), id).result(kEmptyResult);
        return;
    }
    if (!hooks_.on_request) {
        Responder(weak_from_this(), id).error(-32601, "method not found: " + method);
        return;
    }
    // Answered at once, here: nothing is queued for a request beyond the bound.
    if (!claim_inbound_slot()) {
        const std::string why = method + " refused: " + std::to_string(hooks_.max_inbound_in_flight) +
                                " server requests are already in flight (the client's limit)";
        // One line per thousand refusals: a flood of requests must not become a flood of logs.
        if (inbound_refused_.fetch_add(1) % 1000 == 0) log(kLogWarn, why);
        Responder(weak_from_this(), id).error(kTooManyInFlightCode, why);
        return;
    }
    auto responder = std::make_shared<Responder>(weak_from_this(), id, true);
    const JsonValue* p = json::member(message, "params");
    Json params = p ? clone_json(*p) : Json();
    hooks_.on_request(method, std::move(params), std::move(responder));
}

std::size_t RpcEngine::check_timeouts(Clock::time_point now) {
    std::vector<std::pair<std::int64_t, Pending>> expired;
    std::size_t remaining = 0;
    {
        std::lock_guard lock(mutex_);
        // Only the due prefix of the index is visited: the rest of the table is not scanned.
        while (!deadlines_.empty() && deadlines_.begin()->first <= now) {
            const std::int64_t id = deadlines_.begin()->second;
            deadlines_.erase(deadlines_.begin());
            auto node = pending_.extract(id);
            expired.emplace_back(id, std::move(node.mapped()));
        }
        remaining = deadlines_.size();
        wake_at_ = deadlines_.empty() ? Clock::time_point::max() : deadlines_.begin()->first;
    }
    for (auto& [id, entry] : expired) {
        const bool hard = now >= entry.hard_deadline;
        std::string what = entry.method + " to '" + peer_ + "' timed out after " +
                           (hard ? std::to_string(entry.max_total.count()) + " ms, its maximum total time (progress does not extend it)"
                                : std::to_string(entry.timeout.count()) + " ms");
        const Error timed_out(ErrorKind::Timeout, what + " (notifications/cancelled sent; if the server is just slow, "
                                                       "raise the request timeout)");
        // Another write still under way means the peer is not reading: telling it now would block
        // this (timer) thread, which every session's timeouts need. Then the caller learns first
        // and the notice goes out from the owner's worker. Otherwise the server hears first.
        if (hooks_.defer && sends_in_progress_.load() > 0) {
            fail(entry, timed_out);
            hooks_.defer([weak = weak_from_this(), id = id] {
                if (auto engine = weak.lock()) engine->send_cancelled(id, "timed out");
            });
            continue;
        }
        send_cancelled(id, "timed out");
        fail(entry, timed_out);
    }
    return remaining;
}

void RpcEngine::fail_all(const Error& error) {
    std::unordered_map<std::int64_t, Pending> failed;
    {
        std::lock_guard lock(mutex_);
        closed_error_ = error;
        failed.swap(pending_);
        deadlines_.clear();
        long_lived_ = 0;
    }
    for (auto& [id, entry] : failed) {
        fail(entry, Error(error.kind(), entry.method + " failed: " + error.what(), error.code(), error.data_json()));
    }
}

void RpcEngine::reopen() {
    std::lock_guard lock(mutex_);
    closed_error_.reset();
}

void RpcEngine::send_raw(std::string_view message, const transport::MessageFacts* facts) {
    // Counted, so a timeout can tell that a write is stuck (see check_timeouts).
    struct Counted {
        std::atomic<int>& n;
        explicit Counted(std::atomic<int>& count) : n(count) { ++n; }
        ~Counted() { --n; }
    } counted(sends_in_progress_);
    hooks_.send(message, facts);
}

std::size_t RpcEngine::timed_pending_count() const {
    std::lock_guard lock(mutex_);
    return deadlines_.size();
}

Clock::time_point RpcEngine::next_deadline() {
    std::lock_guard lock(mutex_);
    wake_at_ = deadlines_.empty() ? Clock::time_point::max() : deadlines_.begin()->first;
    return wake_at_;
}

std::size_t RpcEngine::pending_count() const {
    std::lock_guard lock(mutex_);
    return pending_.size();
}

void RpcEngine::log(int level, const std::string& message) const {
    if (hooks_.log) hooks_.log(level, message);
}

}  // namespace mcph::jsonrpc
