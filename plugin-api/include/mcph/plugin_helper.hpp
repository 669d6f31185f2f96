// Header-only C++ helper for writing mcph plugins as C++ classes.
//
// A transport plugin derives from mcph::plugin::Transport, an auth plugin from mcph::plugin::Auth;
// the templates below turn them into the C vtables of plugin_api.h. Every entry point catches
// every exception and turns it into an mcph_status + message, so nothing C++ crosses the ABI.
//
//   class MyTransport : public mcph::plugin::Transport { ... };
//   static const char* const kTypes[] = {"mytype", nullptr};
//   static const auto kVtable = mcph::plugin::make_transport_vtable<MyTransport>(kTypes);
//   MCPH_DEFINE_PLUGIN("transport-mine", "1.0.0", "My transport", nullptr,
//                      MCPH_TRANSPORT_INTERFACE_V1, &kVtable)
//
// ConfigReader (below) reads the JSON config string. The helper needs C++17 and RapidJSON
// (header-only, through bounded_json.hpp); it stays C++17 so a vendor need not move to C++20.
#ifndef MCPH_PLUGIN_HELPER_HPP
#define MCPH_PLUGIN_HELPER_HPP

#include <mcph/bounded_json.hpp>
#include <mcph/plugin_api.h>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

namespace mcph::plugin {

inline std::string_view view(mcph_str s) { return s.len ? std::string_view(s.ptr, s.len) : std::string_view(); }
inline mcph_str str(std::string_view s) { return mcph_str_from(s.data(), s.size()); }

// Throw this to return a specific status; any other exception becomes MCPH_ERR_INTERNAL.
class Error : public std::runtime_error {
public:
    Error(mcph_status status, const std::string& message) : std::runtime_error(message), status_(status) {}
    mcph_status status() const noexcept { return status_; }

private:
    mcph_status status_;
};

inline void fill_error(mcph_error* err, mcph_status status, std::string_view message) noexcept {
    if (!err || err->struct_size < sizeof(mcph_error)) return;
    err->status = status;
    size_t n = message.size() < MCPH_ERROR_MESSAGE_CAPACITY - 1 ? message.size() : MCPH_ERROR_MESSAGE_CAPACITY - 1;
    std::memcpy(err->message, message.data(), n);
    err->message[n] = '\0';
}

// Runs `fn`, mapping exceptions to a status. The one place where the boundary is guarded.
template <class Fn>
mcph_status guarded(mcph_error* err, Fn&& fn) noexcept {
    try {
        fn();
        return MCPH_OK;
    } catch (const Error& e) {
        fill_error(err, e.status(), e.what());
        return e.status();
    } catch (const std::bad_alloc&) {
        fill_error(err, MCPH_ERR_INTERNAL, "out of memory");
        return MCPH_ERR_INTERNAL;
    } catch (const std::exception& e) {
        fill_error(err, MCPH_ERR_INTERNAL, e.what());
        return MCPH_ERR_INTERNAL;
    } catch (...) {
        fill_error(err, MCPH_ERR_INTERNAL, "unknown exception");
        return MCPH_ERR_INTERNAL;
    }
}

inline mcph_error make_error() noexcept {
    mcph_error e;
    std::memset(&e, 0, sizeof e);
    e.struct_size = sizeof e;
    return e;
}

// A typed failure (ABI v1.1 mcph_failure), owning its text.
struct Failure {
    mcph_failure_category category = MCPH_FAILURE_OTHER;
    int os_error = 0;
    int http_status = 0;
    std::string message;      // for people
    std::string stderr_tail;  // stdio child's last stderr lines
    std::string body;         // HTTP error body (bounded by the plugin)

    mcph_failure view_c() const noexcept {
        mcph_failure f;
        std::memset(&f, 0, sizeof f);
        f.struct_size = sizeof f;
        f.category = category;
        f.os_error = os_error;
        f.http_status = http_status;
        f.message = mcph_str_from(message.data(), message.size());
        f.stderr_tail = mcph_str_from(stderr_tail.data(), stderr_tail.size());
        f.body = mcph_str_from(body.data(), body.size());
        return f;
    }
    // One line for a host that predates typed failures (ABI 1.0): message, then the stderr tail.
    std::string legacy_text() const {
        return stderr_tail.empty() ? message : message + "; stderr:\n" + stderr_tail;
    }
};

// The facts of one outgoing message (ABI v1.1 mcph_message_facts), as views valid for the call.
struct MessageFacts {
    std::string_view id;                 // JSON text of the id; empty for notifications/responses
    std::string_view method;
    std::string_view name;               // params.name / params.uri where the method has one
    std::string_view protocol_version;
    std::vector<std::pair<std::string_view, std::string_view>> params;  // x-mcp-header name → text
    std::uint32_t flags = 0;             // MCPH_MESSAGE_*
};

inline MessageFacts facts_from(const mcph_message_facts* f) {
    MessageFacts out;
    if (!f) return out;
    auto has = [f](size_t offset) { return f->struct_size > offset; };
    if (has(offsetof(mcph_message_facts, id))) out.id = view(f->id);
    if (has(offsetof(mcph_message_facts, method))) out.method = view(f->method);
    if (has(offsetof(mcph_message_facts, name))) out.name = view(f->name);
    if (has(offsetof(mcph_message_facts, protocol_version))) out.protocol_version = view(f->protocol_version);
    if (has(offsetof(mcph_message_facts, param_count)) && f->params)
        for (size_t i = 0; i < f->param_count; ++i) out.params.emplace_back(view(f->params[i].name), view(f->params[i].value));
    if (has(offsetof(mcph_message_facts, flags))) out.flags = f->flags;
    return out;
}

using HeaderPairs = std::vector<std::pair<std::string, std::string>>;

// The C view of a request (HookRequest, or any struct with the same members), valid while
// `request` and `storage` live: the one place both sides build an mcph_auth_request.
template <class Request>
mcph_auth_request auth_request_to_c(const Request& request, std::vector<mcph_header>& storage) {
    storage.clear();
    for (const auto& [name, value] : request.response_headers) storage.push_back({str(name), str(value)});
    mcph_auth_request c{};
    c.struct_size = sizeof c;
    c.method = str(request.method);
    c.url = str(request.url);
    c.http_status = request.http_status;
    c.www_authenticate = str(request.www_authenticate);
    c.response_headers = storage.empty() ? nullptr : storage.data();
    c.response_header_count = storage.size();
    return c;
}

// [v1.2] One HTTP request as a transport describes it to the host's auth hooks (owning: a parked
// request keeps it while the host works).
struct HookRequest {
    std::string method;            // "POST", "GET", "DELETE"
    std::string url;               // as sent
    int http_status = 0;           // challenges: the response status
    std::string www_authenticate;  // challenges: every WWW-Authenticate value, joined by ", "
    HeaderPairs response_headers;  // challenges: every header of the response (DPoP-Nonce...)
};

// [v1.2] What an auth hook answered: MCPH_OK (with the headers, for get_request_headers),
// MCPH_PENDING (the answer comes later, through the AuthDone given), or a failure and why.
struct AuthAnswer {
    mcph_status status = MCPH_OK;
    HeaderPairs headers;
    std::string message;
};

// Receives a PENDING hook's answer, exactly once, on any thread (possibly before the call that
// answered PENDING has returned); never after the transport's close() has returned.
using AuthDone = std::function<void(AuthAnswer)>;

// The host side of one transport, as a plugin sees it. Cheap to copy.
class TransportHost {
public:
    TransportHost(const mcph_host_services* services, const mcph_transport_callbacks* callbacks)
        : services_(services), cb_(callbacks) {}

