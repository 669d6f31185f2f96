#include "config.hpp"

#include "curl_handles.hpp"
#include "mcp_headers.hpp"

#include <mcph/bounded_json.hpp>
#include <mcph/plugin_helper.hpp>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <strings.h>

#include <cstdint>
#include <fstream>
#include <limits>

namespace mcph::http {
namespace {

using mcph::plugin::Error;
using Value = rapidjson::Value;

[[noreturn]] void invalid(const std::string& message) { throw Error(MCPH_ERR_INVALID_ARGUMENT, message); }

const Value* member(const Value& object, const char* key) {
    auto it = object.FindMember(key);
    return it == object.MemberEnd() || it->value.IsNull() ? nullptr : &it->value;
}

std::string string_field(const Value& object, const char* key, bool required) {
    const Value* v = member(object, key);
    if (!v) {
        if (required) invalid(std::string("http config: '") + key + "' is required");
        return {};
    }
    if (!v->IsString()) invalid(std::string("http config: '") + key + "' must be a string");
    return std::string(v->GetString(), v->GetStringLength());
}

uint64_t integer_field(const Value& object, const char* key, uint64_t min, uint64_t max, uint64_t fallback) {
    const Value* v = member(object, key);
    if (!v) return fallback;
    if (!v->IsUint64() || v->GetUint64() < min || v->GetUint64() > max)
        invalid(std::string("http config: '") + key + "' must be an integer between " + std::to_string(min) +
                " and " + std::to_string(max));
    return v->GetUint64();
}

// libcurl's URL parser decides what a URL is; hand-parsing would disagree with it at the edges.
std::string parse_url(const Value& object) {
    std::string url = string_field(object, "url", true);
    UrlHandle u(curl_url());
    if (!u) throw std::bad_alloc();
    if (url.find_first_of(std::string_view("\0\r\n \t", 5)) != std::string::npos ||
        curl_url_set(u.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK)
        invalid("http config: 'url' is not a valid URL: " + url);
    char* scheme = nullptr;
    char* host = nullptr;
    bool ok = curl_url_get(u.get(), CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
              curl_url_get(u.get(), CURLUPART_HOST, &host, 0) == CURLUE_OK;
    std::string s = scheme ? scheme : "";
    bool has_host = host && *host;
    curl_free(scheme);
    curl_free(host);
    if (!ok || !has_host) invalid("http config: 'url' needs a host: " + url);
    if (strcasecmp(s.c_str(), "http") != 0 && strcasecmp(s.c_str(), "https") != 0)
        invalid("http config: 'url' must use http or https, not '" + s + "'");
    return url;
}

std::vector<std::pair<std::string, std::string>> parse_headers(const Value& object) {
    std::vector<std::pair<std::string, std::string>> out;
    const Value* v = member(object, "headers");
    if (!v) return out;
    if (!v->IsObject()) invalid("http config: 'headers' must be an object of strings");
    for (auto it = v->MemberBegin(); it != v->MemberEnd(); ++it) {
        std::string name(it->name.GetString(), it->name.GetStringLength());
        if (!is_token(name)) invalid("http config: 'headers' has an invalid header name '" + name + "'");
        if (is_managed_header(name)) invalid("http config: 'headers." + name + "' is managed by the transport");
        if (!it->value.IsString()) invalid("http config: 'headers." + name + "' must be a string");
        std::string value(it->value.GetString(), it->value.GetStringLength());
        // A CR, LF or NUL would let a value smuggle in extra headers.
        if (value.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos)
            invalid("http config: 'headers." + name + "' contains a line break or NUL");
        out.emplace_back(std::move(name), std::move(value));
    }
    return out;
}

std::string parse_ca_file(const Value& object) {
    std::string path = string_field(object, "caFile", false);
    if (path.empty()) return path;
    if (!std::ifstream(path)) invalid("http config: 'caFile' cannot be read: " + path);
    return path;
}

void check_type(const Value& object) {
    const Value* v = member(object, "type");
    if (v && !(v->IsString() && std::string_view(v->GetString(), v->GetStringLength()) == "http"))
        invalid("http config: 'type' must be \"http\"");
}

}  // namespace

// One definition of an RFC 9110 token for both transports (config names, auth hook names,
// x-mcp-header names): mcp_headers.hpp.
bool is_token(std::string_view s) { return mcph::http::is_header_token(s); }

bool is_visible_ascii(std::string_view s) {
    if (s.empty()) return false;
    for (unsigned char c : s)
        if (c < 0x21 || c > 0x7e) return false;
    return true;
}

bool is_managed_header(std::string_view name) {
    static constexpr std::string_view kManaged[] = {"accept", "content-type", "content-length", "mcp-session-id",
                                                    "mcp-protocol-version", "last-event-id", "host",
                                                    "transfer-encoding", "connection", "mcp-method",
                                                    "mcp-name"};
    for (std::string_view m : kManaged)
        if (m.size() == name.size() && strncasecmp(m.data(), name.data(), m.size()) == 0) return true;
    // Mcp-Param-{Name} mirrors tool arguments (2026-07-28): a static copy would contradict the body.
    constexpr std::string_view kParamPrefix = "mcp-param-";
    return name.size() >= kParamPrefix.size() && strncasecmp(kParamPrefix.data(), name.data(), kParamPrefix.size()) == 0;
}

HttpConfig parse_config(std::string_view json) {
    rapidjson::Document doc;
    // Bounded (iterative, depth 128) like every JSON from outside: a config may come from a repository.
    if (mcph::json_bounds::ParseOutcome parsed = mcph::json_bounds::parse(doc, json); !parsed)
        invalid("http config is not valid JSON: " + parsed.message());
    if (!doc.IsObject()) invalid("http config must be a JSON object");

    HttpConfig c;
    check_type(doc);
    c.name = string_field(doc, "name", false);
    c.url = parse_url(doc);
    c.headers = parse_headers(doc);
    c.timeout = std::chrono::milliseconds(integer_field(doc, "timeoutMs", 1, 86400000, 60000));
    c.connect_timeout = std::chrono::milliseconds(integer_field(doc, "connectTimeoutMs", 1, 600000, 10000));
    c.ca_file = parse_ca_file(doc);
    c.max_message_bytes = static_cast<size_t>(
        integer_field(doc, "maxMessageBytes", 1, std::numeric_limits<size_t>::max() / 4, c.max_message_bytes));
    return c;
}

}  // namespace mcph::http
