#include "session/request_meta.hpp"

#include "json/json_access.hpp"

#include <mcph/bounded_json.hpp>

#include <rapidjson/stringbuffer.h>

namespace mcph::session {
namespace {

void set_member(JsonValue& object, const char* key, JsonValue value, Json::AllocatorType& a) {
    json::set_member(object, JsonValue(key, a), std::move(value), a);
}

void set_string(JsonValue& object, const char* key, const std::string& value, Json::AllocatorType& a) {
    if (!value.empty()) set_member(object, key, json::string_value(value, a), a);
}

// The capabilities as the 2026-07-28 envelope declares them. There an empty `elicitation` object
// means form mode only (client/elicitation.mdx, "Capabilities"), and a modern server must then not
// ask for URL mode; mcph puts URL-mode requests to the application too (ElicitationRequest::url,
// never fetched), so the envelope names both modes. The legacy initialize keeps the bare {} (see
// client_capabilities): a server reading the envelope speaks 2026-07-28, so it knows the modes.
JsonValue envelope_capabilities(const JsonValue& caps, Json::AllocatorType& a) {
    JsonValue out(caps, a);
    JsonValue* elicitation = out.IsObject() ? json::member_mut(out, "elicitation") : nullptr;
    if (elicitation && elicitation->IsObject() && elicitation->ObjectEmpty()) {
        elicitation->AddMember("form", JsonValue(rapidjson::kObjectType), a);
        elicitation->AddMember("url", JsonValue(rapidjson::kObjectType), a);
    }
    return out;
}

}  // namespace

Json client_capabilities(const JsonValue& extensions) {
    Json caps(rapidjson::kObjectType);
    auto& a = caps.GetAllocator();
    caps.AddMember("roots", JsonValue(rapidjson::kObjectType), a);
    caps.AddMember("sampling", JsonValue(rapidjson::kObjectType), a);
    // Exactly {}: the richer {form:{},url:{}} form crashes some server SDKs (seed 000, §18.4).
    caps.AddMember("elicitation", JsonValue(rapidjson::kObjectType), a);
    if (extensions.IsObject() && extensions.MemberCount() > 0) caps.AddMember("extensions", JsonValue(extensions, a), a);
    return caps;
}

Json implementation_json(const Implementation& client) {
    Json info(rapidjson::kObjectType);
    auto& a = info.GetAllocator();
    info.AddMember("name", json::string_value(client.name, a), a);
    info.AddMember("version", json::string_value(client.version, a), a);
    if (!client.title.empty()) info.AddMember("title", json::string_value(client.title, a), a);
    return info;
}

void add_request_meta(Json& params, const RequestMeta& meta) {
    auto& a = params.GetAllocator();
    if (!params.IsObject()) params.SetObject();
    JsonValue* m = json::member_mut(params, "_meta");
    if (!m || !m->IsObject()) {
        if (m) *m = JsonValue(rapidjson::kObjectType);
        else params.AddMember("_meta", JsonValue(rapidjson::kObjectType), a);
        m = json::member_mut(params, "_meta");
    }
    set_string(*m, kMetaProtocolVersion, meta.protocol_version, a);
    if (meta.capabilities) set_member(*m, kMetaClientCapabilities, envelope_capabilities(*meta.capabilities, a), a);
    if (meta.client_info) set_member(*m, kMetaClientInfo, JsonValue(*meta.client_info, a), a);
    set_string(*m, kMetaLogLevel, meta.log_level, a);
    set_string(*m, "traceparent", meta.traceparent, a);
    set_string(*m, "tracestate", meta.tracestate, a);
    set_string(*m, "baggage", meta.baggage, a);
}

std::string serialized_request_meta(const RequestMeta& meta) {
    Json params(rapidjson::kObjectType);
    add_request_meta(params, meta);
    rapidjson::StringBuffer buffer;
    json_bounds::write(params["_meta"], buffer);  // a few levels deep: never near the bound
    return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace mcph::session
