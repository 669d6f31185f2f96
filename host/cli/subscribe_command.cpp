#include "subscribe_command.hpp"

#include "json_output.hpp"
#include "listing_commands.hpp"
#include "render.hpp"

#include <mcph/error.hpp>
#include <mcph/text.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <deque>
#include <iostream>
#include <mutex>
#include <optional>

namespace mcph::cli {
namespace {

using Clock = std::chrono::steady_clock;

// How many updates wait for the watch to print them. A server flooding notifications cannot grow
// memory: beyond this, updates are counted as dropped (and said so), not queued.
constexpr size_t kMaxQueuedUpdates = 256;
// How often a waiting watch looks at Ctrl-C and at its connection.
constexpr auto kPollInterval = std::chrono::milliseconds(100);

// The one running watch (a CLI runs one command at a time, the shell too): which server it
// listens to, and the updates not yet printed. Fed from the Host's callback threads.
class UpdateWatch {
public:
    void begin(const std::string& server) {
        std::lock_guard lock(mutex_);
        server_ = server;
        queued_.clear();
        dropped_ = 0;
    }
    void end() {
        std::lock_guard lock(mutex_);
        server_.reset();
        queued_.clear();
    }
    void push(const std::string& server, const std::string& uri) {
        {
            std::lock_guard lock(mutex_);
            if (!server_ || *server_ != server) return;
            if (queued_.size() >= kMaxQueuedUpdates) {
                ++dropped_;
                return;
            }
            queued_.push_back(uri);
        }
        ready_.notify_one();
    }
    // The next update's uri, or nullopt when `until` passed first (or a poll interval, so the
    // caller can look at Ctrl-C and the connection).
    std::optional<std::string> next(Clock::time_point until) {
        std::unique_lock lock(mutex_);
        ready_.wait_until(lock, std::min(until, Clock::now() + kPollInterval), [&] { return !queued_.empty(); });
        if (queued_.empty()) return std::nullopt;
        std::string uri = std::move(queued_.front());
        queued_.pop_front();
        return uri;
    }
    size_t take_dropped() {
        std::lock_guard lock(mutex_);
        return std::exchange(dropped_, 0);
    }

private:
    std::mutex mutex_;
    std::condition_variable ready_;
    std::optional<std::string> server_;
    std::deque<std::string> queued_;
    size_t dropped_ = 0;
};

UpdateWatch& watch() {
    static UpdateWatch w;
    return w;
}

// Ctrl-C ends a one-shot watch the way the shell's Ctrl-C does: the watch unsubscribes and, with
// --json, still prints its document. The previous handler is back when the watch ends.
std::atomic<bool> g_interrupted{false};
extern "C" void on_interrupt(int) { g_interrupted.store(true); }

class InterruptScope {
public:
    InterruptScope() {
        g_interrupted.store(false);
        struct sigaction sa {};
        sa.sa_handler = on_interrupt;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;  // a write of an update in progress completes (the loop polls the flag)
        ::sigaction(SIGINT, &sa, &previous_);
    }
    ~InterruptScope() { ::sigaction(SIGINT, &previous_, nullptr); }
    InterruptScope(const InterruptScope&) = delete;
    InterruptScope& operator=(const InterruptScope&) = delete;

private:
    struct sigaction previous_ {};
};

JsonValue watch_text(const std::string& s, Json::AllocatorType& a) {
    return JsonValue(s.data(), static_cast<rapidjson::SizeType>(s.size()), a);
}

struct WatchLimits {
    std::optional<unsigned long> count;          // --count N: end after N updates
    std::optional<Clock::time_point> deadline;   // --for D: end when D has passed
};

bool offers_subscriptions(const ClientSession& session) {
    const Json caps = session.server_capabilities();
    if (!caps.IsObject() || !caps.HasMember("resources") || !caps["resources"].IsObject()) return false;
    const JsonValue& resources = caps["resources"];
    return resources.HasMember("subscribe") && resources["subscribe"].IsBool() && resources["subscribe"].GetBool();
}

// Reads what changed (--read): an update names a resource, and the watch shows its new contents.
// A read that fails is said and the watch goes on (the resource may be gone for a moment).
void read_updated(ClientSession& session, const std::string& uri, bool json, JsonValue& entry, Json::AllocatorType& a) {
    try {
        Json contents = session.read_resource(uri);
        if (json && contents.IsObject() && contents.HasMember("contents") && contents["contents"].IsArray())
            entry.AddMember("contents", JsonValue(contents["contents"], a), a);
        else print_read_result(std::cout, contents);
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::Remote) throw;
        if (json) entry.AddMember("readError", watch_text(e.what(), a), a);
        else std::cout << "  (could not read it: " << terminal_safe(e.what(), LineBreaks::Escape) << ")\n";
    }
}

// The watch itself: prints (or collects, with --json) each update until a limit, Ctrl-C or the
// connection's end. Returns whether it ended because of a limit (count or duration).
struct WatchResult {
    Json updates{rapidjson::kArrayType};
    bool cancelled = false;
    size_t dropped = 0;
};

WatchResult run_watch(ClientSession& session, const Options& o, const WatchLimits& limits) {
    WatchResult result;
    auto& a = result.updates.GetAllocator();
    const auto until = limits.deadline.value_or(Clock::time_point::max());
    unsigned long seen = 0;
    while (!limits.count || seen < *limits.count) {
        if (Clock::now() >= until) break;
        if (g_interrupted.load() || (o.is_cancelled && o.is_cancelled())) {
            result.cancelled = true;
            break;
        }
        if (!session.connected())
            throw Error(ErrorKind::Connection, "server '" + session.server_name() + "' disconnected during the watch");
        auto uri = watch().next(until);
        if (!uri) continue;
        ++seen;
        JsonValue entry(rapidjson::kObjectType);
        entry.AddMember("uri", watch_text(*uri, a), a);
        if (!o.json) std::cout << "updated " << terminal_safe(*uri, LineBreaks::Escape) << "\n";
        if (o.subscribe_read) read_updated(session, *uri, o.json, entry, a);
        if (!o.json) std::cout << std::flush;
        result.updates.PushBack(entry, a);
    }
    result.dropped = watch().take_dropped();
    return result;
}

WatchLimits limits_from(const Options& o) {
    WatchLimits limits;
    if (!o.subscribe_count.empty()) {
        unsigned long n = 0;
        size_t used = 0;
        try {
            n = std::stoul(o.subscribe_count, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != o.subscribe_count.size() || n == 0 || n > 1000000 || o.subscribe_count[0] == '-')
            throw Error(ErrorKind::Usage, "--count needs a whole number from 1 to 1000000, not '" + o.subscribe_count + "'");
        limits.count = n;
    }
    if (o.subscribe_for) limits.deadline = Clock::now() + *o.subscribe_for;
    return limits;
}

}  // namespace

void note_resource_updated(const std::string& server, const std::string& uri) { watch().push(server, uri); }

int cmd_subscribe(Host& host, const Options& o) {
    if (o.args.size() != 2) throw Error(ErrorKind::Usage, "usage: mcph subscribe <server> <uri> [--count N] [--for D] [--read]");
    const WatchLimits limits = limits_from(o);
    const std::string& uri = o.args[1];
    auto session = connect_named(host, o, o.args[0]);
    if (!offers_subscriptions(*session))
        throw Error(ErrorKind::Remote, "server '" + o.args[0] + "' does not offer resource subscriptions (its resources "
                                       "capability has no \"subscribe\": true)", -32601);
    InterruptScope interrupt;
    watch().begin(session->server_name());
    WatchResult result;
    try {
        session->subscribe_resource(uri);
        // On stderr also with --json: a script (or a person) sees the watch has begun.
        std::cerr << "mcph: subscribed to " << terminal_safe(uri, LineBreaks::Escape) << " on '"
                      << terminal_safe(o.args[0], LineBreaks::Escape) << "'"
                      << (limits.count || limits.deadline ? "" : " (Ctrl-C ends the watch)") << "\n";
        result = run_watch(*session, o, limits);
    } catch (...) {
        watch().end();
        throw;
    }
    watch().end();
    // A watch that ended because the connection did not is polite: the server stops sending.
    if (session->connected()) {
        try {
            session->unsubscribe_resource(uri);
        } catch (const Error& e) {
            std::cerr << "mcph: warning: unsubscribing failed: " << terminal_safe(e.what(), LineBreaks::Escape) << "\n";
        }
    }
    if (result.dropped && !o.json)
        std::cerr << "mcph: warning: " << result.dropped << " updates came faster than they could be shown and were dropped\n";
    if (o.json) {
        Json doc(rapidjson::kObjectType);
        auto& a = doc.GetAllocator();
        JsonValue sub(rapidjson::kObjectType);
        sub.AddMember("server", watch_text(o.args[0], a), a);
        sub.AddMember("uri", watch_text(uri, a), a);
        sub.AddMember("updates", JsonValue(result.updates, a), a);
        sub.AddMember("cancelled", result.cancelled, a);
        sub.AddMember("dropped", static_cast<uint64_t>(result.dropped), a);
        doc.AddMember("subscription", sub, a);
        print_json_document(doc, "subscription");
    }
    return 0;
}

}  // namespace mcph::cli
