// RpcEngine under hostile input: JSON nested past the bound (refused as malformed, the request it
// answers failing at once), and a flood of server→client requests (at most N in flight; the rest
// answered with an error at once, nothing queued).
#include "jsonrpc/rpc_engine.hpp"

#include <mcph/error.hpp>
#include <mcph/json.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <mutex>
#include <string>
#include <vector>

namespace {

using namespace std::chrono_literals;
using mcph::Error;
using mcph::ErrorKind;
using mcph::Json;
using mcph::parse_json;
using mcph::jsonrpc::EngineHooks;
using mcph::jsonrpc::Responder;
using mcph::jsonrpc::RpcEngine;

struct Harness {
    explicit Harness(std::size_t max_inbound = mcph::jsonrpc::kDefaultMaxInboundInFlight) {
        EngineHooks hooks;
        hooks.send = [this](std::string_view m, const mcph::transport::MessageFacts*) {
            std::lock_guard lock(mutex);
            sent.emplace_back(m);
        };
        hooks.on_request = [this](const std::string&, Json, std::shared_ptr<Responder> responder) {
            std::lock_guard lock(mutex);
            held.push_back(std::move(responder));
        };
        hooks.log = [this](int, const std::string& m) {
            std::lock_guard lock(mutex);
            logs.push_back(m);
        };
        hooks.max_inbound_in_flight = max_inbound;
        engine = std::make_shared<RpcEngine>("hostile", std::move(hooks));
    }
    // Sent messages that are error answers to server requests, with this code.
    std::size_t errors_with_code(int code) {
        std::lock_guard lock(mutex);
        std::size_t n = 0;
        for (const auto& m : sent) {
            Json doc = parse_json(m);
            if (doc.HasMember("error") && doc["error"]["code"].GetInt() == code) ++n;
        }
        return n;
    }
    std::string logged() {
        std::lock_guard lock(mutex);
        std::string all;
        for (const auto& l : logs) all += l + "\n";
        return all;
    }

    std::mutex mutex;
    std::vector<std::string> sent;
    std::vector<std::string> logs;
    std::vector<std::shared_ptr<Responder>> held;
    std::shared_ptr<RpcEngine> engine;
};

std::string server_request(int id) {
    return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"roots/list","params":{}})";
}

TEST(RpcEngineBounds, AMillionOpenBracketsAreRefusedNotACrash) {
    Harness h;
    h.engine->handle_message(std::string(1'000'000, '['));
    EXPECT_NE(h.logged().find("deeper than 128"), std::string::npos) << h.logged();
}

TEST(RpcEngineBounds, TooDeepResponseFailsItsRequestAtOnce) {
    Harness h;
    auto pending = h.engine->start_request("tools/list", Json(), {});
    const std::int64_t id = parse_json(h.sent.at(0))["id"].GetInt64();
    std::string deep = R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"result":{"tools":[{"inputSchema":)";
    for (int i = 0; i < 100'000; ++i) deep += "{\"a\":";
    deep += "1";
    for (int i = 0; i < 100'000; ++i) deep += "}";
    deep += "}]}}";
    h.engine->handle_message(deep);
    ASSERT_EQ(pending.future().wait_for(2s), std::future_status::ready) << "the request must not wait for its timeout";
    try {
        pending.get();
        FAIL() << "a too-deep response must fail the request";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Protocol);
        EXPECT_NE(std::string(e.what()).find("deeper than 128 levels"), std::string::npos) << e.what();
    }
}

TEST(RpcEngineBounds, ResponseAtTheBoundIsAccepted) {
    Harness h;
    auto pending = h.engine->start_request("x", Json(), {});
    const std::int64_t id = parse_json(h.sent.at(0))["id"].GetInt64();
    // The envelope is level 1, so the result may nest 127 levels.
    std::string result(127, '['), close(127, ']');
    h.engine->handle_message(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"result":)" + result + close + "}");
    ASSERT_EQ(pending.future().wait_for(2s), std::future_status::ready);
    EXPECT_TRUE(pending.get().IsArray());
}

TEST(RpcEngineBounds, ParamsTooDeepToWriteFailTheRequestNotTheProcess) {
    Harness h;
    Json params;
    params.SetArray();
    mcph::JsonValue* at = &params;
    for (int i = 0; i < 1000; ++i) {
        at->PushBack(mcph::JsonValue(rapidjson::kArrayType), params.GetAllocator());
        at = &(*at)[0];
    }
    auto pending = h.engine->start_request("tools/call", std::move(params), {});
    ASSERT_EQ(pending.future().wait_for(0s), std::future_status::ready);
    try {
        pending.get();
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Usage);
        EXPECT_NE(std::string(e.what()).find("nested deeper than"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(h.sent.empty()) << "nothing half-written may reach the server";
}

TEST(RpcEngineBounds, ServerRequestsBeyondTheInFlightCapAreRefusedAtOnce) {
    Harness h(4);
    for (int i = 1; i <= 10; ++i) h.engine->handle_message(server_request(i));
    EXPECT_EQ(h.held.size(), 4u) << "only the cap reaches the application";
    EXPECT_EQ(h.engine->inbound_in_flight(), 4u);
    EXPECT_EQ(h.errors_with_code(mcph::jsonrpc::kTooManyInFlightCode), 6u);
    EXPECT_NE(h.logged().find("4 server requests are already in flight"), std::string::npos) << h.logged();

    // Answering one frees a slot; a responder dropped unanswered frees its slot too.
    h.held[0]->result(Json(rapidjson::kObjectType));
    h.held[1].reset();
    EXPECT_EQ(h.engine->inbound_in_flight(), 2u);
    h.engine->handle_message(server_request(11));
    h.engine->handle_message(server_request(12));
    h.engine->handle_message(server_request(13));
    EXPECT_EQ(h.held.size(), 6u);
    EXPECT_EQ(h.errors_with_code(mcph::jsonrpc::kTooManyInFlightCode), 7u);
}

TEST(RpcEngineBounds, PingIsAnsweredEvenWhenTheCapIsReached) {
    Harness h(1);
    h.engine->handle_message(server_request(1));
    h.engine->handle_message(R"({"jsonrpc":"2.0","id":"p","method":"ping"})");
    std::lock_guard lock(h.mutex);
    ASSERT_EQ(h.sent.size(), 1u);
    EXPECT_NE(h.sent[0].find("\"result\":{}"), std::string::npos) << h.sent[0];
}

}  // namespace
