#include "config.hpp"

#include "curl_handles.hpp"
#include "mcp_headers.hpp"

#include <mcph/plugin_helper.hpp>
#include <strings.h>

#include <cstdint>
#include <fstream>
#include <limits>

namespace mcph::http {
namespace {

using mcph::plugin::ConfigReader;

// libcurl's URL parser decides what a URL is; hand-parsing would disagree with it at the edges.
std::string url_problem(const std::string& url) {
    UrlHandle u(curl_url());
    if (!u) throw std::bad_alloc();
    if (url.find_first_of(std::string_view("\0\r\n \t", 5)) != std::string::npos ||
        curl_url_set(u.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK)
        return "is not a valid URL: " + url;
    char* scheme = nullptr;
    char* host = nullptr;
    bool ok = curl_url_get(u.get(), CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
              curl_url_get(u.get(), CURLUPART_HOST, &host, 0) == CURLUE_OK;
    std::string s = scheme ? scheme : "";
    bool has_host = host && *host;
    curl_free(scheme);
    curl_free(host);
    if (!ok || !has_host) return "needs a host: " + url;
    if (strcasecmp(s.c_str(), "http") != 0 && strcasecmp(s.c_str(), "https") != 0)
        return "must use http or https, not '" + s + "'";
    return {};
}

std::string read_url(ConfigReader& r) {
    std::string url = r.required_string("url");
    if (!r.ok()) return url;
    if (std::string why = url_problem(url); !why.empty()) r.fail("url", why);
    return url;
}

std::vector<std::pair<std::string, std::string>> read_headers(ConfigReader& r) {
    auto headers = r.string_map("headers").value_or(mcph::plugin::StringPairs{});
    for (const auto& [name, value] : headers) {
        if (!is_token(name)) r.fail("headers", "has an invalid header name '" + name + "'");
        if (is_managed_header(name)) r.fail("headers." + name, "is managed by the transport");
        // A CR or LF would let a value smuggle in extra headers (the reader refused a NUL).
        if (value.find_first_of("\r\n") != std::string::npos) r.fail("headers." + name, "contains a line break");
    }
    return headers;
}

std::string read_ca_file(ConfigReader& r) {
    std::string path = r.string("caFile").value_or("");
    if (!path.empty() && !std::ifstream(path)) r.fail("caFile", "cannot be read: " + path);
    return path;
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
    // Bounded (size, depth 128) like every JSON from outside: a config may come from a repository.
    ConfigReader r(json, "http");
    HttpConfig c;
    if (std::optional<std::string> type = r.string("type"); type && *type != "http") r.fail("type", "must be \"http\"");
    c.name = r.string("name").value_or("");
    c.url = read_url(r);
    c.headers = read_headers(r);
    c.timeout = std::chrono::milliseconds(r.integer<std::int64_t>("timeoutMs", 1, 86400000, 60000));
    c.connect_timeout = std::chrono::milliseconds(r.integer<std::int64_t>("connectTimeoutMs", 1, 600000, 10000));
    c.loop_idle = std::chrono::milliseconds(r.integer<std::int64_t>("loopIdleMs", 0, 86400000, c.loop_idle.count()));
    c.ca_file = read_ca_file(r);
    c.max_message_bytes = r.integer<std::size_t>("maxMessageBytes", 1, std::numeric_limits<std::size_t>::max() / 4,
                                                 c.max_message_bytes);
    r.throw_if_error();
    return c;
}

}  // namespace mcph::http
