#include "governance/server_signature.hpp"

#include "json/json_access.hpp"
#include "tools/sha256.hpp"
#include "url/canonical_url.hpp"

#include <mcph/bounded_json.hpp>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <curl/curl.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

namespace mcph::governance {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;
using UrlHandle = std::unique_ptr<CURLU, decltype(&curl_url_cleanup)>;

// A proxy may itself sit behind a proxy; a small bound keeps a URL that names itself from looping.
constexpr int kMaxProxyHops = 4;

// ASCII only, whatever the locale: scheme, host and header names are ASCII case-insensitive.
std::string lower(std::string s) {
    for (char& c : s)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return s;
}

UrlHandle parse_url(const std::string& url) {
    UrlHandle handle(curl_url(), curl_url_cleanup);
    // ws/wss (and plugins' own schemes) may be unknown to this libcurl build: parse them anyway.
    if (!handle || curl_url_set(handle.get(), CURLUPART_URL, url.c_str(), CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK)
        return {nullptr, curl_url_cleanup};
    return handle;
}

std::optional<std::string> url_part(CURLU* handle, CURLUPart part, unsigned flags = 0) {
    char* text = nullptr;
    if (curl_url_get(handle, part, &text, flags) != CURLUE_OK) return std::nullopt;
    std::string out(text);
    curl_free(text);
    return out;
}

// By hand rather than CURLU_NO_DEFAULT_PORT: libcurl knows the default port only of the schemes it
// was built with, and ws/wss often are not among them.
std::string_view default_port(std::string_view scheme) {
    if (scheme == "http" || scheme == "ws") return "80";
    if (scheme == "https" || scheme == "wss") return "443";
    return {};
}

void drop_default_port(CURLU* handle) {
    std::optional<std::string> scheme = url_part(handle, CURLUPART_SCHEME);
    std::optional<std::string> port = url_part(handle, CURLUPART_PORT);  // only an explicit one
    if (scheme && port && *port == default_port(*scheme)) curl_url_set(handle, CURLUPART_PORT, nullptr, 0);
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Query values are form-encoded by the proxies we know (URLSearchParams): '+' is a space. A broken
// escape is kept as written rather than guessed at.
std::string decode_query_value(std::string_view v) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) {
        if (v[i] == '+') {
            out.push_back(' ');
        } else if (v[i] == '%' && i + 2 < v.size() && hex_digit(v[i + 1]) >= 0 && hex_digit(v[i + 2]) >= 0) {
            out.push_back(static_cast<char>(hex_digit(v[i + 1]) * 16 + hex_digit(v[i + 2])));
            i += 2;
        } else {
            out.push_back(v[i]);
        }
    }
    return out;
}

// The decoded value of the first proxy parameter in the URL's query, if any. The raw query is split
// on '&' before decoding, so an encoded '&' inside the original URL stays inside it.
std::optional<std::string> proxied_url(const std::string& url, const ProxyUrlParams& params) {
    UrlHandle handle = parse_url(url);
    if (!handle) return std::nullopt;
    std::optional<std::string> query = url_part(handle.get(), CURLUPART_QUERY);
    if (!query) return std::nullopt;
    for (std::string_view param : params) {
        if (param.empty()) continue;
        std::string_view rest = *query;
        while (!rest.empty()) {
            size_t amp = rest.find('&');
            std::string_view pair = rest.substr(0, amp);
            rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
            if (pair.size() > param.size() && pair.substr(0, param.size()) == param && pair[param.size()] == '=')
                return decode_query_value(pair.substr(param.size() + 1));
        }
    }
    return std::nullopt;
}

void write_canonical(const JsonValue& value, Writer& writer);

void write_canonical_object(const JsonValue& object, Writer& writer) {
    std::vector<std::pair<std::string_view, const JsonValue*>> members;
    for (const auto& m : object.GetObject()) members.emplace_back(json::view(m.name), &m.value);
    // Duplicate keys (legal, if unwise, JSON) are ordered by their values so the text stays stable.
    std::sort(members.begin(), members.end(), [](const auto& a, const auto& b) {
        if (a.first != b.first) return a.first < b.first;
        return canonical_json(*a.second) < canonical_json(*b.second);
    });
    writer.StartObject();
    for (const auto& [key, member] : members) {
        writer.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
        write_canonical(*member, writer);
    }
    writer.EndObject();
}

void write_canonical(const JsonValue& value, Writer& writer) {
    if (value.IsObject()) {
        write_canonical_object(value, writer);
    } else if (value.IsArray()) {
        writer.StartArray();  // array order is meaningful: kept
        for (const JsonValue& item : value.GetArray()) write_canonical(item, writer);
        writer.EndArray();
    } else {
        value.Accept(writer);  // json-bounds-ok: scalars only; RapidJSON's own escaping and number formatting
    }
}

// The entry as the config loader filled it in; a hand-built ServerConfig may leave it empty.
Json entry_of(const config::ServerConfig& server) {
    if (server.config_json.empty()) return Json(rapidjson::kObjectType);
    return parse_json(server.config_json, "server config");
}

std::string env_hash(const JsonValue& entry) {
    const JsonValue* env = json::object_member(entry, "env");
    return tools::sha256_hex(env ? canonical_json(*env) : "{}");
}

// Headers identify the caller to the server (an account, a tenant): the same URL with other
// headers may well be another server. Names are case-insensitive in HTTP, so they are lower-cased.
std::string headers_hash(const JsonValue& entry) {
    std::vector<std::pair<std::string, std::string>> headers;
    if (const JsonValue* h = json::object_member(entry, "headers"))
        for (const auto& m : h->GetObject())
            headers.emplace_back(lower(std::string(json::view(m.name))),
                                 m.value.IsString() ? std::string(json::view(m.value)) : canonical_json(m.value));
    std::sort(headers.begin(), headers.end());
    Json list(rapidjson::kArrayType);
    auto& a = list.GetAllocator();
    for (const auto& [name, value] : headers) {
        JsonValue pair(rapidjson::kArrayType);
        pair.PushBack(json::string_value(name, a), a).PushBack(json::string_value(value, a), a);
        list.PushBack(pair, a);
    }
    return tools::sha256_hex(to_json(list));
}

std::vector<std::string> command_line_of(const JsonValue& entry) {
    std::vector<std::string> out{json::string_or(entry, "command")};
    if (const JsonValue* args = json::array_member(entry, "args"))
        for (const JsonValue& arg : args->GetArray())
            out.push_back(arg.IsString() ? std::string(json::view(arg)) : canonical_json(arg));
    return out;
}

// What the child inherits of the host's environment is part of which server it is: the same
// command with the whole environment (a token in it) may act as another account. Absent and false
// are the one default and add nothing (so such signatures keep their shape); a list is a set of
// names, so its order and repeats do not count. A value of another shape was refused at load.
std::string inherit_env_part(const JsonValue& entry) {
    const JsonValue* inherit = json::member(entry, "inheritEnv");
    if (!inherit || (inherit->IsBool() && !inherit->GetBool())) return {};
    if (!inherit->IsArray()) return "|inheritEnv:" + canonical_json(*inherit);
    std::vector<std::string> names;
    for (const JsonValue& name : inherit->GetArray()) names.push_back(name.IsString() ? std::string(json::view(name)) : canonical_json(name));
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    Json list(rapidjson::kArrayType);
    for (const std::string& name : names) list.PushBack(json::string_value(name, list.GetAllocator()), list.GetAllocator());
    return "|inheritEnv:" + to_json(list);
}

std::string stdio_signature(const JsonValue& entry) {
    // A JSON array, not a joined string: ["a b"] and ["a","b"] are different command lines.
    Json command(rapidjson::kArrayType);
    for (const std::string& part : command_line_of(entry))
        command.PushBack(json::string_value(part, command.GetAllocator()), command.GetAllocator());
    return "stdio:" + to_json(command) + "|env:" + env_hash(entry) + inherit_env_part(entry);
}

// The entry without the "name" the loader filled in: names must not tell duplicates apart.
std::string canonical_entry(Json entry) {
    entry.RemoveMember("name");
    return canonical_json(entry);
}

}  // namespace

