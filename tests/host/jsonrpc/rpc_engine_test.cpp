// RpcEngine: ids, the pending table, errors, timeouts, cancellation, progress, inbound dispatch.
// The engine is driven with EngineHooks whose `send` records every outgoing message; responses
// are fed back through handle_message, as a transport thread would.
#include "jsonrpc/rpc_engine.hpp"

#include <mcph/error.hpp>
#include <mcph/json.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using mcph::Error;
using mcph::ErrorKind;
using mcph::Json;
using mcph::parse_json;
using mcph::jsonrpc::Clock;
using mcph::jsonrpc::EngineHooks;
using mcph::jsonrpc::RequestSettings;
using mcph::jsonrpc::Responder;
using mcph::jsonrpc::RpcEngine;

struct Inbound {
    std::string method;
    std::string params;  // JSON
    std::shared_ptr<Responder> responder;
};

// An engine whose outgoing messages, log lines, requests and notifications are recorded.
class Recorder {
public:
    using Pump = std::function<void(const std::function<bool()>& ready, Clock::time_point deadline)>;
    explicit Recorder(bool with_on_request = true, Pump pump = {}) {
        EngineHooks hooks;
        hooks.pump = std::move(pump);
        hooks.send = [this](std::string_view message, const mcph::transport::MessageFacts*) {
            if (send_error) throw *send_error;
            std::lock_guard lock(mutex);
            sent.emplace_back(message);
        };
        if (with_on_request)
            hooks.on_request = [this](const std::string& method, Json params, std::shared_ptr<Responder> responder) {
                std::lock_guard lock(mutex);
                requests.push_back({method, mcph::to_json(params), std::move(responder)});
            };
        hooks.on_notification = [this](const std::string& method, const mcph::JsonValue& params) {
            std::lock_guard lock(mutex);
            notifications.emplace_back(method, mcph::to_json(params));
        };
        hooks.log = [this](int level, const std::string& message) {
            std::lock_guard lock(mutex);
            logs.emplace_back(level, message);
        };
        hooks.arm_timeouts = [this] { ++armed; };
        engine = std::make_shared<RpcEngine>("test-server", std::move(hooks));
    }

    mcph::PendingRequest request(const std::string& method, Json params = Json(), RequestSettings settings = {}) {
        return engine->start_request(method, std::move(params), std::move(settings));
    }

    Json sent_json(std::size_t i) {
        std::lock_guard lock(mutex);
        return parse_json(sent.at(i));
    }
    std::size_t sent_count() {
        std::lock_guard lock(mutex);
        return sent.size();
    }
    std::string last_log() {
        std::lock_guard lock(mutex);
        return logs.empty() ? std::string() : logs.back().second;
    }
    // Every sent message with this method.
    std::vector<Json> sent_with_method(const std::string& method) {
        std::vector<Json> out;
        std::lock_guard lock(mutex);
        for (const auto& text : sent) {
            Json doc = parse_json(text);
            if (doc.HasMember("method") && doc["method"] == method.c_str()) out.push_back(std::move(doc));
        }
        return out;
    }

    std::mutex mutex;
    std::vector<std::string> sent;
    std::vector<std::pair<int, std::string>> logs;
    std::vector<Inbound> requests;
    std::vector<std::pair<std::string, std::string>> notifications;
    std::optional<Error> send_error;
    std::atomic<int> armed{0};
    std::shared_ptr<RpcEngine> engine;
};

std::int64_t id_of(const Json& message) { return message["id"].GetInt64(); }

std::string response(std::int64_t id, const std::string& result_json) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(id) + ",\"result\":" + result_json + "}";
}

template <class F>
Error rpc_error_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e;
    }
    ADD_FAILURE() << "expected an mcph::Error";
    return Error(ErrorKind::Usage, "<none>");
}

bool is_ready(std::future<Json>& f) { return f.wait_for(0s) == std::future_status::ready; }

// ---- ids and responses --------------------------------------------------------------------------

TEST(RpcEngine, IdsIncreaseAndMessagesAreWellFormed) {
    Recorder r;
    Json params = parse_json(R"({"name":"x"})");
    auto a = r.request("tools/call", std::move(params));
    auto b = r.request("ping");
    auto c = r.request("tools/list", parse_json("{}"));
    ASSERT_EQ(r.sent_count(), 3u);
    Json m0 = r.sent_json(0), m1 = r.sent_json(1), m2 = r.sent_json(2);
    EXPECT_LT(id_of(m0), id_of(m1));
    EXPECT_LT(id_of(m1), id_of(m2));
    EXPECT_STREQ(m0["jsonrpc"].GetString(), "2.0");
    EXPECT_STREQ(m0["method"].GetString(), "tools/call");
    EXPECT_STREQ(m0["params"]["name"].GetString(), "x");
    EXPECT_FALSE(m1.HasMember("params")) << "a null params must be omitted, not sent as null";
    EXPECT_TRUE(m2["params"].IsObject());
    EXPECT_EQ(r.engine->pending_count(), 3u);
    EXPECT_EQ(r.armed.load(), 1) << "arm_timeouts fires when the table goes from empty to non-empty";
}

TEST(RpcEngine, ResponseCompletesTheMatchingFutureWithItsResult) {
    Recorder r;
    auto first = r.request("a");
    auto second = r.request("b");
    const auto id1 = id_of(r.sent_json(0)), id2 = id_of(r.sent_json(1));
    r.engine->handle_message(response(id2, R"({"value":2,"nested":{"k":[1,2]}})"));
    EXPECT_FALSE(is_ready(first.future()));
    ASSERT_TRUE(is_ready(second.future()));
    Json v2 = second.get();
    EXPECT_EQ(v2["value"].GetInt(), 2);
    EXPECT_EQ(v2["nested"]["k"][1].GetInt(), 2);
    r.engine->handle_message(response(id1, R"("just a string")"));
    Json v1 = first.get();
    EXPECT_STREQ(v1.GetString(), "just a string");
    EXPECT_EQ(r.engine->pending_count(), 0u);
}