    void deliver(std::string_view message) const { cb_->on_message(cb_->user_data, str(message)); }
    void closed(mcph_close_reason reason, std::string_view detail) const {
        cb_->on_closed(cb_->user_data, reason, str(detail));
    }
    void diagnostic(mcph_log_level level, std::string_view message) const {
        if (has(offsetof(mcph_transport_callbacks, on_diagnostic)) && cb_->on_diagnostic)
            cb_->on_diagnostic(cb_->user_data, level, str(message));
    }
    // Headers the host wants on the next request (auth). Throws Error on failure.
    std::vector<std::pair<std::string, std::string>> request_headers() const {
        std::vector<std::pair<std::string, std::string>> out;
        if (!has(offsetof(mcph_transport_callbacks, get_request_headers)) || !cb_->get_request_headers) return out;
        mcph_header_sink sink{sizeof(mcph_header_sink), &out, [](void* ud, mcph_str n, mcph_str v) {
                                  static_cast<decltype(out)*>(ud)->emplace_back(std::string(view(n)), std::string(view(v)));
                              }};
        mcph_error err = make_error();
        mcph_status st = cb_->get_request_headers(cb_->user_data, &sink, &err);
        if (st != MCPH_OK) throw Error(st, err.message);
        return out;
    }
    // True when the host refreshed credentials and the request should be retried once.
    bool auth_challenge(int http_status, std::string_view www_authenticate, std::string_view resource_url) const {
        if (!has(offsetof(mcph_transport_callbacks, on_auth_challenge)) || !cb_->on_auth_challenge) return false;
        mcph_error err = make_error();
        return cb_->on_auth_challenge(cb_->user_data, http_status, str(www_authenticate), str(resource_url), &err) ==
               MCPH_OK;
    }
    // [v1.2] True when the host offers the asynchronous auth hooks (else the *_async calls below
    // answer at once through the 1.0 hooks, which may block).
    bool has_async_auth() const { return has_async_headers() && has_async_challenge(); }
    bool has_async_headers() const {
        return has(offsetof(mcph_transport_callbacks, get_request_headers_ex)) && cb_->get_request_headers_ex;
    }
    bool has_async_challenge() const {
        return has(offsetof(mcph_transport_callbacks, on_auth_challenge_ex)) && cb_->on_auth_challenge_ex;
    }
    // [v1.2] Headers for `request`: answered now (OK or a failure), or status MCPH_PENDING and
    // `done` receives the answer later. Park only this request meanwhile.
    AuthAnswer request_headers_async(const HookRequest& request, AuthDone done) const {
        if (!has_async_headers()) return legacy_headers();
        return call_async(/*challenge=*/false, request, std::move(done));
    }
    // [v1.2] The server refused `request`: MCPH_OK = retry once (asking for headers again),
    // MCPH_PENDING = `done` says later, anything else = give up (`message` says why).
    AuthAnswer auth_challenge_async(const HookRequest& request, AuthDone done) const {
        if (!has_async_challenge()) {
            AuthAnswer a;
            a.status = auth_challenge(request.http_status, request.www_authenticate, request.url) ? MCPH_OK : MCPH_ERR_AUTH;
            return a;
        }
        return call_async(/*challenge=*/true, request, std::move(done));
    }
    // [v1.2] The same, waiting for a PENDING answer: only for a thread that may block (its own
    // exchange waits, nothing else). The host completes every pending answer when it closes the
    // transport, so the wait ends then at the latest. Throws Error on failure.
    HeaderPairs request_headers(const HookRequest& request) const {
        AuthAnswer a = wait_for(/*challenge=*/false, request);
        if (a.status != MCPH_OK) throw Error(a.status, a.message);
        return std::move(a.headers);
    }
    AuthAnswer auth_challenge(const HookRequest& request) const { return wait_for(/*challenge=*/true, request); }

