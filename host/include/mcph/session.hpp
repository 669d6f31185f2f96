// mcph::ClientSession — one MCP client connected to one server through a transport plugin.
//
// Thread-safe. Blocking calls wait on futures completed directly by the transport's I/O thread
// (no hop through the event loop). Created by mcph::Host.
#pragma once

#include <mcph/callbacks.hpp>
#include <mcph/error.hpp>
#include <mcph/export.hpp>
#include <mcph/json.hpp>
#include <mcph/types.hpp>

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <vector>

namespace mcph {

namespace detail {
class SessionCore;
struct ClientSessionAccess;
class RequestResult;  // the slot the library's requests are answered into (no std::promise)
}

// A request in flight: its result, and a way to cancel it (sends notifications/cancelled).
class PendingRequest {
public:
    // How a PendingRequest made from a std::future waits for the result instead of sleeping on it:
    // it reads the transport on the waiting thread when it can (the reply is then delivered right
    // here, with no hand-off between threads), until the result is ready or `deadline`; it returns
    // early when it cannot, and the caller then waits on the future as usual.
    using Waiter = std::function<void(std::future<Json>& result, std::chrono::steady_clock::time_point deadline)>;

    PendingRequest(std::future<Json> result, std::function<void(const std::string&)> cancel,
                   std::shared_ptr<const Waiter> wait = nullptr)
        : result_(std::move(result)), cancel_(std::move(cancel)), wait_(std::move(wait)) {}
    // The library's requests (ClientSession::request): the answer lands in `result`, without the
    // system call a std::promise costs per request; waits read the transport on the waiting
    // thread the same way.
    PendingRequest(std::shared_ptr<detail::RequestResult> result, std::function<void(const std::string&)> cancel)
        : slot_(std::move(result)), cancel_(std::move(cancel)) {}
    // Blocks for the result object; throws mcph::Error (Remote, Timeout, Cancelled, Connection...).
    // Once: a second call throws std::future_error, as std::future::get does.
    MCPH_API Json get();
    // Waits up to `timeout` for the result; true when it is ready (get() then returns at once).
    MCPH_API bool wait_for(std::chrono::milliseconds timeout);
    // The result as a bare std::future, made on first use: waiting on it directly sleeps while the
    // transport's thread reads (get() and wait_for() are cheaper for a blocking wait). After this
    // call, get() and wait_for() wait on that future too.
    MCPH_API std::future<Json>& future();
    void cancel(const std::string& reason = "cancelled by the caller") {
        if (cancel_) cancel_(reason);
    }

private:
    std::shared_ptr<detail::RequestResult> slot_;  // null when made from a future, or once future() was asked
    std::future<Json> result_;
    std::function<void(const std::string&)> cancel_;
    std::shared_ptr<const Waiter> wait_;
};

// Completion of an asynchronous request: called exactly once, with `error` null on success. It runs
// on the transport's I/O thread (or on the caller's thread when the request fails at once), so it
// must be quick; it may start further requests.
using ResponseHandler = std::function<void(Json result, const Error* error)>;

// Sessions come from mcph::Host (connect, session) and mcph::Overlay (session); copies of the
// shared_ptr share one connection.
class MCPH_API ClientSession {
public:
    ~ClientSession();

    const std::string& server_name() const;
    bool connected() const;
    // After connect: what the server said about itself (copies: a reconnect may replace them).
    std::string protocol_version() const;
    // "modern" (2026-07-28 on: stateless, no initialize) or "legacy" (2025-11-25 and earlier).
    std::string era() const;
    Implementation server_info() const;
    Json server_capabilities() const;
    std::string instructions() const;
    bool has_capability(const char* name) const;

    // Generic JSON-RPC.
    PendingRequest request(const std::string& method, Json params, const RequestOptions& options = {});
    Json call(const std::string& method, Json params, const RequestOptions& options = {});
    // The same request completed by a callback instead of a future: no thread wakes up to collect
    // the result, which is what high-throughput embedders want.
    void request_async(const std::string& method, Json params, ResponseHandler done, const RequestOptions& options = {});
    void notify(const std::string& method, Json params);

    // Features. List calls follow every nextCursor (page cap, non-advancing cursors detected).
    std::vector<Tool> list_tools();
    std::vector<Resource> list_resources();
    std::vector<ResourceTemplate> list_resource_templates();
    std::vector<Prompt> list_prompts();
    // `name` is the server's original tool name. Validates structuredContent against outputSchema.
    CallToolResult call_tool(const std::string& name, const JsonValue& arguments, const RequestOptions& options = {});
    Json read_resource(const std::string& uri);
    // The same with options: a timeout, or is_cancelled (a shell's Ctrl-C sends notifications/cancelled).
    Json read_resource(const std::string& uri, const RequestOptions& options);
    void subscribe_resource(const std::string& uri);
    void unsubscribe_resource(const std::string& uri);
    Json get_prompt(const std::string& name, const JsonValue& arguments);
    Json get_prompt(const std::string& name, const JsonValue& arguments, const RequestOptions& options);
    // ref: {"type":"ref/prompt","name":...} or {"type":"ref/resource","uri":...}
    Json complete(const JsonValue& ref, const std::string& argument_name, const std::string& argument_value);
    // Legacy era: logging/setLevel. Modern era: the level sent with every later request.
    void set_logging_level(const std::string& level);
    void ping();

    // Skills extension (io.modelcontextprotocol/skills). offers_skills(): the server's capabilities
    // carry extensions["io.modelcontextprotocol/skills"]; the calls below throw Error(Usage)
    // without it. Retrieval is lazy and verified: list_skills reads no skill file; load_skill reads
    // the skill's SKILL.md and checks its size, sha256 digest and frontmatter against the entry
    // (Error(Protocol) naming the file and the mismatch on any difference; nothing else is read);
    // read_skill_file reads one file the loaded skill lists, verified the same way.
    bool offers_skills() const;
    std::vector<Skill> list_skills();
    // skills/get: one skill's entry by its SKILL.md uri (reads no skill file).
    Skill get_skill(const std::string& uri);
    LoadedSkill load_skill(const Skill& skill);
    // By SKILL.md uri (skills/get; a server without it: the list) or by name (the list).
    // Error(NotFound) if none matches.
    LoadedSkill load_skill(const std::string& name_or_uri);
    std::string read_skill_file(const LoadedSkill& skill, const std::string& uri);

    // Cached lists (filled at connect, refreshed on list_changed). Empty if unsupported.
    std::vector<Tool> cached_tools() const;
    std::vector<Resource> cached_resources() const;
    std::vector<Prompt> cached_prompts() const;

    // Orderly shutdown: pending requests fail at once, the transport is closed.
    void close();

private:
    friend struct detail::ClientSessionAccess;  // the host builds sessions (host/src/session/)
    MCPH_LOCAL explicit ClientSession(std::shared_ptr<detail::SessionCore> core);

    std::shared_ptr<detail::SessionCore> core_;
};

}  // namespace mcph