TEST(RpcEngine, JsonRpcErrorBecomesRemoteErrorWithCodeMessageAndData) {
    Recorder r;
    auto p = r.request("tools/call");
    const auto id = id_of(r.sent_json(0));
    r.engine->handle_message("{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(id) +
                             R"(,"error":{"code":-32602,"message":"Unknown tool: nope","data":{"tool":"nope"}}})");
    Error e = rpc_error_of([&] { p.get(); });
    EXPECT_EQ(e.kind(), ErrorKind::Remote);
    EXPECT_EQ(e.code(), -32602);
    EXPECT_NE(std::string(e.what()).find("Unknown tool: nope"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("tools/call"), std::string::npos) << e.what();
    EXPECT_EQ(e.data_json(), R"({"tool":"nope"})");
}

TEST(RpcEngine, ErrorObjectWithoutFieldsStillFailsTheRequest) {
    Recorder r;
    auto p = r.request("x");
    r.engine->handle_message("{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(id_of(r.sent_json(0))) + ",\"error\":{}}");
    Error e = rpc_error_of([&] { p.get(); });
    EXPECT_EQ(e.kind(), ErrorKind::Remote);
    EXPECT_EQ(e.code(), 0);
}

TEST(RpcEngine, BatchArrayOfResponsesCompletesEach) {
    Recorder r;
    auto a = r.request("a");
    auto b = r.request("b");
    auto c = r.request("c");
    const auto ia = id_of(r.sent_json(0)), ib = id_of(r.sent_json(1)), ic = id_of(r.sent_json(2));
    r.engine->handle_message("[" + response(ic, R"({"n":"c"})") + "," +
                             "{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(ia) +
                             R"(,"error":{"code":-1,"message":"nope"}})" + "," + response(ib, R"({"n":"b"})") + "]");
    EXPECT_EQ(rpc_error_of([&] { a.get(); }).kind(), ErrorKind::Remote);
    EXPECT_STREQ(b.get()["n"].GetString(), "b");
    EXPECT_STREQ(c.get()["n"].GetString(), "c");
}

TEST(RpcEngine, DuplicateResponseIsIgnoredAfterTheFirst) {
    Recorder r;
    auto p = r.request("a");
    const auto id = id_of(r.sent_json(0));
    r.engine->handle_message(response(id, R"({"first":true})"));
    r.engine->handle_message(response(id, R"({"first":false})"));
    EXPECT_TRUE(p.get()["first"].GetBool());
    EXPECT_NE(r.last_log().find("unknown id"), std::string::npos) << r.last_log();
}

// ---- messages that must be logged and ignored, never fatal ---------------------------------------

struct IgnoredCase {
    const char* name;
    const char* message;
    const char* log_contains;  // nullptr: need not log
};

const IgnoredCase kIgnored[] = {
    {"unknown numeric id", R"({"jsonrpc":"2.0","id":999,"result":{}})", "unknown id 999"},
    {"unknown string id", R"({"jsonrpc":"2.0","id":"abc","result":{}})", "unknown id"},
    {"unknown id with error", R"({"jsonrpc":"2.0","id":12345,"error":{"code":1,"message":"m"}})", "unknown id"},
    {"error with null id", R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}})",
     "without a request id"},
    {"malformed JSON", R"({"jsonrpc":"2.0","id":0,"result":)", "malformed JSON"},
    {"truncated garbage", "\x01\x02not json", "malformed JSON"},
    {"empty text", "", "malformed JSON"},
    {"number", "42", "not a JSON object"},
    {"string", R"("hello")", "not a JSON object"},
    {"null", "null", "not a JSON object"},
    {"batch of non-objects", "[1,\"x\",null]", "not a JSON object"},
    {"neither request nor response", R"({"jsonrpc":"2.0","id":0})", "neither request, response nor notification"},
    {"method not a string", R"({"jsonrpc":"2.0","method":7})", "neither request, response nor notification"},
    {"negative id", R"({"jsonrpc":"2.0","id":-1,"result":{}})", "unknown id"},
    {"huge unsigned id", R"({"jsonrpc":"2.0","id":18446744073709551615,"result":{}})", "unknown id"},
    {"fractional id", R"({"jsonrpc":"2.0","id":0.5,"result":{}})", "unknown id"},
};

// Found by fuzz/rpc_engine_fuzz.cpp: one line of nested '[' overflowed the stack of the parser.
TEST(RpcEngine, DeeplyNestedMessageIsRefusedNamingTheBound) {
    Recorder r;
    auto pending = r.request("still-waiting");
    ASSERT_NO_THROW(r.engine->handle_message(std::string(200000, '[')));
    EXPECT_NE(r.last_log().find("nested deeper than 128 levels"), std::string::npos) << r.last_log();
    EXPECT_EQ(r.engine->pending_count(), 1u);
}

TEST(RpcEngine, UnexpectedMessagesAreLoggedAndIgnored) {
    for (const IgnoredCase& c : kIgnored) {
        SCOPED_TRACE(c.name);
        Recorder r;
        auto pending = r.request("still-waiting");  // id 0: must survive every bad message
        ASSERT_NO_THROW(r.engine->handle_message(c.message));
        if (c.log_contains) {
            EXPECT_NE(r.last_log().find(c.log_contains), std::string::npos) << r.last_log();
        }
        EXPECT_EQ(r.engine->pending_count(), 1u);
        EXPECT_FALSE(is_ready(pending.future()));
        EXPECT_EQ(r.sent_count(), 1u) << "nothing may be sent in reply to a bad message";
        // The engine still works afterwards.
        r.engine->handle_message(response(id_of(r.sent_json(0)), R"({"ok":1})"));
        EXPECT_EQ(pending.get()["ok"].GetInt(), 1);
    }
}

