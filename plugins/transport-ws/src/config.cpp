#include "config.hpp"

#include "handshake_headers.hpp"

#include <curl/curl.h>
#include <mcph/bounded_json.hpp>
#include <mcph/plugin_helper.hpp>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <cstdint>
#include <limits>
#include <memory>

namespace mcph::ws {
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
        if (required) invalid(std::string("ws config: '") + key + "' is required");
        return {};
    }
    if (!v->IsString()) invalid(std::string("ws config: '") + key + "' must be a string");
    return std::string(v->GetString(), v->GetStringLength());
}

uint64_t integer_field(const Value& object, const char* key, uint64_t min, uint64_t max, uint64_t fallback) {
    const Value* v = member(object, key);
    if (!v) return fallback;
    if (!v->IsUint64() || v->GetUint64() < min || v->GetUint64() > max)
        invalid(std::string("ws config: '") + key + "' must be an integer between " + std::to_string(min) + " and " +
                std::to_string(max));
    return v->GetUint64();
}

HeaderList parse_headers(const Value& object) {
    HeaderList out;
    const Value* v = member(object, "headers");
    if (!v) return out;
    if (!v->IsObject()) invalid("ws config: 'headers' must be an object of strings");
    for (auto it = v->MemberBegin(); it != v->MemberEnd(); ++it) {
        std::string name(it->name.GetString(), it->name.GetStringLength());
        if (!it->value.IsString()) invalid("ws config: 'headers." + name + "' must be a string");
        std::string value(it->value.GetString(), it->value.GetStringLength());
        if (std::string problem = header_problem(name, value); !problem.empty())
            invalid("ws config: 'headers." + name + "' " + problem);
        out.emplace_back(std::move(name), std::move(value));
    }
    return out;
}

// RFC 6455 §4.1: a subprotocol is a single token.
void check_subprotocol(const std::string& p) {
    if (!p.empty() && !is_token(p)) invalid("ws config: 'subprotocol' must be a single token such as \"mcp\"");
}

struct CurlUrlDeleter {
    void operator()(CURLU* u) const { curl_url_cleanup(u); }
};
struct CurlStringDeleter {
    void operator()(char* s) const { curl_free(s); }
};
using CurlString = std::unique_ptr<char, CurlStringDeleter>;

// One URL part, or nullopt-like empty pointer when absent.
CurlString url_part(CURLU* u, CURLUPart part, unsigned flags = 0) {
    char* out = nullptr;
    if (curl_url_get(u, part, &out, flags) != CURLUE_OK) return CurlString();
    return CurlString(out);
}

}  // namespace