    // The transport ended, with a typed failure (a 1.0 host gets on_closed with the text).
    void closed(mcph_close_reason reason, const Failure& failure) const {
        if (has(offsetof(mcph_transport_callbacks, on_closed_ex)) && cb_->on_closed_ex) {
            const mcph_failure f = failure.view_c();
            cb_->on_closed_ex(cb_->user_data, reason, &f);
            return;
        }
        closed(reason, failure.legacy_text());
    }
    // A typed, non-fatal connection problem; the human line goes to `diagnostic` as well.
    void failure(mcph_log_level level, const Failure& failure) const {
        diagnostic(level, failure.message);
        if (has(offsetof(mcph_transport_callbacks, on_failure)) && cb_->on_failure) {
            const mcph_failure f = failure.view_c();
            cb_->on_failure(cb_->user_data, &f);
        }
    }
    // One request failed without a JSON-RPC response. A 1.0 host is given what it expected then: a
    // JSON-RPC error -32000 for that id, with data.httpStatus.
    void request_failed(std::string_view request_id, const Failure& failure) const {
        if (has(offsetof(mcph_transport_callbacks, on_request_failed)) && cb_->on_request_failed) {
            const mcph_failure f = failure.view_c();
            cb_->on_request_failed(cb_->user_data, str(request_id), &f);
            return;
        }
        if (request_id.empty()) return;
        std::string text;
        for (char c : failure.message) {
            if (c == '"' || c == '\\') text += '\\';
            if (static_cast<unsigned char>(c) >= 0x20) text += c;
        }
        deliver("{\"jsonrpc\":\"2.0\",\"id\":" + std::string(request_id) + ",\"error\":{\"code\":-32000,\"message\":\"" + text +
                "\",\"data\":{\"httpStatus\":" + std::to_string(failure.http_status) + "}}}");
    }
    void log(mcph_log_level level, std::string_view source, std::string_view message) const {
        if (services_ && services_->log) services_->log(services_->host_data, level, str(source), str(message));
    }
    const mcph_host_services* services() const { return services_; }

private:
    bool has(size_t offset) const { return cb_->struct_size > offset; }

    AuthAnswer legacy_headers() const {
        AuthAnswer a;
        try {
            a.headers = request_headers();
        } catch (const Error& e) {
            a.status = e.status();
            a.message = e.what();
        }
        return a;
    }

    // One _ex hook call. The completion owns a heap copy of `done`, freed when it runs; the hook
    // answering anything but PENDING means it never will, and it is freed here.
    AuthAnswer call_async(bool challenge, const HookRequest& request, AuthDone done) const {
        std::vector<mcph_header> response_headers;
        const mcph_auth_request c = auth_request_to_c(request, response_headers);
        AuthAnswer now;
        mcph_header_sink sink{sizeof(mcph_header_sink), &now.headers, [](void* ud, mcph_str n, mcph_str v) {
                                  static_cast<HeaderPairs*>(ud)->emplace_back(std::string(view(n)), std::string(view(v)));
                              }};
        auto* later = new AuthDone(std::move(done));
        const mcph_auth_completion completion{sizeof(mcph_auth_completion), later, &TransportHost::completed};
        mcph_error err = make_error();
        now.status = challenge ? cb_->on_auth_challenge_ex(cb_->user_data, &c, &completion, &err)
                               : cb_->get_request_headers_ex(cb_->user_data, &c, &sink, &completion, &err);
        if (now.status == MCPH_PENDING) return now;  // `later` belongs to the completion now
        delete later;
        if (now.status != MCPH_OK) now.message = err.message;
        if (challenge) now.headers.clear();  // a challenge's answer carries none: ask again
        return now;
    }

    // The C completion: runs once, from a host thread; nothing may unwind into it.
    static void completed(void* ud, mcph_status status, const mcph_header* headers, size_t count,
                          const mcph_error* err) noexcept {
        std::unique_ptr<AuthDone> done(static_cast<AuthDone*>(ud));
        try {
            AuthAnswer a;
            a.status = status;
            for (size_t i = 0; headers && i < count; ++i)
                a.headers.emplace_back(std::string(view(headers[i].name)), std::string(view(headers[i].value)));
            if (status != MCPH_OK && err && err->struct_size >= sizeof(mcph_error)) a.message = err->message;
            (*done)(std::move(a));
        } catch (...) {
            // Out of memory while copying: the transport's own bounds and close() still hold.
        }
    }

    AuthAnswer wait_for(bool challenge, const HookRequest& request) const {
        struct Slot {
            std::mutex mutex;
            std::condition_variable cv;
            std::optional<AuthAnswer> answer;
        };
        auto slot = std::make_shared<Slot>();
        AuthAnswer now = challenge ? auth_challenge_async(request, [slot](AuthAnswer a) {
            std::lock_guard lock(slot->mutex);
            slot->answer = std::move(a);
            slot->cv.notify_all();
        })
                                   : request_headers_async(request, [slot](AuthAnswer a) {
                                         std::lock_guard lock(slot->mutex);
                                         slot->answer = std::move(a);
                                         slot->cv.notify_all();
                                     });
        if (now.status != MCPH_PENDING) return now;
        std::unique_lock lock(slot->mutex);
        slot->cv.wait(lock, [&] { return slot->answer.has_value(); });
        return std::move(*slot->answer);
    }