// ---- timeouts -----------------------------------------------------------------------------------

TEST(RpcEngine, TimeoutFailsTheRequestAndSendsCancelled) {
    Recorder r;
    RequestSettings s;
    s.timeout = 100ms;
    const auto before = Clock::now();
    auto p = r.request("tools/call", Json(), s);
    const auto after = Clock::now();
    const auto id = id_of(r.sent_json(0));

    EXPECT_EQ(r.engine->check_timeouts(before + 99ms), 1u) << "not yet due";
    EXPECT_FALSE(is_ready(p.future()));
    EXPECT_EQ(r.engine->check_timeouts(after + 100ms + 1ms), 0u);
    Error e = rpc_error_of([&] { p.get(); });
    EXPECT_EQ(e.kind(), ErrorKind::Timeout);
    EXPECT_NE(std::string(e.what()).find("100 ms"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("test-server"), std::string::npos) << e.what();

    auto cancelled = r.sent_with_method("notifications/cancelled");
    ASSERT_EQ(cancelled.size(), 1u);
    EXPECT_EQ(cancelled[0]["params"]["requestId"].GetInt64(), id);
    EXPECT_FALSE(cancelled[0].HasMember("id")) << "a notification carries no id";

    // A late answer after the timeout is ignored (logged), not a crash.
    r.engine->handle_message(response(id, "{}"));
    EXPECT_NE(r.last_log().find("unknown id"), std::string::npos);
}

TEST(RpcEngine, TimeoutOnlyHitsExpiredRequests) {
    Recorder r;
    RequestSettings quick, patient;
    quick.timeout = 10ms;
    patient.timeout = 10s;
    auto q = r.request("quick", Json(), quick);
    auto p = r.request("patient", Json(), patient);
    EXPECT_EQ(r.engine->check_timeouts(Clock::now() + 1s), 1u);
    EXPECT_EQ(rpc_error_of([&] { q.get(); }).kind(), ErrorKind::Timeout);
    EXPECT_FALSE(is_ready(p.future()));
}

std::string progress_notification(std::int64_t token, double progress, const char* extra = "") {
    return "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":" +
           std::to_string(token) + ",\"progress\":" + std::to_string(progress) + extra + "}}";
}

TEST(RpcEngine, ProgressPushesTheDeadlineWhenResetIsRequested) {
    Recorder r;
    RequestSettings s;
    s.timeout = 100ms;
    s.reset_timeout_on_progress = true;
    s.on_progress = [](const mcph::Progress&) {};
    const auto before = Clock::now();
    auto p = r.request("long", Json(), s);
    const auto id = id_of(r.sent_json(0));
    std::this_thread::sleep_for(30ms);
    r.engine->handle_message(progress_notification(id, 1));  // deadline = now + 100 ms >= before + 130 ms
    EXPECT_EQ(r.engine->check_timeouts(before + 101ms), 1u) << "the original deadline no longer applies";
    EXPECT_FALSE(is_ready(p.future()));
    EXPECT_EQ(r.engine->check_timeouts(Clock::now() + 101ms), 0u);
    EXPECT_EQ(rpc_error_of([&] { p.get(); }).kind(), ErrorKind::Timeout);
}

TEST(RpcEngine, ProgressDoesNotPushTheDeadlineWithoutReset) {
    Recorder r;
    RequestSettings s;
    s.timeout = 100ms;
    s.on_progress = [](const mcph::Progress&) {};
    auto p = r.request("long", Json(), s);
    const auto after = Clock::now();  // deadline <= after + 100 ms
    const auto id = id_of(r.sent_json(0));
    std::this_thread::sleep_for(30ms);
    r.engine->handle_message(progress_notification(id, 1));  // a reset would give >= after + 130 ms
    EXPECT_EQ(r.engine->check_timeouts(after + 110ms), 0u);
    EXPECT_EQ(rpc_error_of([&] { p.get(); }).kind(), ErrorKind::Timeout);
}

TEST(RpcEngine, MaxTotalTimeoutCapsEvenWithProgress) {
    Recorder r;
    RequestSettings s;
    s.timeout = 100ms;
    s.reset_timeout_on_progress = true;
    s.max_total_timeout = 150ms;
    s.on_progress = [](const mcph::Progress&) {};
    auto p = r.request("long", Json(), s);
    const auto after = Clock::now();  // hard deadline <= after + 150 ms
    const auto id = id_of(r.sent_json(0));
    std::this_thread::sleep_for(60ms);
    r.engine->handle_message(progress_notification(id, 1));  // idle deadline >= after + 160 ms
    EXPECT_EQ(r.engine->check_timeouts(after + 151ms), 0u);
    Error e = rpc_error_of([&] { p.get(); });
    EXPECT_EQ(e.kind(), ErrorKind::Timeout);
    EXPECT_NE(std::string(e.what()).find("maximum total time"), std::string::npos) << e.what();
    EXPECT_EQ(r.sent_with_method("notifications/cancelled").size(), 1u);
}

// ---- progress -----------------------------------------------------------------------------------

TEST(RpcEngine, ProgressCallbackGetsProgressTotalAndMessage) {
    Recorder r;
    std::vector<mcph::Progress> seen;
    RequestSettings s;
    s.on_progress = [&](const mcph::Progress& p) { seen.push_back(p); };
    auto p = r.request("tools/call", parse_json(R"({"name":"t","_meta":{"other":1}})"), s);
    Json sent = r.sent_json(0);
    const auto id = id_of(sent);
    ASSERT_TRUE(sent["params"]["_meta"].HasMember("progressToken"));
    EXPECT_EQ(sent["params"]["_meta"]["progressToken"].GetInt64(), id);
    EXPECT_EQ(sent["params"]["_meta"]["other"].GetInt(), 1) << "existing _meta members are kept";
    EXPECT_STREQ(sent["params"]["name"].GetString(), "t");

    r.engine->handle_message(progress_notification(id, 3, ",\"total\":10,\"message\":\"three of ten\""));
    r.engine->handle_message(progress_notification(id, 4.5));
    r.engine->handle_message(progress_notification(id + 100, 9));  // another token: ignored
    r.engine->handle_message(
        R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"str","progress":1}})");
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_DOUBLE_EQ(seen[0].progress, 3);
    ASSERT_TRUE(seen[0].total.has_value());
    EXPECT_DOUBLE_EQ(*seen[0].total, 10);
    EXPECT_EQ(seen[0].message, "three of ten");
    EXPECT_DOUBLE_EQ(seen[1].progress, 4.5);
    EXPECT_FALSE(seen[1].total.has_value());
    EXPECT_EQ(seen[1].message, "");
    EXPECT_TRUE(r.notifications.empty()) << "progress is not forwarded as a generic notification";

    r.engine->handle_message(response(id, "{}"));
    p.get();
    r.engine->handle_message(progress_notification(id, 5));  // after completion: harmless
    EXPECT_EQ(seen.size(), 2u);
}

