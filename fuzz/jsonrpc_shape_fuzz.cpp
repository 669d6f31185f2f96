// The HTTP transports' JSON-RPC sniffing (plugins/http-common/src/jsonrpc_shape.*): which request
// and response ids a server's (or our own) message carries. Checked: every id it reports is the
// canonical JSON of a number or string, and the stand-in error response built from it is valid
// JSON-RPC that carries the same id back.
#include "fuzz_support.hpp"
#include "jsonrpc_shape.hpp"

#include <mcph/bounded_json.hpp>

namespace {

void check_id(const std::string& id) {
    rapidjson::Document doc;
    MCPH_FUZZ_CHECK(mcph::json_bounds::parse(doc, id));
    MCPH_FUZZ_CHECK(doc.IsNumber() || doc.IsString());

    const std::string reply = mcph::http::error_response(id, "request failed", 502);
    rapidjson::Document r;
    MCPH_FUZZ_CHECK(mcph::json_bounds::parse(r, reply));
    MCPH_FUZZ_CHECK(r.IsObject() && r.HasMember("id") && r.HasMember("error"));
    const mcph::http::MessageShape again = mcph::http::inspect_message(reply);
    MCPH_FUZZ_CHECK(again.valid && again.request_ids.empty() && again.response_ids.size() == 1);
    // A fractional id comes back as the nearest double RapidJSON reads, which may print differently;
    // ids the host sends are integers, and strings and integers must survive exactly.
    if (!doc.IsDouble()) MCPH_FUZZ_CHECK(again.response_ids[0] == id);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const mcph::http::MessageShape shape = mcph::http::inspect_message(mcph::fuzz::as_text(data, size));
    if (!shape.valid) {
        MCPH_FUZZ_CHECK(shape.request_ids.empty() && shape.response_ids.empty());
        return 0;
    }
    for (const std::string& id : shape.request_ids) check_id(id);
    for (const std::string& id : shape.response_ids) check_id(id);
    return 0;
}
