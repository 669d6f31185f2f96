// RpcEngine with RequestSettings::meta_json (the session's kept 2026 envelope): what is sent is
// byte for byte what the envelope added to the tree (session::add_request_meta) sends, for every
// shape of params: none, an object, an object with its own _meta; with a progress token, the same
// members (in another order).
#include "jsonrpc/rpc_engine.hpp"
#include "session/request_meta.hpp"

#include <mcph/json.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace {

using mcph::Json;
using mcph::parse_json;
using mcph::jsonrpc::EngineHooks;
using mcph::jsonrpc::RequestSettings;
using mcph::jsonrpc::RpcEngine;
namespace session = mcph::session;

class Sent {
public:
    Sent() {
        EngineHooks hooks;
        hooks.send = [this](std::string_view message, const mcph::transport::MessageFacts*) {
            std::lock_guard lock(mutex);
            texts.emplace_back(message);
        };
        engine = std::make_shared<RpcEngine>("meta-test", std::move(hooks));
    }
    std::string last() {
        std::lock_guard lock(mutex);
        return texts.back();
    }
    std::mutex mutex;
    std::vector<std::string> texts;
    std::shared_ptr<RpcEngine> engine;
};

struct Envelope {
    Json caps = session::client_capabilities(parse_json(R"({"io.modelcontextprotocol/skills":{}})"));
    Json info = session::implementation_json({"mcph", "0.1.0", "mcph \"host\""});
    session::RequestMeta meta() const {
        session::RequestMeta m;
        m.protocol_version = "2026-07-28";
        m.capabilities = &caps;
        m.client_info = &info;
        m.log_level = "warning";
        return m;
    }
};

// The same request sent twice by fresh engines (ids match): envelope in the tree, then spliced.
void expect_same_bytes(const std::string& params_json, bool with_progress) {
    Envelope e;
    Sent tree, spliced;
    auto settings = [&] {
        RequestSettings s;
        if (with_progress) s.on_progress = [](const mcph::Progress&) {};
        return s;
    };
    Json a = params_json.empty() ? Json() : parse_json(params_json);
    session::add_request_meta(a, e.meta());
    (void)tree.engine->start_request("tools/call", std::move(a), settings());

    Json b = params_json.empty() ? Json() : parse_json(params_json);
    RequestSettings s = settings();
    s.meta_json = std::make_shared<const std::string>(session::serialized_request_meta(e.meta()));
    (void)spliced.engine->start_request("tools/call", std::move(b), std::move(s));

    if (!with_progress) {
        EXPECT_EQ(spliced.last(), tree.last()) << "params " << params_json;
    } else {
        // The progress token is attached before the kept envelope is merged, and after the tree's:
        // the same members in another order (RapidJSON compares objects regardless of order).
        EXPECT_TRUE(parse_json(spliced.last()) == parse_json(tree.last())) << params_json << "\n" << spliced.last() << "\n" << tree.last();
        EXPECT_TRUE(parse_json(spliced.last())["params"]["_meta"].HasMember("progressToken"));
    }
    tree.engine->fail_all(mcph::Error(mcph::ErrorKind::Connection, "done"));
    spliced.engine->fail_all(mcph::Error(mcph::ErrorKind::Connection, "done"));
}

TEST(RpcEngineMeta, TheKeptEnvelopeIsSentExactlyAsTheTreeEnvelope) {
    for (bool progress : {false, true}) {
        expect_same_bytes("", progress);
        expect_same_bytes("{}", progress);
        expect_same_bytes(R"({"name":"add","arguments":{"a":1,"b":[2,{"c":"\u00e9\n"}]}})", progress);
        expect_same_bytes(R"({"name":"t","_meta":{"progressToken":"mine","x":1}})", progress);
        expect_same_bytes(R"({"name":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"old","x":1}})", progress);
        expect_same_bytes(R"({"name":"t","_meta":7})", progress);
    }
}

TEST(RpcEngineMeta, TheEnvelopeIsTheLastMemberOfParamsAndParsesBack) {
    Envelope e;
    Sent sent;
    RequestSettings s;
    s.meta_json = std::make_shared<const std::string>(session::serialized_request_meta(e.meta()));
    (void)sent.engine->start_request("tools/list", parse_json(R"({"cursor":"c1"})"), std::move(s));
    const Json message = parse_json(sent.last());
    const auto& params = message["params"];
    ASSERT_EQ(params.MemberCount(), 2u);
    EXPECT_STREQ((params.MemberBegin() + 1)->name.GetString(), "_meta");
    EXPECT_EQ(params["cursor"], "c1");
    EXPECT_EQ(params["_meta"][session::kMetaProtocolVersion], "2026-07-28");
    EXPECT_EQ(params["_meta"][session::kMetaClientInfo]["title"], "mcph \"host\"");
    EXPECT_EQ(params["_meta"][session::kMetaLogLevel], "warning");
    sent.engine->fail_all(mcph::Error(mcph::ErrorKind::Connection, "done"));
}

// A params tree nested to the write bound is still refused, not sent, with the envelope spliced.
TEST(RpcEngineMeta, TooDeepParamsAreRefusedWithTheEnvelopeToo) {
    Envelope e;
    Sent sent;
    std::string deep;
    for (unsigned i = 0; i < mcph::json_bounds::kMaxDepth + 40; ++i) deep += "[";
    for (unsigned i = 0; i < mcph::json_bounds::kMaxDepth + 40; ++i) deep += "]";
    Json params(rapidjson::kObjectType);
    Json nested;
    // Built by hand (the parser would refuse it): the bound is the writer's.
    mcph::JsonValue* at = &nested.SetArray();
    for (unsigned i = 0; i < mcph::json_bounds::kMaxDepth + 40; ++i) {
        at->PushBack(mcph::JsonValue(rapidjson::kArrayType), nested.GetAllocator());
        at = &(*at)[0];
    }
    params.AddMember("deep", mcph::JsonValue(nested, params.GetAllocator()), params.GetAllocator());
    RequestSettings s;
    s.meta_json = std::make_shared<const std::string>(session::serialized_request_meta(e.meta()));
    auto pending = sent.engine->start_request("tools/call", std::move(params), std::move(s));
    EXPECT_THROW(pending.get(), mcph::Error);
    EXPECT_TRUE(sent.texts.empty()) << "nothing of a refused request is sent";
}

}  // namespace
