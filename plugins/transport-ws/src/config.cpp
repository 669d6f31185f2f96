#include "config.hpp"

#include "handshake_headers.hpp"

#include <curl/curl.h>
#include <mcph/plugin_helper.hpp>

#include <cstdint>
#include <limits>
#include <memory>

namespace mcph::ws {
namespace {

using mcph::plugin::ConfigReader;

[[noreturn]] void invalid(const std::string& message) { throw mcph::plugin::Error(MCPH_ERR_INVALID_ARGUMENT, message); }

HeaderList read_headers(ConfigReader& r) {
    HeaderList headers = r.string_map("headers").value_or(HeaderList{});
    for (const auto& [name, value] : headers)
        if (std::string problem = header_problem(name, value); !problem.empty()) r.fail("headers." + name, problem);
    return headers;
}

// RFC 6455 §4.1: a subprotocol is a single token.
std::string read_subprotocol(ConfigReader& r, std::string fallback) {
    std::optional<std::string> p = r.string("subprotocol");
    if (p && !p->empty() && !is_token(*p)) r.fail("subprotocol", "must be a single token such as \"mcp\"");
    return p ? *p : fallback;
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
    // Bounded (size, depth 128) like every JSON from outside: a config may come from a repository.
    ConfigReader r(json, "ws");
    WsConfig c;
    if (std::optional<std::string> type = r.string("type")) {
        if (*type != "ws" && *type != "ws-ide") r.fail("type", "must be \"ws\" or \"ws-ide\"");
        c.type = *type;
    }
    c.name = r.string("name").value_or("");
    std::string url = r.required_string("url");
    r.throw_if_error();  // parse_endpoint throws its own errors, after the reader's
    c.endpoint = parse_endpoint(url);
    c.headers = read_headers(r);
    c.ca_file = r.string("caFile", {/*non_empty=*/true}).value_or("");
    c.subprotocol = read_subprotocol(r, c.subprotocol);
    c.connect_timeout = std::chrono::milliseconds(
        r.integer<std::uint64_t>("connectTimeoutMs", 1, 600000, static_cast<std::uint64_t>(c.connect_timeout.count())));
    c.ping_interval = std::chrono::milliseconds(
        r.integer<std::uint64_t>("pingIntervalMs", 0, 86400000, static_cast<std::uint64_t>(c.ping_interval.count())));
    c.loop_idle = std::chrono::milliseconds(
        r.integer<std::uint64_t>("loopIdleMs", 0, 86400000, static_cast<std::uint64_t>(c.loop_idle.count())));
    // Capped well below SIZE_MAX so "limit + one chunk" arithmetic can never overflow.
    c.max_message_bytes = r.integer<std::size_t>("maxMessageBytes", 1, std::numeric_limits<std::uint32_t>::max(),
                                                 c.max_message_bytes);
    if (c.type == "ws-ide") {
        c.ide_name = r.required_string("ideName", {/*non_empty=*/true});
        c.ide_running_in_windows = r.boolean("ideRunningInWindows").value_or(false);
    }
    r.throw_if_error();
    return c;
}

}  // namespace mcph::ws
