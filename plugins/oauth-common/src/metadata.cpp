#include "metadata.hpp"

#include "json_fields.hpp"

#include <mcph/bounded_json.hpp>

#include <rapidjson/document.h>

namespace mcph::oauth {

namespace {

std::vector<std::string> get_strings(const rapidjson::Value& obj, const char* name) {
    std::vector<std::string> out;
    auto it = obj.FindMember(name);
    if (it == obj.MemberEnd() || !it->value.IsArray()) return out;
    for (const auto& v : it->value.GetArray())
        if (v.IsString()) out.emplace_back(v.GetString(), v.GetStringLength());
    return out;
}

}  // namespace

bool contains(const std::vector<std::string>& list, std::string_view value) {
    for (const auto& s : list)
        if (s == value) return true;
    return false;
}

bool AuthServerMetadata::supports_s256() const { return contains(code_challenge_methods_supported, "S256"); }

bool AuthServerMetadata::supports_auth_method(std::string_view method) const {
    if (token_endpoint_auth_methods_supported.empty()) return method == "client_secret_basic";
    return contains(token_endpoint_auth_methods_supported, method);
}

std::optional<ProtectedResourceMetadata> parse_protected_resource_metadata(std::string_view json) {
    rapidjson::Document doc;
    if (!json_bounds::parse(doc, json) || !doc.IsObject()) return std::nullopt;
    ProtectedResourceMetadata m;
    m.resource = string_member(doc, "resource");
    m.authorization_servers = get_strings(doc, "authorization_servers");
    m.scopes_supported = get_strings(doc, "scopes_supported");
    return m;
}

std::optional<AuthServerMetadata> parse_auth_server_metadata(std::string_view json) {
    rapidjson::Document doc;
    if (!json_bounds::parse(doc, json) || !doc.IsObject()) return std::nullopt;
    AuthServerMetadata m;
    m.from_document = true;
    m.issuer = string_member(doc, "issuer");
    m.authorization_endpoint = string_member(doc, "authorization_endpoint");
    m.token_endpoint = string_member(doc, "token_endpoint");
    m.registration_endpoint = string_member(doc, "registration_endpoint");
    m.scopes_supported = get_strings(doc, "scopes_supported");
    m.code_challenge_methods_supported = get_strings(doc, "code_challenge_methods_supported");
    m.token_endpoint_auth_methods_supported = get_strings(doc, "token_endpoint_auth_methods_supported");
    m.grant_types_supported = get_strings(doc, "grant_types_supported");
    m.dpop_signing_alg_values_supported = get_strings(doc, "dpop_signing_alg_values_supported");
    auto it = doc.FindMember("client_id_metadata_document_supported");
    m.client_id_metadata_document_supported = it != doc.MemberEnd() && it->value.IsBool() && it->value.GetBool();
    it = doc.FindMember("authorization_response_iss_parameter_supported");
    m.authorization_response_iss_parameter_supported = it != doc.MemberEnd() && it->value.IsBool() && it->value.GetBool();
    return m;
}

}  // namespace mcph::oauth