TEST(RpcEngine, ProgressTokenIsAddedToNullOrNonObjectMeta) {
    Recorder r;
    RequestSettings s1;
    s1.on_progress = [](const mcph::Progress&) {};
    auto a = r.request("no-params", Json(), s1);
    RequestSettings s2;
    s2.on_progress = [](const mcph::Progress&) {};
    auto b = r.request("bad-meta", parse_json(R"({"_meta":"oops"})"), s2);
    Json ma = r.sent_json(0), mb = r.sent_json(1);
    EXPECT_EQ(ma["params"]["_meta"]["progressToken"].GetInt64(), id_of(ma));
    EXPECT_EQ(mb["params"]["_meta"]["progressToken"].GetInt64(), id_of(mb));
}

TEST(RpcEngine, NoProgressTokenWithoutCallback) {
    Recorder r;
    auto p = r.request("x", parse_json(R"({"a":1})"));
    EXPECT_FALSE(r.sent_json(0)["params"].HasMember("_meta"));
}

// ---- cancellation, fail_all, reopen -------------------------------------------------------------

TEST(RpcEngine, CancelFailsWithCancelledAndNotifiesTheServer) {
    Recorder r;
    auto p = r.request("tools/call");
    const auto id = id_of(r.sent_json(0));
    p.cancel("user pressed ^C");
    Error e = rpc_error_of([&] { p.get(); });
    EXPECT_EQ(e.kind(), ErrorKind::Cancelled);
    EXPECT_NE(std::string(e.what()).find("user pressed ^C"), std::string::npos);
    auto cancelled = r.sent_with_method("notifications/cancelled");
    ASSERT_EQ(cancelled.size(), 1u);
    EXPECT_EQ(cancelled[0]["params"]["requestId"].GetInt64(), id);
    EXPECT_STREQ(cancelled[0]["params"]["reason"].GetString(), "user pressed ^C");
    EXPECT_EQ(r.engine->pending_count(), 0u);
}

TEST(RpcEngine, CancelAfterCompletionSendsNothing) {
    Recorder r;
    auto p = r.request("a");
    r.engine->handle_message(response(id_of(r.sent_json(0)), "{}"));
    p.cancel();
    EXPECT_TRUE(r.sent_with_method("notifications/cancelled").empty());
    EXPECT_NO_THROW(p.get());
}

TEST(RpcEngine, FailAllFailsEveryPendingRequestAndLaterOnesImmediately) {
    Recorder r;
    std::vector<mcph::PendingRequest> pending;
    for (int i = 0; i < 5; ++i) pending.push_back(r.request("m" + std::to_string(i)));
    r.engine->fail_all(Error(ErrorKind::Connection, "server exited with status 3"));
    EXPECT_EQ(r.engine->pending_count(), 0u);
    for (int i = 0; i < 5; ++i) {
        ASSERT_TRUE(is_ready(pending[i].future()));
        Error e = rpc_error_of([&] { pending[i].get(); });
        EXPECT_EQ(e.kind(), ErrorKind::Connection);
        EXPECT_NE(std::string(e.what()).find("server exited with status 3"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("m" + std::to_string(i)), std::string::npos) << e.what();
    }
    const auto sent_before = r.sent_count();
    auto late = r.request("late");
    ASSERT_TRUE(is_ready(late.future()));
    EXPECT_EQ(rpc_error_of([&] { late.get(); }).kind(), ErrorKind::Connection);
    EXPECT_EQ(r.sent_count(), sent_before) << "a closed engine sends nothing";

    r.engine->reopen();
    auto fresh = r.request("fresh");
    ASSERT_EQ(r.sent_count(), sent_before + 1);
    r.engine->handle_message(response(id_of(r.sent_json(sent_before)), R"({"ok":true})"));
    EXPECT_TRUE(fresh.get()["ok"].GetBool());
}

TEST(RpcEngine, SendFailureFailsTheFutureInsteadOfHanging) {
    Recorder r;
    r.send_error = Error(ErrorKind::Connection, "broken pipe");
    auto p = r.request("tools/list");
    ASSERT_TRUE(is_ready(p.future()));
    Error e = rpc_error_of([&] { p.get(); });
    EXPECT_EQ(e.kind(), ErrorKind::Connection);
    EXPECT_NE(std::string(e.what()).find("broken pipe"), std::string::npos);
    EXPECT_EQ(r.engine->pending_count(), 0u);
    // notify reports the failure to its caller.
    EXPECT_THROW(r.engine->notify("notifications/initialized", nullptr), Error);
}

// ---- inbound requests and notifications ---------------------------------------------------------

TEST(RpcEngine, PingIsAnsweredEchoingTheIdExactly) {
    struct Case {
        const char* inbound;
        const char* expected;
    };
    const Case cases[] = {
        {R"({"jsonrpc":"2.0","id":"abc-1","method":"ping"})", R"({"jsonrpc":"2.0","id":"abc-1","result":{}})"},
        {R"({"jsonrpc":"2.0","id":7,"method":"ping"})", R"({"jsonrpc":"2.0","id":7,"result":{}})"},
        {R"({"jsonrpc":"2.0","id":0,"method":"ping","params":{}})", R"({"jsonrpc":"2.0","id":0,"result":{}})"},
        {R"({"jsonrpc":"2.0","id":9007199254740993,"method":"ping"})",
         R"({"jsonrpc":"2.0","id":9007199254740993,"result":{}})"},
        {R"({"jsonrpc":"2.0","id":"q\"uo\\te","method":"ping"})", R"({"jsonrpc":"2.0","id":"q\"uo\\te","result":{}})"},
        {R"({"jsonrpc":"2.0","id":"","method":"ping"})", R"({"jsonrpc":"2.0","id":"","result":{}})"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.inbound);
        Recorder r;
        r.engine->handle_message(c.inbound);
        ASSERT_EQ(r.sent_count(), 1u);
        EXPECT_EQ(r.sent[0], c.expected);
        EXPECT_TRUE(r.requests.empty()) << "ping never reaches the application";
    }
}