    const mcph_host_services* services_;
    const mcph_transport_callbacks* cb_;
};

// Base class of a C++ transport. The constructor reads the config (ConfigReader below; throw
// Error on bad input).
class Transport {
public:
    virtual ~Transport() = default;
    virtual void start() = 0;                              // [host-thread]
    virtual void send(std::string_view message) = 0;       // [thread-safe]
    virtual void set_option(std::string_view key, std::string_view value) {  // [thread-safe]
        (void)key;
        (void)value;
        throw Error(MCPH_ERR_UNSUPPORTED, "option not supported");
    }
    virtual void close() noexcept = 0;                     // [host-thread], idempotent
    // [thread-safe] ABI v1.1: send with the host's facts about the message. Default: plain send.
    virtual void send_ex(std::string_view message, const MessageFacts& facts) {
        (void)facts;
        send(message);
    }
    // [thread-safe] ABI v1.1: the host gave up on one request (JSON text of its id).
    virtual void cancel(std::string_view request_id) { (void)request_id; }
    // [any host thread, one at a time] ABI v1.3: read and deliver on the calling thread (see
    // `pump` in plugin_api.h for the statuses). Default: this transport reads on its own threads.
    virtual mcph_status pump(std::int32_t timeout_ms) {
        (void)timeout_ms;
        return MCPH_ERR_UNSUPPORTED;
    }
};

namespace detail {
template <class T>
T* as(mcph_transport* t) { return reinterpret_cast<T*>(t); }
}  // namespace detail

// Builds the C vtable for transport class T, constructible as T(TransportHost, std::string_view config).
// `traits` are MCPH_TRAIT_* flags (ABI v1.1).
template <class T>
constexpr mcph_transport_vtable_v1 make_transport_vtable(const char* const* config_types, std::uint32_t traits = 0) {
    mcph_transport_vtable_v1 v{};
    v.struct_size = sizeof(mcph_transport_vtable_v1);
    v.config_types = config_types;
    v.traits = traits;
    v.send_ex = [](mcph_transport* t, mcph_str message, const mcph_message_facts* facts, mcph_error* err) noexcept {
        return guarded(err, [&] { detail::as<Transport>(t)->send_ex(view(message), facts_from(facts)); });
    };
    v.cancel = [](mcph_transport* t, mcph_str request_id, mcph_error* err) noexcept {
        return guarded(err, [&] { detail::as<Transport>(t)->cancel(view(request_id)); });
    };
    v.pump = [](mcph_transport* t, std::int32_t timeout_ms, mcph_error* err) noexcept {
        mcph_status status = MCPH_OK;
        const mcph_status thrown = guarded(err, [&] { status = detail::as<Transport>(t)->pump(timeout_ms); });
        return thrown != MCPH_OK ? thrown : status;
    };
    v.create = [](const mcph_host_services* host, mcph_str config, const mcph_transport_callbacks* cb,
                  mcph_transport** out, mcph_error* err) noexcept {
        return guarded(err, [&] {
            if (!out || !cb) throw Error(MCPH_ERR_INVALID_ARGUMENT, "null argument");
            Transport* t = new T(TransportHost(host, cb), view(config));
            *out = reinterpret_cast<mcph_transport*>(t);
        });
    };
    v.start = [](mcph_transport* t, mcph_error* err) noexcept {
        return guarded(err, [&] { detail::as<Transport>(t)->start(); });
    };
    v.send = [](mcph_transport* t, mcph_str message, mcph_error* err) noexcept {
        return guarded(err, [&] { detail::as<Transport>(t)->send(view(message)); });
    };
    v.set_option = [](mcph_transport* t, mcph_str key, mcph_str value, mcph_error* err) noexcept {
        return guarded(err, [&] { detail::as<Transport>(t)->set_option(view(key), view(value)); });
    };
    v.close = [](mcph_transport* t) noexcept { detail::as<Transport>(t)->close(); };
    v.destroy = [](mcph_transport* t) noexcept {
        Transport* p = detail::as<Transport>(t);
        p->close();
        delete p;
    };
    return v;
}

// [v1.2] The HTTP request an auth hook is about (mcph_auth_request), as C++ views.
struct AuthRequest {
    std::string_view method;
    std::string_view url;
    int http_status = 0;
    std::string_view www_authenticate;
    std::vector<std::pair<std::string_view, std::string_view>> response_headers;

    // The first response header of that name (ASCII case-insensitive); empty when absent.
    std::string_view header(std::string_view name) const {
        for (const auto& [n, v] : response_headers) {
            if (n.size() != name.size()) continue;
            bool same = true;
            for (size_t i = 0; i < n.size() && same; ++i) {
                auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
                same = lower(n[i]) == lower(name[i]);
            }
            if (same) return v;
        }
        return {};
    }
};

inline AuthRequest auth_request_from_c(const mcph_auth_request* r) {
    AuthRequest out;
    if (!r) return out;
    auto has = [r](size_t offset) { return r->struct_size > offset; };
    if (has(offsetof(mcph_auth_request, method))) out.method = view(r->method);
    if (has(offsetof(mcph_auth_request, url))) out.url = view(r->url);
    if (has(offsetof(mcph_auth_request, http_status))) out.http_status = r->http_status;
    if (has(offsetof(mcph_auth_request, www_authenticate))) out.www_authenticate = view(r->www_authenticate);
    if (has(offsetof(mcph_auth_request, response_header_count)) && r->response_headers)
        for (size_t i = 0; i < r->response_header_count; ++i)
            out.response_headers.emplace_back(view(r->response_headers[i].name), view(r->response_headers[i].value));
    return out;
}

// Thrown by Auth::headers_for in non-blocking mode: "this needs the network; ask me again where
// blocking is fine". Becomes MCPH_PENDING at the boundary.
class WouldBlock : public Error {
public:
    WouldBlock() : Error(MCPH_PENDING, "would block") {}
};

// Base class of a C++ auth backend (one object per server).
class Auth {
public:
    virtual ~Auth() = default;
    virtual std::vector<std::pair<std::string, std::string>> headers() = 0;
    virtual bool handle_challenge(int http_status, std::string_view www_authenticate) = 0;
    virtual void login() { throw Error(MCPH_ERR_UNSUPPORTED, "login not supported"); }
    virtual void logout() {}
    virtual std::string describe() { return "{}"; }