std::string normalize_url(const std::string& url) {
    UrlHandle handle = parse_url(url);
    if (!handle) return url;
    // libcurl lower-cases the scheme but keeps the host as written. The host in its canonical form
    // (url/canonical_url.hpp: case, trailing dot, IDN A-labels, one spelling of an IP literal), so
    // two spellings of one server are one signature; userinfo stays — other credentials may well
    // mean another account.
    if (std::optional<std::string> host = url_part(handle.get(), CURLUPART_HOST)) {
        url::CanonicalHostResult canonical = url::canonical_host(*host);
        const std::string text = canonical ? canonical.host->literal() : lower(*host);
        curl_url_set(handle.get(), CURLUPART_HOST, text.c_str(), 0);
    }
    drop_default_port(handle.get());
    return url_part(handle.get(), CURLUPART_URL).value_or(url);
}

const ProxyUrlParams& default_proxy_url_params() {
    static const ProxyUrlParams params{std::string(kDefaultProxyUrlParam)};
    return params;
}

std::string unwrap_proxy_url(const std::string& url, const ProxyUrlParams& params) {
    std::string current = url;
    for (int hop = 0; hop < kMaxProxyHops; ++hop) {
        std::optional<std::string> original = proxied_url(current, params);
        if (!original || !parse_url(*original)) break;  // not a proxy URL, or it wraps no usable URL
        current = *original;
    }
    return normalize_url(current);
}