TEST(RpcEngine, InboundRequestIsRoutedAndAnsweredThroughTheResponder) {
    Recorder r;
    r.engine->handle_message(R"({"jsonrpc":"2.0","id":"srv-1","method":"roots/list","params":{"x":1}})");
    r.engine->handle_message(R"({"jsonrpc":"2.0","id":41,"method":"sampling/createMessage"})");
    ASSERT_EQ(r.requests.size(), 2u);
    EXPECT_EQ(r.requests[0].method, "roots/list");
    EXPECT_EQ(r.requests[0].params, R"({"x":1})");
    EXPECT_EQ(r.requests[0].responder->id_json(), R"("srv-1")");
    EXPECT_EQ(r.requests[1].method, "sampling/createMessage");
    EXPECT_EQ(r.requests[1].responder->id_json(), "41");
    EXPECT_EQ(r.sent_count(), 0u) << "nothing is sent until the application answers";

    r.requests[0].responder->result(parse_json(R"({"roots":[{"uri":"file:///tmp"}]})"));
    r.requests[1].responder->error(-1, "declined: \"no model\"");
    ASSERT_EQ(r.sent_count(), 2u);
    EXPECT_EQ(r.sent[0], R"({"jsonrpc":"2.0","id":"srv-1","result":{"roots":[{"uri":"file:///tmp"}]}})");
    Json err = r.sent_json(1);
    EXPECT_EQ(err["id"].GetInt(), 41);
    EXPECT_EQ(err["error"]["code"].GetInt(), -1);
    EXPECT_STREQ(err["error"]["message"].GetString(), "declined: \"no model\"");
    EXPECT_FALSE(err.HasMember("result"));
}

TEST(RpcEngine, InboundRequestWithoutHandlerGetsMethodNotFound) {
    Recorder r(/*with_on_request=*/false);
    r.engine->handle_message(R"({"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{}})");
    ASSERT_EQ(r.sent_count(), 1u);
    Json reply = r.sent_json(0);
    EXPECT_EQ(reply["id"].GetInt(), 5);
    EXPECT_EQ(reply["error"]["code"].GetInt(), -32601);
    EXPECT_NE(std::string(reply["error"]["message"].GetString()).find("elicitation/create"), std::string::npos);
}

TEST(RpcEngine, ResponderOutlivingTheEngineDoesNothing) {
    std::shared_ptr<Responder> kept;
    {
        Recorder r;
        r.engine->handle_message(R"({"jsonrpc":"2.0","id":1,"method":"roots/list"})");
        kept = r.requests.at(0).responder;
        r.requests.clear();
        r.engine.reset();
    }
    EXPECT_NO_THROW(kept->result(parse_json("{}")));
    EXPECT_NO_THROW(kept->error(1, "x"));
}

TEST(RpcEngine, NotificationsAreRoutedWithParams) {
    Recorder r;
    r.engine->handle_message(
        R"({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}})");
    r.engine->handle_message(R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})");
    r.engine->handle_message(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"srv-1"}})");
    r.engine->handle_message(R"({"jsonrpc":"2.0","id":null,"method":"notifications/odd"})");  // null id: notification
    ASSERT_EQ(r.notifications.size(), 3u);
    EXPECT_EQ(r.notifications[0].first, "notifications/message");
    EXPECT_EQ(r.notifications[0].second, R"({"level":"info","data":"hi"})");
    EXPECT_EQ(r.notifications[1].first, "notifications/tools/list_changed");
    EXPECT_EQ(r.notifications[1].second, "{}") << "absent params arrive as an empty object";
    EXPECT_EQ(r.notifications[2].first, "notifications/odd");
    EXPECT_EQ(r.sent_count(), 0u);
}

