#include "config/connectors.hpp"

#include "config/headers_helper.hpp"
#include "config/remote_fetch.hpp"
#include "json/json_access.hpp"
#include "url/redact.hpp"

#include <mcph/bounded_json.hpp>
#include <mcph/error.hpp>

#include <array>
#include <set>

namespace mcph::config {
namespace {

constexpr int kDocumentVersion = 1;
constexpr std::size_t kMaxConnectorName = 128;
constexpr std::size_t kMaxBodyBytes = std::size_t{4} << 20;
constexpr std::array<const char*, 6> kRefusedFields = {"command", "args", "env", "cwd", "headersHelper", "auth"};
constexpr std::array<const char*, 3> kConnectorTypes = {"http", "sse", "ws"};

[[noreturn]] void bad(const std::string& origin, const std::string& what) { throw Error(ErrorKind::Usage, origin + ": " + what); }

std::string connector_label(std::size_t index, const std::string& name) {
    return "connectors[" + std::to_string(index) + "]" + (name.empty() ? "" : " ('" + name + "')");
}

// One connector, reduced to the fields a remote server needs; `a` allocates into `out`.
void add_connector(const JsonValue& c, std::size_t index, const std::string& origin, std::set<std::string>& names,
                   JsonValue& servers, Json::AllocatorType& a) {
    if (!c.IsObject()) bad(origin, connector_label(index, "") + " must be an object");
    const JsonValue* name = json::member(c, "name");
    if (!name || !name->IsString() || name->GetStringLength() == 0)
        bad(origin, connector_label(index, "") + ": name must be a non-empty string");
    const std::string n(json::view(*name));
    // Shown in every listing and part of each tool's mapped name: no control characters (a
    // terminal escape in a name would reach the user's screen), and a length a person can read.
    bool printable = n.size() <= kMaxConnectorName;
    for (unsigned char ch : n) printable = printable && ch >= 0x20 && ch != 0x7f;
    if (!printable)
        bad(origin, connector_label(index, "") + ": name must be at most " + std::to_string(kMaxConnectorName) +
                        " characters without control characters");
    const std::string label = connector_label(index, n);
    for (const char* field : kRefusedFields)
        if (json::member(c, field))
            bad(origin, label + ": \"" + field + "\" is not accepted (a connector is a remote server; the service cannot make mcph run anything)");
    if (!names.insert(n).second) bad(origin, label + ": the name is used twice");
    const JsonValue* url = json::member(c, "url");
    if (!url || !url->IsString() || url->GetStringLength() == 0) bad(origin, label + ": url must be a non-empty string");
    std::string type = "http";
    if (const JsonValue* t = json::member(c, "type")) {
        if (!t->IsString()) bad(origin, label + ": type must be a string");
        type = std::string(json::view(*t));
        bool known = false;
        for (const char* k : kConnectorTypes) known = known || type == k;
        if (!known) bad(origin, label + ": type must be http, sse or ws (not '" + type + "')");
    }
    JsonValue entry(rapidjson::kObjectType);
    entry.AddMember("type", json::string_value(type, a), a);
    entry.AddMember("url", JsonValue(*url, a), a);
    if (const JsonValue* h = json::member(c, "headers")) {
        parse_header_map(*h, origin, label + ".headers");  // validation only: the object is copied as is
        entry.AddMember("headers", JsonValue(*h, a), a);
    }
    if (const JsonValue* o = json::member(c, "oauth")) {
        if (!o->IsObject()) bad(origin, label + ": oauth must be an object");
        entry.AddMember("oauth", JsonValue(*o, a), a);
    }
    servers.AddMember(json::string_value(n, a), entry, a);
}

}  // namespace

std::vector<std::string> parse_proxy_url_parameters(const JsonValue& value, const std::string& origin) {
    if (!value.IsArray()) bad(origin, "proxyUrlParameters must be an array of query parameter names");
    std::vector<std::string> out;
    for (const JsonValue& v : value.GetArray()) {
        const std::string_view name = json::view(v);
        bool ok = v.IsString() && !name.empty() && name.size() <= 64;
        for (char ch : name) ok = ok && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' || ch == '.');
        if (!ok) bad(origin, "proxyUrlParameters must hold query parameter names (letters, digits, '_', '-', '.'; at most 64)");
        out.emplace_back(name);
    }
    return out;
}

ConnectorEndpoint parse_connector_endpoint(const JsonValue& value, const std::string& origin) {
    if (!value.IsObject()) bad(origin, "connectors must be an object ({\"url\": ...})");
    ConnectorEndpoint out;
    out.origin = origin;
    const JsonValue* url = json::member(value, "url");
    if (!url) bad(origin, "connectors.url is required");
    out.url = parse_endpoint_url(*url, origin, "connectors.url");
    if (const JsonValue* h = json::member(value, "headers")) out.headers = parse_header_map(*h, origin, "connectors.headers");
    if (const JsonValue* h = json::member(value, "headersHelper")) {
        if (!h->IsString() || h->GetStringLength() == 0) bad(origin, "connectors.headersHelper must be a non-empty command");
        out.headers_helper = std::string(json::view(*h));
    }
    if (const JsonValue* t = json::member(value, "timeoutMs")) out.timeout = parse_timeout_ms(*t, origin, "connectors.timeoutMs");
    if (const JsonValue* p = json::member(value, "proxyUrlParameters"))
        out.proxy_url_parameters = parse_proxy_url_parameters(*p, origin + ": connectors");
    return out;
}

std::string connectors_to_servers(std::string_view body, const std::string& origin) {
    Json doc;
    if (auto parsed = json_bounds::parse(doc, body); !parsed) bad(origin, "the answer is not JSON (" + parsed.message() + ")");
    if (!doc.IsObject()) bad(origin, "the answer must be a JSON object");
    const JsonValue* version = json::member(doc, "version");
    if (!version) bad(origin, "the answer has no \"version\" (this mcph reads version 1)");
    if (!version->IsInt() || version->GetInt() != kDocumentVersion)
        bad(origin, "unsupported connector document version " + to_json(*version) + " (this mcph reads version 1)");
    const JsonValue* list = json::member(doc, "connectors");
    if (!list || !list->IsArray()) bad(origin, "\"connectors\" must be an array");
    if (list->Size() > kMaxConnectors)
        bad(origin, std::to_string(list->Size()) + " connectors is more than the limit of " + std::to_string(kMaxConnectors));
    Json out(rapidjson::kObjectType);
    auto& a = out.GetAllocator();
    JsonValue servers(rapidjson::kObjectType);
    std::set<std::string> names;
    for (rapidjson::SizeType i = 0; i < list->Size(); ++i) add_connector((*list)[i], i, origin, names, servers, a);
    out.AddMember("mcpServers", servers, a);
    return to_json(out);
}

namespace {

// The endpoint's headers: the static ones, then the helper's over them (as for a server).
std::map<std::string, std::string> request_headers(const ConnectorEndpoint& endpoint) {
    std::map<std::string, std::string> headers = endpoint.headers;
    if (!endpoint.headers_helper.empty())
        for (auto& [k, v] : run_headers_helper({endpoint.headers_helper, "connectors", endpoint.url, std::chrono::seconds(10)}))
            headers[k] = std::move(v);
    return headers;
}

// The cached list, if there is a usable one; a cache that cannot be used is a problem of its own.
void use_cache(ConnectorSync& out) {
    if (out.cache_file.empty()) return;
    try {
        std::optional<std::string> cached = read_cache(out.cache_file);
        if (!cached) return;
        out.servers_json = connectors_to_servers(*cached, out.cache_file.string());
        out.stale = true;
    } catch (const Error& e) {
        if (!out.problem.empty()) out.problem += "; ";
        out.problem += std::string("the cached connector list cannot be used: ") + e.what();
    }
}

}  // namespace

ConnectorSync sync_connectors(const ConnectorEndpoint& endpoint, const std::filesystem::path& config_home) {
    ConnectorSync out;
    out.origin = url::redact_url(endpoint.url);
    if (!config_home.empty()) out.cache_file = cache_file_for(config_home, "connectors", endpoint.url);
    std::string body;
    try {
        body = fetch_document({endpoint.url, request_headers(endpoint), endpoint.timeout, kMaxBodyBytes, "the connector service"});
    } catch (const Error& e) {
        out.fetch_error = e.what();
        use_cache(out);
        return out;
    }
    try {
        out.servers_json = connectors_to_servers(body, "the connector service (" + out.origin + ")");
    } catch (const Error& e) {
        out.problem = e.what();
        use_cache(out);
        return out;
    }
    if (!out.cache_file.empty()) {
        try {
            write_cache(out.cache_file, body);
        } catch (const Error& e) {
            out.problem = std::string("the connector list could not be cached: ") + e.what();
        }
    }
    return out;
}

}  // namespace mcph::config