std::string canonical_json(const JsonValue& value) {
    rapidjson::StringBuffer buffer;
    Writer writer(buffer);
    write_canonical(value, writer);
    return std::string(buffer.GetString(), buffer.GetSize());
}

std::vector<std::string> stdio_command_line(const config::ServerConfig& server) {
    return command_line_of(entry_of(server));
}

SignatureKind signature_kind(const config::ServerConfig& server) {
    if (server.type == "stdio") return SignatureKind::Stdio;
    if (server.type == "sdk") return SignatureKind::Sdk;
    if (!server.url.empty()) return SignatureKind::Remote;
    return SignatureKind::Other;
}

std::string server_signature(const config::ServerConfig& server, const ProxyUrlParams& params) {
    Json entry = entry_of(server);
    switch (signature_kind(server)) {
        case SignatureKind::Stdio: return stdio_signature(entry);
        case SignatureKind::Sdk: return "sdk:" + server.name;
        case SignatureKind::Remote: return "url:" + unwrap_proxy_url(server.url, params) + "|headers:" + headers_hash(entry);
        case SignatureKind::Other: break;
    }
    return server.type + ":" + canonical_entry(std::move(entry));
}

std::string definition_fingerprint(const config::ServerConfig& server) {
    std::string text = canonical_entry(entry_of(server));
    // An XAA server's effective auth config carries the document-level "xaaIdp" (share_xaa_idp),
    // which its entry does not show: a document pointing the IdP elsewhere is another definition.
    // Other backends' auth config is the entry's own "oauth" object, already in the text.
    if (server.auth_backend == "xaa" && !server.auth_config_json.empty())
        text += std::string("\0auth:", 6) + canonical_json(parse_json(server.auth_config_json, "auth config"));
    return tools::sha256_hex(text);
}

std::string written_fingerprint(const config::ConfiguredServer& server) {
    if (server.written_json.empty()) return definition_fingerprint(server.config);
    // A domain prefix (NUL included) so a written form can never hash like a parsed definition.
    const std::string prefix("written\0", 8);
    Json doc;
    if (!json_bounds::parse(doc, server.written_json)) return tools::sha256_hex(prefix + server.written_json);
    return tools::sha256_hex(prefix + canonical_json(doc));
}

}  // namespace mcph::governance