TEST(RpcEngine, MixedBatchRoutesRequestsNotificationsAndResponses) {
    Recorder r;
    auto p = r.request("a");
    const auto id = id_of(r.sent_json(0));
    r.engine->handle_message("[" + response(id, R"({"done":1})") +
                             R"(,{"jsonrpc":"2.0","method":"notifications/message","params":{}},)"
                             R"({"jsonrpc":"2.0","id":"p","method":"ping"}])");
    EXPECT_EQ(p.get()["done"].GetInt(), 1);
    EXPECT_EQ(r.notifications.size(), 1u);
    ASSERT_EQ(r.sent_count(), 2u);
    EXPECT_EQ(r.sent[1], R"({"jsonrpc":"2.0","id":"p","result":{}})");
}

TEST(RpcEngine, NotifyWritesANotification) {
    Recorder r;
    Json params = parse_json(R"({"level":"debug"})");
    r.engine->notify("notifications/initialized", nullptr);
    r.engine->notify("x/y", &params);
    EXPECT_EQ(r.sent[0], R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    EXPECT_EQ(r.sent[1], R"({"jsonrpc":"2.0","method":"x/y","params":{"level":"debug"}})");
}

// ---- the callback flavour (start_request_async) -----------------------------------------------

struct AsyncResult {
    int calls = 0;
    std::string result;  // JSON of the result, when no error
    std::optional<Error> error;
    std::thread::id thread;
};

mcph::ResponseHandler record_into(AsyncResult& out) {
    return [&out](Json result, const Error* error) {
        ++out.calls;
        out.thread = std::this_thread::get_id();
        if (error) out.error = *error;
        else out.result = mcph::to_json(result);
    };
}

TEST(RpcEngineAsync, HandlerRunsOnceWithTheResult) {
    Recorder r;
    AsyncResult out;
    const auto id = r.engine->start_request_async("tools/list", Json(), {}, record_into(out));
    EXPECT_EQ(id_of(r.sent_json(0)), id);
    EXPECT_EQ(out.calls, 0);
    std::thread transport([&] { r.engine->handle_message(response(id, R"({"tools":[]})")); });
    const auto transport_id = transport.get_id();
    transport.join();
    EXPECT_EQ(out.calls, 1);
    EXPECT_FALSE(out.error);
    EXPECT_EQ(out.result, R"({"tools":[]})");
    EXPECT_EQ(out.thread, transport_id) << "completed on the transport's thread, no hop";
    r.engine->handle_message(response(id, "{}"));  // duplicate
    EXPECT_EQ(out.calls, 1);
}

TEST(RpcEngineAsync, RemoteErrorTimeoutAndCancelReachTheHandler) {
    Recorder r;
    AsyncResult remote, timed_out, cancelled;
    const auto a = r.engine->start_request_async("a", Json(), {}, record_into(remote));
    RequestSettings quick;
    quick.timeout = 1ms;
    r.engine->start_request_async("b", Json(), quick, record_into(timed_out));
    const auto c = r.engine->start_request_async("c", Json(), {}, record_into(cancelled));

    r.engine->handle_message("{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(a) +
                             R"(,"error":{"code":-32601,"message":"no"}})");
    ASSERT_EQ(remote.calls, 1);
    ASSERT_TRUE(remote.error);
    EXPECT_EQ(remote.error->kind(), ErrorKind::Remote);
    EXPECT_EQ(remote.error->code(), -32601);

    EXPECT_EQ(r.engine->check_timeouts(Clock::now() + 1s), 1u);
    ASSERT_EQ(timed_out.calls, 1);
    EXPECT_EQ(timed_out.error->kind(), ErrorKind::Timeout);

    r.engine->cancel(c, "stop");
    ASSERT_EQ(cancelled.calls, 1);
    EXPECT_EQ(cancelled.error->kind(), ErrorKind::Cancelled);
    EXPECT_EQ(r.engine->pending_count(), 0u);
}

TEST(RpcEngineAsync, ImmediateFailuresRunTheHandlerOnTheCallerThread) {
    Recorder r;
    AsyncResult send_failed, closed;
    r.send_error = Error(ErrorKind::Connection, "pipe closed");
    r.engine->start_request_async("a", Json(), {}, record_into(send_failed));
    ASSERT_EQ(send_failed.calls, 1);
    EXPECT_EQ(send_failed.error->kind(), ErrorKind::Connection);
    EXPECT_EQ(send_failed.thread, std::this_thread::get_id());

    r.send_error.reset();
    r.engine->fail_all(Error(ErrorKind::Connection, "gone"));
    r.engine->start_request_async("b", Json(), {}, record_into(closed));
    ASSERT_EQ(closed.calls, 1);
    EXPECT_EQ(closed.error->kind(), ErrorKind::Connection);
    EXPECT_NE(std::string(closed.error->what()).find("gone"), std::string::npos);
}

TEST(RpcEngineAsync, HandlerMayStartTheNextRequest) {
    Recorder r;
    int completed = 0;
    std::function<void(int)> chain = [&](int left) {
        r.engine->start_request_async("step", Json(), {}, [&, left](Json, const Error* error) {
            EXPECT_EQ(error, nullptr);
            ++completed;
            if (left > 0) chain(left - 1);
        });
    };
    chain(4);
    for (std::size_t i = 0; i < 5; ++i) {
        ASSERT_EQ(r.sent_count(), i + 1);
        r.engine->handle_message(response(id_of(r.sent_json(i)), "{}"));  // answering inside the handler's thread
    }
    EXPECT_EQ(completed, 5);
    EXPECT_EQ(r.engine->pending_count(), 0u);
}

// ---- PendingRequest on the library's slot (no std::promise) -------------------------------------

TEST(PendingRequest, GetReturnsTheAnswerOnceThenThrowsLikeAFuture) {
    Recorder r;
    auto p = r.request("a");
    r.engine->handle_message(response(id_of(r.sent_json(0)), R"({"v":1})"));
    EXPECT_EQ(mcph::to_json(p.get()), R"({"v":1})");
    EXPECT_THROW(p.get(), std::future_error);
}

TEST(PendingRequest, WaitForTimesOutThenSeesTheAnswer) {
    Recorder r;
    auto p = r.request("a");
    EXPECT_FALSE(p.wait_for(1ms));
    std::thread transport([&] { r.engine->handle_message(response(id_of(r.sent_json(0)), "{}")); });
    EXPECT_TRUE(p.wait_for(10s));
    transport.join();
    EXPECT_EQ(mcph::to_json(p.get()), "{}");
}

TEST(PendingRequest, GetAndWaitForReadTheTransportOnTheWaitingThread) {
    std::thread::id pumped_on;
    Recorder* self = nullptr;
    Recorder r(true, [&](const std::function<bool()>& ready, Clock::time_point) {
        pumped_on = std::this_thread::get_id();
        if (!ready()) self->engine->handle_message(response(id_of(self->sent_json(0)), R"({"n":2})"));
    });
    self = &r;
    auto p = r.request("a");
    EXPECT_TRUE(p.wait_for(10s));
    EXPECT_EQ(pumped_on, std::this_thread::get_id());
    EXPECT_EQ(mcph::to_json(p.get()), R"({"n":2})");
}

TEST(PendingRequest, FutureMadeBeforeOrAfterTheAnswerCarriesIt) {
    Recorder r;
    auto before = r.request("a");
    auto after = r.request("b");
    auto failed = r.request("c");
    std::future<Json>& early = before.future();  // made while the answer is still to come
    EXPECT_FALSE(is_ready(early));
    r.engine->handle_message(response(id_of(r.sent_json(0)), R"({"a":1})"));
    r.engine->handle_message(response(id_of(r.sent_json(1)), R"({"b":2})"));
    r.engine->handle_message("{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(id_of(r.sent_json(2))) +
                             R"(,"error":{"code":-32000,"message":"no"}})");
    ASSERT_TRUE(is_ready(early));
    EXPECT_EQ(mcph::to_json(early.get()), R"({"a":1})");
    std::future<Json>& late = after.future();  // made once the answer is in
    ASSERT_TRUE(is_ready(late));
    EXPECT_EQ(mcph::to_json(after.get()), R"({"b":2})") << "get() after future() reads that future";
    EXPECT_EQ(rpc_error_of([&] { failed.future().get(); }).code(), -32000);
}

TEST(PendingRequest, AnEngineDestroyedWithTheRequestInFlightFailsIt) {
    mcph::PendingRequest p = [] {
        Recorder r;
        return r.request("a");
    }();  // the engine and its pending table are gone, unanswered
    Error e = rpc_error_of([&] { p.get(); });
    EXPECT_EQ(e.kind(), ErrorKind::Connection);
    EXPECT_NE(std::string(e.what()).find("dropped unanswered"), std::string::npos) << e.what();
}

// ---- call: the blocking request of the library's own waits ---------------------------------------

// Answers the first request this recorder sends, from another thread, once it was sent.
std::thread answer_from_transport(Recorder& r, std::function<std::string(std::int64_t id)> reply) {
    return std::thread([&r, reply = std::move(reply)] {
        while (r.sent_count() == 0) std::this_thread::sleep_for(1ms);
        r.engine->handle_message(reply(id_of(r.sent_json(0))));
    });
}

TEST(RpcEngineCall, ReturnsTheAnswerTheTransportThreadDelivers) {
    Recorder r;
    std::thread transport = answer_from_transport(r, [](std::int64_t id) { return response(id, R"({"tools":[1]})"); });
    Json result = r.engine->call("tools/list", Json(), {});
    transport.join();
    EXPECT_EQ(mcph::to_json(result), R"({"tools":[1]})");
    EXPECT_EQ(r.engine->pending_count(), 0u);
}

TEST(RpcEngineCall, ThePumpDeliversTheAnswerOnTheCallingThread) {
    std::thread::id pumped_on;
    bool ready_before = true, ready_after = false;
    Recorder* self = nullptr;
    Recorder r(true, [&](const std::function<bool()>& ready, Clock::time_point) {
        pumped_on = std::this_thread::get_id();
        ready_before = ready();
        self->engine->handle_message(response(id_of(self->sent_json(0)), R"({"n":7})"));
        ready_after = ready();
    });
    self = &r;
    Json result = r.engine->call("tools/call", Json(), {});
    EXPECT_EQ(mcph::to_json(result), R"({"n":7})");
    EXPECT_EQ(pumped_on, std::this_thread::get_id());
    EXPECT_FALSE(ready_before);
    EXPECT_TRUE(ready_after) << "the answer is ready as soon as the pump delivered it";
}

TEST(RpcEngineCall, APumpThatCannotReadFallsBackToWaitingForTheTransport) {
    int pumps = 0;
    Recorder r(true, [&](const std::function<bool()>&, Clock::time_point) { ++pumps; });  // another thread reads
    std::thread transport = answer_from_transport(r, [](std::int64_t id) { return response(id, "{}"); });
    EXPECT_EQ(mcph::to_json(r.engine->call("ping", Json(), {})), "{}");
    transport.join();
    EXPECT_EQ(pumps, 1);
}

TEST(RpcEngineCall, ARemoteErrorIsThrownWithItsCode) {
    Recorder r;
    std::thread transport = answer_from_transport(r, [](std::int64_t id) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(id) + R"(,"error":{"code":-32602,"message":"bad"}})";
    });
    Error e = rpc_error_of([&] { r.engine->call("tools/call", Json(), {}); });
    transport.join();
    EXPECT_EQ(e.kind(), ErrorKind::Remote);
    EXPECT_EQ(e.code(), -32602);
}