    // [v1.2] Headers for one request. `nonblocking`: no network I/O and no waiting — throw
    // WouldBlock instead. The default serves the 1.0 `headers()` and, since that may block,
    // always defers in non-blocking mode.
    virtual std::vector<std::pair<std::string, std::string>> headers_for(const AuthRequest& request, bool nonblocking) {
        (void)request;
        if (nonblocking) throw WouldBlock();
        return headers();
    }
    // [v1.2] A challenge with the whole response. The default serves the 1.0 `handle_challenge`.
    virtual bool handle_challenge_for(const AuthRequest& request) {
        return handle_challenge(request.http_status, request.www_authenticate);
    }
    // [v1.2] Make a blocking call in progress return soon (MCPH_ERR_CANCELLED). Thread-safe.
    virtual void cancel() noexcept {}
};

struct AuthContext {
    const mcph_host_services* host;
    std::string_view server_name;
    std::string_view server_url;
    std::string_view config_json;
};

// Builds the C vtable for auth class T, constructible as T(const AuthContext&).
template <class T>
constexpr mcph_auth_vtable_v1 make_auth_vtable(const char* backend_name) {
    mcph_auth_vtable_v1 v{};
    v.struct_size = sizeof(mcph_auth_vtable_v1);
    v.backend_name = backend_name;
    v.create = [](const mcph_host_services* host, mcph_str name, mcph_str url, mcph_str config, mcph_auth** out,
                  mcph_error* err) noexcept {
        return guarded(err, [&] {
            if (!out) throw Error(MCPH_ERR_INVALID_ARGUMENT, "null argument");
            Auth* a = new T(AuthContext{host, view(name), view(url), view(config)});
            *out = reinterpret_cast<mcph_auth*>(a);
        });
    };
    v.get_headers = [](mcph_auth* a, const mcph_header_sink* sink, mcph_error* err) noexcept {
        return guarded(err, [&] {
            for (auto& [n, val] : reinterpret_cast<Auth*>(a)->headers()) sink->add(sink->user_data, str(n), str(val));
        });
    };
    v.handle_challenge = [](mcph_auth* a, int status, mcph_str challenge, mcph_error* err) noexcept {
        return guarded(err, [&] {
            if (!reinterpret_cast<Auth*>(a)->handle_challenge(status, view(challenge)))
                throw Error(MCPH_ERR_AUTH, "credentials could not be refreshed");
        });
    };
    v.login = [](mcph_auth* a, mcph_error* err) noexcept {
        return guarded(err, [&] { reinterpret_cast<Auth*>(a)->login(); });
    };
    v.logout = [](mcph_auth* a, mcph_error* err) noexcept {
        return guarded(err, [&] { reinterpret_cast<Auth*>(a)->logout(); });
    };
    v.describe = [](mcph_auth* a, const mcph_string_sink* out, mcph_error* err) noexcept {
        return guarded(err, [&] {
            std::string d = reinterpret_cast<Auth*>(a)->describe();
            out->set(out->user_data, str(d));
        });
    };
    v.destroy = [](mcph_auth* a) noexcept { delete reinterpret_cast<Auth*>(a); };
    v.get_headers_ex = [](mcph_auth* a, const mcph_auth_request* request, uint32_t flags,
                          const mcph_header_sink* sink, mcph_error* err) noexcept {
        return guarded(err, [&] {
            const bool nonblocking = (flags & MCPH_AUTH_NONBLOCKING) != 0;
            for (auto& [n, val] : reinterpret_cast<Auth*>(a)->headers_for(auth_request_from_c(request), nonblocking))
                sink->add(sink->user_data, str(n), str(val));
        });
    };
    v.handle_challenge_ex = [](mcph_auth* a, const mcph_auth_request* request, mcph_error* err) noexcept {
        return guarded(err, [&] {
            if (!reinterpret_cast<Auth*>(a)->handle_challenge_for(auth_request_from_c(request)))
                throw Error(MCPH_ERR_AUTH, "credentials could not be refreshed");
        });
    };
    v.cancel = [](mcph_auth* a) noexcept { reinterpret_cast<Auth*>(a)->cancel(); };
    return v;
}

// ---- Reading the JSON config string ----------------------------------------------------------
//
// Every plugin is handed its configuration as one JSON string (the transport's server entry, an
// auth backend's object) and must refuse a bad one at create() with a message naming the field.
// ConfigReader is that reader, written once: the bounded parse, typed getters, and a typed error.
//
//   mcph::plugin::ConfigReader r(config_json, "mytype");
//   std::string url = r.required_string("url", {/*non_empty=*/true});
//   auto timeout = r.integer<std::uint32_t>("timeoutMs", 1, 600000, 30000);
//   auto headers = r.string_map("headers").value_or(mcph::plugin::StringPairs{});
//   if (auto tls = r.object("tls")) ca = tls->string("caFile").value_or("");
//   r.throw_if_error();          // or: return r.report(err);  (a C-style entry point)
//
// Rules every getter follows:
// - A member whose value is `null` is the same as an absent one.
// - The first failure is kept (error()) and every later call returns its default without looking:
//   the plugin reads all its fields in a row and checks once. The plugin's own checks go through
//   fail(), which keeps the first failure too.
// - A key that appears twice is refused when read ("'url' appears more than once"): the host and
//   the plugin must never act on different copies of one setting.
// - Strings (map names too) refuse a NUL byte unless StringRules says otherwise: each reaches a
//   C API (argv, a path, a header) that would silently cut it there.
// - Keys nobody read are ignored: the host passes the whole server entry, with keys of its own
//   ("timeout", "oauth", ...). A plugin that wants strictness asks reject_unknown_keys().
// - Bounds: the text is refused past ConfigLimits::max_bytes (the host's 16 MiB config bound) and
//   parsed under json_bounds' depth bound, so no config can exhaust stack or memory.

// The largest config accepted by default: the host's bound on a whole config file.
inline constexpr std::size_t kMaxConfigBytes = std::size_t{16} << 20;

struct ConfigLimits {
    std::size_t max_bytes = kMaxConfigBytes;
    unsigned max_depth = json_bounds::kMaxDepth;
};

enum class ConfigErrorKind {
    malformed,     // not JSON
    too_large,     // longer than ConfigLimits::max_bytes
    too_deep,      // nested deeper than ConfigLimits::max_depth
    not_object,    // valid JSON, but the config is not an object
    missing,       // a required field is absent (or null)
    wrong_type,    // present with another JSON type, or a string with a NUL byte
    out_of_range,  // an integer outside its range
    invalid,       // the right type with a refused value (empty, duplicate key, a plugin's own check)
    unknown_key,   // reject_unknown_keys() found a member nobody read
};

// What was wrong, typed. `field` is the path from the config's root ("url", "headers.X",
// "args[1]", "idp.clientId"; empty for the whole config); `expected` says what was wanted ("a
// string", "an integer between 1 and 600000"); `message` is the sentence for people.
struct ConfigError {
    ConfigErrorKind kind = ConfigErrorKind::invalid;
    std::string field;
    std::string expected;
    std::string message;
};

// A ConfigError as an Error (MCPH_ERR_INVALID_ARGUMENT), for code running under guarded().
class ConfigException : public Error {
public:
    explicit ConfigException(ConfigError error)
        : Error(MCPH_ERR_INVALID_ARGUMENT, error.message), error_(std::move(error)) {}
    const ConfigError& error() const noexcept { return error_; }

private:
    ConfigError error_;
};

struct StringRules {
    bool non_empty = false;  // "" is refused
    bool allow_nul = false;  // a NUL byte is accepted (binary secrets handed to no C API)
};

struct ArrayRules {
    bool non_empty = false;  // [] is refused
    StringRules items;
};

using StringPairs = std::vector<std::pair<std::string, std::string>>;

namespace detail {
// The state every ConfigObject of one reader shares: its first failure and the message prefix.
struct ConfigState {
    std::string subject;  // "stdio" → "stdio config: ..."
    std::optional<ConfigError> error;
};
}  // namespace detail

// One JSON object of the config (the root, or a nested one from object()), read field by field.
class ConfigObject {
public:
    bool ok() const { return !state_->error; }
    const std::optional<ConfigError>& error() const { return state_->error; }
    void throw_if_error() const {
        if (state_->error) throw ConfigException(*state_->error);
    }
    // MCPH_OK, or the failure's status and message in `err`: for an entry point without guarded().
    mcph_status report(mcph_error* err) const noexcept {
        if (!state_->error) return MCPH_OK;
        fill_error(err, MCPH_ERR_INVALID_ARGUMENT, state_->error->message);
        return MCPH_ERR_INVALID_ARGUMENT;
    }

