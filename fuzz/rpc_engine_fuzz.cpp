// The host's JSON-RPC engine (host/src/jsonrpc/rpc_engine.*): one message from a server, as the
// transport hands it over. Two requests are pending (ids 0 and 1, one with a progress callback)
// so responses, errors and progress reach the pending table; inbound requests are answered by
// nobody (the hooks drop them) except ping and unknown methods, which the engine answers itself.
// Checked: nothing crashes or leaks, and everything the engine writes back is valid JSON.
#include "fuzz_support.hpp"
#include "jsonrpc/rpc_engine.hpp"

#include <mcph/bounded_json.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace mcph;
    jsonrpc::EngineHooks hooks;
    hooks.send = [](std::string_view message, const mcph::transport::MessageFacts*) {
        rapidjson::Document doc;
        MCPH_FUZZ_CHECK(json_bounds::parse(doc, message));
        MCPH_FUZZ_CHECK(doc.IsObject());
    };
    hooks.on_request = [](const std::string&, Json, std::shared_ptr<jsonrpc::Responder>) {};
    hooks.on_notification = [](const std::string&, const JsonValue&) {};
    hooks.log = [](int, const std::string& message) { MCPH_FUZZ_CHECK(!message.empty()); };
    auto engine = std::make_shared<jsonrpc::RpcEngine>("fuzz", std::move(hooks));

    jsonrpc::RequestSettings with_progress;
    with_progress.reset_timeout_on_progress = true;
    with_progress.on_progress = [](const Progress&) {};
    PendingRequest first = engine->start_request("tools/call", Json(), std::move(with_progress));
    int answered = 0;
    engine->start_request_async("tools/list", Json(), {}, [&](Json, const Error*) { ++answered; });

    engine->handle_message(fuzz::as_text(data, size));

    engine->fail_all(Error(ErrorKind::Connection, "fuzz input done"));
    MCPH_FUZZ_CHECK(answered == 1);  // exactly once: by the message or by fail_all
    MCPH_FUZZ_CHECK(engine->pending_count() == 0);
    try {
        first.get();
    } catch (const Error&) {
    }
    return 0;
}