TEST(RpcEngineCall, IsCancelledCancelsTheRequestAndNotifiesTheServer) {
    Recorder r;
    std::atomic<int> asked{0};
    Error e = rpc_error_of([&] { r.engine->call("tools/call", Json(), {}, [&] { return ++asked >= 2; }); });
    EXPECT_EQ(e.kind(), ErrorKind::Cancelled);
    EXPECT_EQ(asked.load(), 2) << "checked at each 50 ms poll until it said yes";
    auto cancelled = r.sent_with_method("notifications/cancelled");
    ASSERT_EQ(cancelled.size(), 1u);
    EXPECT_EQ(cancelled[0]["params"]["requestId"].GetInt64(), id_of(r.sent_json(0)));
    EXPECT_EQ(r.engine->pending_count(), 0u);
}

TEST(RpcEngineCall, TimeoutReachesTheWaitingCaller) {
    Recorder r;
    RequestSettings quick;
    quick.timeout = 1ms;
    std::thread timer([&] {
        while (r.sent_count() == 0) std::this_thread::sleep_for(1ms);
        r.engine->check_timeouts(Clock::now() + 1s);
    });
    Error e = rpc_error_of([&] { r.engine->call("slow", Json(), quick); });
    timer.join();
    EXPECT_EQ(e.kind(), ErrorKind::Timeout);
}