    // The path of `key` in this object, as errors name it ("idp.clientId").
    std::string path(std::string_view key) const { return path_.empty() ? std::string(key) : path_ + "." + std::string(key); }

    // True when `key` is present and not null.
    bool has(std::string_view key) { return value(key) != nullptr; }

    // The raw value of `key` (nullptr when absent, null, or after a failure), for a field with a
    // shape of its own (a string or an array, `true` or "auto"): check it and fail() yourself.
    const rapidjson::Value* value(std::string_view key) {
        if (!ok() || !object_) return nullptr;
        const rapidjson::Value* found = nullptr;
        rapidjson::SizeType index = 0;
        for (auto it = object_->MemberBegin(); it != object_->MemberEnd(); ++it, ++index) {
            if (std::string_view(it->name.GetString(), it->name.GetStringLength()) != key) continue;
            read_[index] = true;
            if (found) {
                fail_at(path(key), ConfigErrorKind::invalid, "a single value", "appears more than once");
                return nullptr;
            }
            found = &it->value;
        }
        return found && !found->IsNull() ? found : nullptr;
    }

    std::optional<std::string> string(std::string_view key, StringRules rules = {}) {
        const rapidjson::Value* v = value(key);
        if (!v) return std::nullopt;
        return checked_string(*v, path(key), rules);
    }
    // "" after a failure (the reader keeps the error).
    std::string required_string(std::string_view key, StringRules rules = {}) {
        if (std::optional<std::string> s = string(key, rules)) return std::move(*s);
        if (ok()) fail_at(path(key), ConfigErrorKind::missing, "a string", "is required");
        return {};
    }

    std::optional<bool> boolean(std::string_view key) {
        const rapidjson::Value* v = value(key);
        if (!v) return std::nullopt;
        if (!v->IsBool()) {
            wrong_type(path(key), "true or false");
            return std::nullopt;
        }
        return v->GetBool();
    }

