#include "token_store.hpp"

#include "encoding.hpp"
#include "json_fields.hpp"

#include <mcph/bounded_json.hpp>
#include <mcph/plugin_helper.hpp>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace mcph::oauth {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void field(Writer& w, const char* name, const std::string& value) {
    w.Key(name);
    w.String(value.c_str(), static_cast<rapidjson::SizeType>(value.size()));
}

void write_client(Writer& w, const ClientIdentity& c) {
    w.StartObject();
    field(w, "client_id", c.client_id);
    field(w, "client_secret", c.client_secret);
    field(w, "auth_method", c.auth_method);
    field(w, "source", c.source);
    field(w, "issuer", c.issuer);
    field(w, "redirect_uri", c.redirect_uri);
    w.EndObject();
}

ClientIdentity read_client(const rapidjson::Value& v) {
    ClientIdentity c;
    c.client_id = string_member(v, "client_id");
    c.client_secret = string_member(v, "client_secret");
    c.auth_method = string_member(v, "auth_method");
    c.source = string_member(v, "source");
    c.issuer = string_member(v, "issuer");
    c.redirect_uri = string_member(v, "redirect_uri");
    return c;
}

}  // namespace

std::string store_key_base(std::string_view server_name, std::string_view server_url, std::string_view client_id) {
    // NUL separators: ("ab","c") and ("a","bc") must not collide.
    std::string input;
    input.append(server_name).push_back('\0');
    input.append(server_url).push_back('\0');
    input.append(client_id);
    return "mcph.oauth." + hex(sha256(input)).substr(0, 32);
}

std::string serialize(const StoredTokens& t) {
    rapidjson::StringBuffer buf;
    Writer w(buf);
    w.StartObject();
    field(w, "access_token", t.access_token);
    field(w, "refresh_token", t.refresh_token);
    field(w, "scope", t.scope);
    w.Key("expires_at");
    w.Int64(t.expires_at);
    field(w, "token_endpoint", t.token_endpoint);
    field(w, "issuer", t.issuer);
    field(w, "resource", t.resource);
    w.Key("client");
    write_client(w, t.client);
    field(w, "token_type", t.token_type);
    w.EndObject();
    return buf.GetString();
}

std::optional<StoredTokens> deserialize_tokens(std::string_view json) {
    rapidjson::Document doc;
    if (!json_bounds::parse(doc, json) || !doc.IsObject()) return std::nullopt;
    StoredTokens t;
    t.access_token = string_member(doc, "access_token");
    t.refresh_token = string_member(doc, "refresh_token");
    t.scope = string_member(doc, "scope");
    if (auto it = doc.FindMember("expires_at"); it != doc.MemberEnd() && it->value.IsInt64())
        t.expires_at = it->value.GetInt64();
    t.token_endpoint = string_member(doc, "token_endpoint");
    t.issuer = string_member(doc, "issuer");
    t.resource = string_member(doc, "resource");
    if (auto it = doc.FindMember("client"); it != doc.MemberEnd() && it->value.IsObject()) t.client = read_client(it->value);
    if (string_member(doc, "token_type") == "DPoP") t.token_type = "DPoP";
    if (t.access_token.empty() && t.refresh_token.empty()) return std::nullopt;
    return t;
}

std::string serialize(const ClientIdentity& c) {
    rapidjson::StringBuffer buf;
    Writer w(buf);
    write_client(w, c);
    return buf.GetString();
}

std::optional<ClientIdentity> deserialize_client(std::string_view json) {
    rapidjson::Document doc;
    if (!json_bounds::parse(doc, json) || !doc.IsObject()) return std::nullopt;
    ClientIdentity c = read_client(doc);
    if (c.client_id.empty()) return std::nullopt;
    return c;
}

TokenStore::TokenStore(const mcph_host_services* host, std::string key_base)
    : host_(host), tokens_key_(key_base + ".tokens"), client_key_(key_base + ".client") {}

std::optional<std::string> TokenStore::get(const std::string& key) const {
    if (!host_ || !host_->secret_get) return std::nullopt;
    std::string value;
    mcph_string_sink sink{sizeof(mcph_string_sink), &value,
                          [](void* ud, mcph_str v) { static_cast<std::string*>(ud)->assign(mcph::plugin::view(v)); }};
    mcph_error err = mcph::plugin::make_error();
    mcph_status st = host_->secret_get(host_->host_data, mcph::plugin::str(key), &sink, &err);
    if (st == MCPH_ERR_NOT_FOUND) return std::nullopt;
    if (st != MCPH_OK) throw mcph::plugin::Error(st, std::string("secret store: ") + err.message);
    return value;
}

void TokenStore::set(const std::string& key, const std::string& value) const {
    if (!host_ || !host_->secret_set) return;  // no store: tokens live in memory only
    mcph_error err = mcph::plugin::make_error();
    mcph_status st = host_->secret_set(host_->host_data, mcph::plugin::str(key), mcph::plugin::str(value), &err);
    if (st != MCPH_OK) throw mcph::plugin::Error(st, std::string("secret store: ") + err.message);
}

void TokenStore::erase(const std::string& key) const {
    if (!host_ || !host_->secret_delete) return;
    mcph_error err = mcph::plugin::make_error();
    mcph_status st = host_->secret_delete(host_->host_data, mcph::plugin::str(key), &err);
    if (st != MCPH_OK && st != MCPH_ERR_NOT_FOUND)
        throw mcph::plugin::Error(st, std::string("secret store: ") + err.message);
}

std::optional<StoredTokens> TokenStore::load_tokens() const {
    auto raw = get(tokens_key_);
    return raw ? deserialize_tokens(*raw) : std::nullopt;
}
void TokenStore::save_tokens(const StoredTokens& t) const { set(tokens_key_, serialize(t)); }
void TokenStore::erase_tokens() const { erase(tokens_key_); }
std::optional<ClientIdentity> TokenStore::load_client() const {
    auto raw = get(client_key_);
    return raw ? deserialize_client(*raw) : std::nullopt;
}
void TokenStore::save_client(const ClientIdentity& c) const { set(client_key_, serialize(c)); }
void TokenStore::erase_client() const { erase(client_key_); }

}  // namespace mcph::oauth