Endpoint parse_endpoint(const std::string& url) {
    if (url.empty()) invalid("ws config: 'url' must not be empty");
    if (url.find_first_of(std::string_view("\0\r\n \t", 5)) != std::string::npos)
        invalid("ws config: 'url' must not contain whitespace or control characters");
    std::unique_ptr<CURLU, CurlUrlDeleter> u(curl_url());
    if (!u) throw std::bad_alloc();
    // NON_SUPPORT_SCHEME: this libcurl may be built without its own (experimental) ws support.
    CURLUcode rc = curl_url_set(u.get(), CURLUPART_URL, url.c_str(), CURLU_NON_SUPPORT_SCHEME);
    if (rc != CURLUE_OK) invalid("ws config: 'url' is not a valid URL (" + std::string(curl_url_strerror(rc)) + "): " + url);

    Endpoint e;
    e.url = url;
    CurlString scheme = url_part(u.get(), CURLUPART_SCHEME);
    std::string s = scheme ? scheme.get() : "";
    if (s == "wss")
        e.tls = true;
    else if (s != "ws")
        invalid("ws config: 'url' must start with ws:// or wss:// (got '" + s + "')");
    if (url_part(u.get(), CURLUPART_USER) || url_part(u.get(), CURLUPART_PASSWORD))
        invalid("ws config: 'url' must not contain credentials; use 'headers' or an auth plugin");
    if (url_part(u.get(), CURLUPART_FRAGMENT)) invalid("ws config: 'url' must not contain a #fragment (RFC 6455)");

    CurlString host = url_part(u.get(), CURLUPART_HOST);
    if (!host || !*host.get()) invalid("ws config: 'url' has no host: " + url);
    std::string h = host.get();
    bool bracketed = h.size() > 2 && h.front() == '[' && h.back() == ']';
    e.address = bracketed ? h.substr(1, h.size() - 2) : h;
    if (CurlString zone = url_part(u.get(), CURLUPART_ZONEID))
        invalid("ws config: 'url' with an IPv6 zone id is not supported");

    CurlString port = url_part(u.get(), CURLUPART_PORT);
    int default_port = e.tls ? 443 : 80;
    e.port = port ? std::atoi(port.get()) : default_port;
    if (e.port <= 0 || e.port > 65535) invalid("ws config: 'url' has an invalid port: " + url);
    e.host_header = h;
    if (e.port != default_port) e.host_header += ":" + std::to_string(e.port);

    CurlString path = url_part(u.get(), CURLUPART_PATH);
    e.path = path && *path.get() ? path.get() : "/";
    if (CurlString query = url_part(u.get(), CURLUPART_QUERY)) e.path += std::string("?") + query.get();
    return e;
}

WsConfig parse_config(std::string_view json) {
    rapidjson::Document doc;
    // Bounded (iterative, depth 128) like every JSON from outside: a config may come from a repository.
    if (mcph::json_bounds::ParseOutcome parsed = mcph::json_bounds::parse(doc, json); !parsed)
        invalid("ws config is not valid JSON: " + parsed.message());
    if (!doc.IsObject()) invalid("ws config must be a JSON object");

    WsConfig c;
    if (const Value* t = member(doc, "type")) {
        std::string_view type = t->IsString() ? std::string_view(t->GetString(), t->GetStringLength()) : "";
        if (type != "ws" && type != "ws-ide") invalid("ws config: 'type' must be \"ws\" or \"ws-ide\"");
        c.type = std::string(type);
    }
    c.name = string_field(doc, "name", false);
    c.endpoint = parse_endpoint(string_field(doc, "url", true));
    c.headers = parse_headers(doc);
    c.ca_file = string_field(doc, "caFile", false);
    if (const Value* v = member(doc, "caFile"); v && c.ca_file.empty()) invalid("ws config: 'caFile' must not be empty");
    if (c.ca_file.find('\0') != std::string::npos) invalid("ws config: 'caFile' contains a NUL byte");
    if (member(doc, "subprotocol")) {
        c.subprotocol = string_field(doc, "subprotocol", false);
        check_subprotocol(c.subprotocol);
    }
    c.connect_timeout = std::chrono::milliseconds(
        integer_field(doc, "connectTimeoutMs", 1, 600000, static_cast<uint64_t>(c.connect_timeout.count())));
    c.ping_interval = std::chrono::milliseconds(
        integer_field(doc, "pingIntervalMs", 0, 86400000, static_cast<uint64_t>(c.ping_interval.count())));
    // Capped well below SIZE_MAX so "limit + one chunk" arithmetic can never overflow.
    c.max_message_bytes = static_cast<size_t>(
        integer_field(doc, "maxMessageBytes", 1, std::numeric_limits<uint32_t>::max(), c.max_message_bytes));

    if (c.type == "ws-ide") {
        c.ide_name = string_field(doc, "ideName", true);
        if (c.ide_name.empty()) invalid("ws config: 'ideName' must not be empty");
        if (const Value* v = member(doc, "ideRunningInWindows")) {
            if (!v->IsBool()) invalid("ws config: 'ideRunningInWindows' must be a boolean");
            c.ide_running_in_windows = v->GetBool();
        }
    }
    return c;
}

}  // namespace mcph::ws