TEST(RpcEngineCall, ImmediateFailuresThrowAtOnce) {
    Recorder r;
    r.send_error = Error(ErrorKind::Connection, "pipe closed");
    EXPECT_EQ(rpc_error_of([&] { r.engine->call("a", Json(), {}); }).kind(), ErrorKind::Connection);
    r.send_error.reset();
    r.engine->fail_all(Error(ErrorKind::Connection, "gone"));
    Error closed = rpc_error_of([&] { r.engine->call("b", Json(), {}); });
    EXPECT_EQ(closed.kind(), ErrorKind::Connection);
    EXPECT_NE(std::string(closed.what()).find("gone"), std::string::npos);
}

// ---- concurrency --------------------------------------------------------------------------------

TEST(RpcEngine, ManyThreadsManyRequestsAllComplete) {
    constexpr int kThreads = 8;
    constexpr int kPerThread = 2000;

    std::mutex queue_mutex;
    std::condition_variable queue_cv;
    std::deque<std::string> queue;
    bool done = false;

    EngineHooks hooks;
    hooks.send = [&](std::string_view message, const mcph::transport::MessageFacts*) {
        std::lock_guard lock(queue_mutex);
        queue.emplace_back(message);
        queue_cv.notify_one();
    };
    std::atomic<int> logged{0};
    hooks.log = [&](int, const std::string&) { ++logged; };
    auto engine = std::make_shared<RpcEngine>("concurrent", std::move(hooks));

    // The "server": answers each request from its own thread, echoing params.n.
    std::thread server([&] {
        for (;;) {
            std::string message;
            {
                std::unique_lock lock(queue_mutex);
                queue_cv.wait(lock, [&] { return done || !queue.empty(); });
                if (queue.empty()) return;
                message = std::move(queue.front());
                queue.pop_front();
            }
            Json req = parse_json(message);
            engine->handle_message("{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(req["id"].GetInt64()) +
                                   ",\"result\":{\"n\":" + std::to_string(req["params"]["n"].GetInt64()) + "}}");
        }
    });

    std::atomic<int> wrong{0};
    std::vector<std::thread> clients;
    for (int t = 0; t < kThreads; ++t) {
        clients.emplace_back([&, t] {
            std::vector<mcph::PendingRequest> inflight;
            for (int i = 0; i < kPerThread; ++i) {
                Json params(rapidjson::kObjectType);
                const std::int64_t n = std::int64_t(t) * 1000000 + i;
                params.AddMember("n", n, params.GetAllocator());
                inflight.push_back(engine->start_request("work", std::move(params), {}));
                if (inflight.size() == 16 || i + 1 == kPerThread) {  // waves: both overlap and turnover
                    for (std::size_t k = 0; k < inflight.size(); ++k) {
                        const std::int64_t expected = n - std::int64_t(inflight.size() - 1 - k);
                        if (inflight[k].future().wait_for(30s) != std::future_status::ready ||
                            inflight[k].get()["n"].GetInt64() != expected)
                            ++wrong;
                    }
                    inflight.clear();
                }
            }
        });
    }
    for (auto& c : clients) c.join();
    {
        std::lock_guard lock(queue_mutex);
        done = true;
        queue_cv.notify_all();
    }
    server.join();
    EXPECT_EQ(wrong.load(), 0);
    EXPECT_EQ(engine->pending_count(), 0u);
    EXPECT_EQ(logged.load(), 0);
}

TEST(RpcEngine, CancelRacingWithResponsesNeverDoubleCompletes) {
    Recorder r;
    constexpr int kCount = 500;
    std::vector<mcph::PendingRequest> pending;
    for (int i = 0; i < kCount; ++i) pending.push_back(r.request("race"));
    std::vector<std::int64_t> ids;
    for (int i = 0; i < kCount; ++i) ids.push_back(id_of(r.sent_json(i)));
    std::thread answerer([&] {
        for (auto id : ids) r.engine->handle_message(response(id, "{}"));
    });
    for (auto& p : pending) p.cancel("race");
    answerer.join();
    int answered = 0, cancelled = 0;
    for (auto& p : pending) {
        try {
            p.get();
            ++answered;
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::Cancelled);
            ++cancelled;
        }
    }
    EXPECT_EQ(answered + cancelled, kCount);
    EXPECT_EQ(r.sent_with_method("notifications/cancelled").size(), static_cast<std::size_t>(cancelled));
    EXPECT_EQ(r.engine->pending_count(), 0u);
}

}  // namespace
