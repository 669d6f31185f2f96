// What a session needs from a transport, whether a loaded plugin (TransportChannel) or the
// in-process one (InProcessTransport), and what a transport tells its listener.
#pragma once

#include <mcph/plugin_api.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcph::transport {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// What the host knows about one outgoing message (ABI v1.1 mcph_message_facts), so a transport
// never re-parses the JSON: the id as JSON text, method, the name Mcp-Name mirrors, the version,
// and the x-mcp-header parameters (annotation name → value as text).
struct MessageFacts {
    std::string id;
    std::string method;
    std::string name;
    std::string protocol_version;
    HeaderList params;
    std::uint32_t flags = 0;  // MCPH_MESSAGE_*
};

// A typed transport failure (ABI v1.1 mcph_failure), owning its text. The host decides on the
// category, the OS error and the HTTP status — never on `message`, which is for people.
struct Failure {
    mcph_failure_category category = MCPH_FAILURE_OTHER;
    int os_error = 0;
    int http_status = 0;
    std::string message;
    std::string stderr_tail;
    std::string body;
};

// How a pumping wait ended (Transport::pump_until).
enum class PumpWait {
    ready,        // ready() became true
    deadline,     // the deadline passed first
    unsupported,  // this transport cannot be read on this thread now: wait the usual way
};

class Transport {
public:
    virtual ~Transport() = default;
    virtual void start() = 0;  // throws Error(Connection)
    // Throws Error(Connection). `facts` may be null (a notification or response the host has no
    // facts for; an ABI 1.0 plugin ignores them anyway).
    virtual void send(std::string_view message, const MessageFacts* facts) = 0;
    void send(std::string_view message) { send(message, nullptr); }
    virtual void set_option(std::string_view key, std::string_view value) = 0;  // unknown keys ignored
    // The host gave up on one request: a transport with MCPH_TRAIT_PER_REQUEST_CANCEL ends that
    // request's stream. Others ignore it (the session sends notifications/cancelled instead).
    virtual void cancel(std::string_view request_id) { (void)request_id; }
    // MCPH_TRAIT_* flags.
    virtual std::uint32_t traits() const = 0;
    virtual void close() = 0;  // idempotent; no callbacks after it returns

    // [ABI 1.3] A waiting caller reads the transport itself. enter_pump() (called where the object
    // is known to be alive, e.g. under the session's channel lock) says whether pumping is possible
    // and, when true, keeps the object alive until the matching leave_pump(); pump_until() between
    // the two reads on this thread until `ready()` or `deadline`. Default: no pumping.
    virtual bool enter_pump() { return false; }
    virtual PumpWait pump_until(const std::function<bool()>& ready, std::chrono::steady_clock::time_point deadline) {
        (void)ready;
        (void)deadline;
        return PumpWait::unsupported;
    }
    virtual void leave_pump() {}
};

// The HTTP request an auth hook is asked about (ABI v1.2 mcph_auth_request), owning its text so
// it can outlive the hook call when the answer is handed to the auth worker.
struct AuthRequest {
    std::string method;            // "POST", "GET", "DELETE"; empty from an ABI 1.0/1.1 plugin
    std::string url;               // the request URL as sent; empty from an ABI 1.0/1.1 plugin
    int http_status = 0;           // challenges: the response status; 0 before sending
    std::string www_authenticate;  // challenges: every WWW-Authenticate value, joined by ", "
    HeaderList response_headers;   // challenges: every header of the response
};

// The server's auth as a transport's hooks reach it (AuthSession). Shared ownership: a job handed
// to the auth worker keeps it alive however soon the session and its transport go away.
class AuthHooks {
public:
    virtual ~AuthHooks() = default;
    // [thread-safe] Headers for `request` into `out`. `nonblocking`: no network, no waiting —
    // MCPH_PENDING when that would be needed. Any other failure: its status and `reason`.
    virtual mcph_status headers(const AuthRequest& request, bool nonblocking, HeaderList* out, std::string* reason) = 0;
    // [thread-safe, may block] The server refused `request`. MCPH_OK = retry it once.
    virtual mcph_status challenge(const AuthRequest& request, std::string* reason) = 0;
    // [thread-safe] Runs `job` soon on a thread of the auth's own where blocking is fine (never the
    // caller's). Bounded: one such thread per server.
    virtual void run_blocking(std::function<void()> job) = 0;
    // [thread-safe] A blocking call in progress (a sign-in waiting for its redirect) gives up soon.
    virtual void cancel() noexcept = 0;
};

class TransportListener {
public:
    virtual ~TransportListener() = default;
    virtual void on_transport_message(std::string_view message) = 0;                           // plugin thread
    virtual void on_transport_closed(mcph_close_reason reason, const Failure& failure) = 0;      // plugin thread
    virtual void on_transport_diagnostic(mcph_log_level level, std::string_view message) = 0;    // human log line
    // A typed, non-fatal problem (the health monitor decides what it means).
    virtual void on_transport_failure(const Failure& failure) { (void)failure; }
    // One request failed without a JSON-RPC response (HTTP error status, broken response stream).
    virtual void on_transport_request_failed(std::string_view request_id, const Failure& failure) = 0;
    // The server's auth, for the transport's auth hooks; null: no auth (no headers, challenges
    // not handled). Called once, when the transport is built.
    virtual std::shared_ptr<AuthHooks> auth_hooks() { return nullptr; }
};

}  // namespace mcph::transport