    // An integer in [min, max] (a JSON number with no fraction; 1.0 and 1e3 are not integers).
    template <class Int>
    std::optional<Int> integer(std::string_view key, Int min, Int max) {
        static_assert(std::is_integral_v<Int> && !std::is_same_v<Int, bool>, "integer<Int> needs an integer type");
        const rapidjson::Value* v = value(key);
        if (!v) return std::nullopt;
        std::optional<Int> in_range = detail_in_range(*v, min, max);
        if (!in_range) {
            const std::string expected = "an integer between " + std::to_string(min) + " and " + std::to_string(max);
            const bool integral = v->IsInt64() || v->IsUint64();
            fail_at(path(key), integral ? ConfigErrorKind::out_of_range : ConfigErrorKind::wrong_type, expected,
                    "must be " + expected);
        }
        return in_range;
    }
    template <class Int>
    Int integer(std::string_view key, Int min, Int max, Int fallback) {
        return integer<Int>(key, min, max).value_or(fallback);
    }

    std::optional<std::vector<std::string>> string_array(std::string_view key, ArrayRules rules = {}) {
        const rapidjson::Value* v = value(key);
        if (!v) return std::nullopt;
        const char* expected = rules.non_empty ? "a non-empty array of strings" : "an array of strings";
        if (!v->IsArray() || (rules.non_empty && v->Empty())) {
            fail_at(path(key), v->IsArray() ? ConfigErrorKind::invalid : ConfigErrorKind::wrong_type, expected,
                    std::string("must be ") + expected);
            return std::nullopt;
        }
        std::vector<std::string> out;
        for (rapidjson::SizeType i = 0; i < v->Size(); ++i) {
            std::optional<std::string> s = checked_string((*v)[i], path(key) + "[" + std::to_string(i) + "]", rules.items);
            if (!s) return std::nullopt;
            out.push_back(std::move(*s));
        }
        return out;
    }

    // An object whose every value is a string, in document order (names: no NUL, never empty).
    std::optional<StringPairs> string_map(std::string_view key, StringRules values = {}) {
        const rapidjson::Value* v = value(key);
        if (!v) return std::nullopt;
        if (!v->IsObject()) {
            wrong_type(path(key), "an object of strings");
            return std::nullopt;
        }
        StringPairs out;
        // Hashed, not a scan of `out`: a 16 MiB map has a million names, and n² would hang.
        std::unordered_set<std::string_view> seen;
        for (auto it = v->MemberBegin(); it != v->MemberEnd(); ++it) {
            std::string name(it->name.GetString(), it->name.GetStringLength());
            if (name.empty() || name.find('\0') != std::string::npos) {
                fail_at(path(key), ConfigErrorKind::invalid, "non-empty names without NUL bytes",
                        "has an empty name or one with a NUL byte");
                return std::nullopt;
            }
            if (!seen.insert(std::string_view(it->name.GetString(), it->name.GetStringLength())).second) {
                fail_at(path(key) + "." + name, ConfigErrorKind::invalid, "a single value", "appears more than once");
                return std::nullopt;
            }
            std::optional<std::string> s = checked_string(it->value, path(key) + "." + name, values);
            if (!s) return std::nullopt;
            out.emplace_back(std::move(name), std::move(*s));
        }
        return out;
    }

    // A nested object, read like this one; its failures are this reader's.
    std::optional<ConfigObject> object(std::string_view key) {
        const rapidjson::Value* v = value(key);
        if (!v) return std::nullopt;
        if (!v->IsObject()) {
            wrong_type(path(key), "an object");
            return std::nullopt;
        }
        return ConfigObject(state_, v, path(key));
    }

    // Records a failure of `key` (a plugin's own check): "<subject> config: '<path>' <text>", or
    // "<subject> config: <text>" when `key` is empty. Ignored when a failure is already kept.
    void fail(std::string_view key, std::string_view text, ConfigErrorKind kind = ConfigErrorKind::invalid,
              std::string_view expected = {}) {
        fail_at(key.empty() ? path_ : path(key), kind, std::string(expected), std::string(text));
    }

    // Members of this object no getter asked for, in document order.
    std::vector<std::string> unknown_keys() const {
        std::vector<std::string> out;
        if (!object_) return out;
        rapidjson::SizeType index = 0;
        for (auto it = object_->MemberBegin(); it != object_->MemberEnd(); ++it, ++index)
            if (!read_[index]) out.emplace_back(it->name.GetString(), it->name.GetStringLength());
        return out;
    }
    // Call after reading every field: the first member nobody read is a failure.
    void reject_unknown_keys() {
        std::vector<std::string> unknown = unknown_keys();
        if (!unknown.empty())
            fail_at(path(unknown.front()), ConfigErrorKind::unknown_key, "a known field", "is not a known field");
    }

protected:
    ConfigObject(detail::ConfigState* state, const rapidjson::Value* object, std::string path)
        : state_(state), object_(object), path_(std::move(path)) {
        if (object_) read_.assign(object_->MemberCount(), false);
    }
    void bind(const rapidjson::Value* object) {
        object_ = object;
        read_.assign(object_ ? object_->MemberCount() : 0, false);
    }
    // "<subject> config: '<field>' <text>"; "<subject> config: <text>" for no field; and for the
    // whole document (`whole`) "<subject> config <text>" ("stdio config is not valid JSON: ...").
    void fail_at(std::string field, ConfigErrorKind kind, std::string expected, const std::string& text,
                 bool whole = false) {
        if (state_->error) return;
        std::string message = state_->subject.empty() ? std::string("config") : state_->subject + " config";
        message += whole ? " " + text : field.empty() ? ": " + text : ": '" + field + "' " + text;
        state_->error = ConfigError{kind, std::move(field), std::move(expected), std::move(message)};
    }

private:
    void wrong_type(const std::string& field, const std::string& expected) {
        fail_at(field, ConfigErrorKind::wrong_type, expected, "must be " + expected);
    }

    std::optional<std::string> checked_string(const rapidjson::Value& v, const std::string& field, StringRules rules) {
        if (!v.IsString()) {
            wrong_type(field, "a string");
            return std::nullopt;
        }
        std::string s(v.GetString(), v.GetStringLength());
        if (rules.non_empty && s.empty()) {
            fail_at(field, ConfigErrorKind::invalid, "a non-empty string", "must not be empty");
            return std::nullopt;
        }
        if (!rules.allow_nul && s.find('\0') != std::string::npos) {
            fail_at(field, ConfigErrorKind::wrong_type, "a string without NUL bytes", "contains a NUL byte");
            return std::nullopt;
        }
        return s;
    }

    // The value as Int when it is an integer JSON number within [min, max]; compares in 64 bits
    // with the sign handled apart, so no range can wrap.
    template <class Int>
    static std::optional<Int> detail_in_range(const rapidjson::Value& v, Int min, Int max) {
        if (v.IsUint64()) {
            const std::uint64_t u = v.GetUint64();
            if constexpr (std::is_signed_v<Int>) {
                if (max < 0 || (min > 0 && u < static_cast<std::uint64_t>(min))) return std::nullopt;
            } else {
                if (u < static_cast<std::uint64_t>(min)) return std::nullopt;
            }
            if (u > static_cast<std::uint64_t>(max)) return std::nullopt;
            return static_cast<Int>(u);
        }
        if (v.IsInt64()) {  // negative: every non-negative integer is IsUint64
            const std::int64_t i = v.GetInt64();
            if constexpr (std::is_unsigned_v<Int>) {
                return std::nullopt;
            } else {
                if (i < static_cast<std::int64_t>(min) || i > static_cast<std::int64_t>(max)) return std::nullopt;
                return static_cast<Int>(i);
            }
        }
        return std::nullopt;
    }

    detail::ConfigState* state_;
    const rapidjson::Value* object_ = nullptr;
    std::string path_;
    std::vector<bool> read_;
};

// The root of a config: parses `json` under `limits`; a failure to parse or a non-object is the
// reader's first error (so every getter then answers its default). `subject` starts every
// message ("stdio" → "stdio config: 'command' is required"). Neither copied nor moved: the
// objects it hands out point into it.
class ConfigReader : public ConfigObject {
public:
    explicit ConfigReader(std::string_view json, std::string subject = {}, ConfigLimits limits = {})
        : ConfigObject(&owned_state_, nullptr, std::string()) {
        owned_state_.subject = std::move(subject);
        if (json.size() > limits.max_bytes) {
            fail_at({}, ConfigErrorKind::too_large, "at most " + std::to_string(limits.max_bytes) + " bytes",
                    "is " + std::to_string(json.size()) + " bytes, more than the " + std::to_string(limits.max_bytes) +
                        " allowed",
                    /*whole=*/true);
            return;
        }
        const json_bounds::ParseOutcome parsed = json_bounds::parse(doc_, json, limits.max_depth);
        if (!parsed) {
            const bool deep = parsed.status == json_bounds::ParseOutcome::Status::TooDeep;
            fail_at({}, deep ? ConfigErrorKind::too_deep : ConfigErrorKind::malformed,
                    deep ? "at most " + std::to_string(limits.max_depth) + " levels of nesting" : "JSON",
                    "is not valid JSON: " + parsed.message(), /*whole=*/true);
            return;
        }
        if (!doc_.IsObject()) {
            fail_at({}, ConfigErrorKind::not_object, "a JSON object", "must be a JSON object", /*whole=*/true);
            return;
        }
        bind(&doc_);
    }
    ConfigReader(const ConfigReader&) = delete;
    ConfigReader& operator=(const ConfigReader&) = delete;

    // The prefix of later messages, e.g. once "type" said which kind of entry this is.
    void set_subject(std::string subject) { owned_state_.subject = std::move(subject); }

private:
    detail::ConfigState owned_state_;
    rapidjson::Document doc_;
};

}  // namespace mcph::plugin

// Defines mcph_plugin_entry for a plugin that offers one interface.
// INIT is an `mcph_status (*)(const mcph_host_services*, mcph_error*)` or nullptr.
#define MCPH_DEFINE_PLUGIN(NAME, VERSION, DESCRIPTION, INIT, INTERFACE_ID, VTABLE_PTR) \
    MCPH_DEFINE_PLUGIN_WITH_SHUTDOWN(NAME, VERSION, DESCRIPTION, INIT, nullptr, INTERFACE_ID, VTABLE_PTR)

// The same, with SHUTDOWN (a `void (*)(void)` or nullptr): what the plugin ends once the host has
// destroyed every object it created (a thread of its own, say), before the library may be unmapped.
#define MCPH_DEFINE_PLUGIN_WITH_SHUTDOWN(NAME, VERSION, DESCRIPTION, INIT, SHUTDOWN, INTERFACE_ID, VTABLE_PTR) \
    extern "C" MCPH_PLUGIN_EXPORT const mcph_plugin* mcph_plugin_entry(void) {                                \
        static const mcph_plugin descriptor = {                                                               \
            sizeof(mcph_plugin), MCPH_ABI_MAJOR, MCPH_ABI_MINOR, NAME, VERSION, DESCRIPTION, INIT,            \
            [](const char* id) -> const void* {                                                               \
                return (id && std::strcmp(id, INTERFACE_ID) == 0) ? static_cast<const void*>(VTABLE_PTR)       \
                                                                  : nullptr;                                  \
            },                                                                                                \
            SHUTDOWN};                                                                                        \
        return &descriptor;                                                                                   \
    }

#endif  // MCPH_PLUGIN_HELPER_HPP
