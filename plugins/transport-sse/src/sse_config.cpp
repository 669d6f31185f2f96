#include "sse_config.hpp"

#include "endpoint_url.hpp"
#include "mcp_headers.hpp"

#include <mcph/plugin_helper.hpp>
#include <strings.h>

#include <cstdint>
#include <fstream>
#include <limits>

namespace mcph::sse {
namespace {

using mcph::plugin::ConfigReader;

// libcurl's URL parser decides what a URL is; hand-parsing would disagree with it at the edges.
std::string read_url(ConfigReader& r) {
    std::string u = r.required_string("url");
    if (!r.ok()) return u;
    if (std::string why = check_http_url(u); !why.empty()) r.fail("url", why);
    return u;
}

std::vector<std::pair<std::string, std::string>> read_headers(ConfigReader& r) {
    auto headers = r.string_map("headers").value_or(mcph::plugin::StringPairs{});
    for (const auto& [name, value] : headers) {
        if (!is_token(name)) r.fail("headers", "has an invalid header name '" + name + "'");
        if (is_managed_header(name)) r.fail("headers." + name, "is managed by the transport");
        if (!is_safe_header_value(value)) r.fail("headers." + name, "contains a line break");
    }
    return headers;
}

std::string read_ca_file(ConfigReader& r) {
    std::string path = r.string("caFile").value_or("");
    if (!path.empty() && !std::ifstream(path)) r.fail("caFile", "cannot be read: " + path);
    return path;
}

// "sse" or "sse-ide": every later message starts with it, so the user sees which kind of entry
// is wrong.
std::string read_type(ConfigReader& r) {
    std::optional<std::string> t = r.string("type");
    if (!t) return "sse";
    if (*t != "sse" && *t != "sse-ide") r.fail("type", "must be \"sse\" or \"sse-ide\"");
    return *t;
}

}  // namespace

// One definition of an RFC 9110 token for both transports (config names, auth hook names,
// x-mcp-header names): mcp_headers.hpp.
bool is_token(std::string_view s) { return mcph::http::is_header_token(s); }

bool is_safe_header_value(std::string_view s) {
    return s.find_first_of(std::string_view("\r\n\0", 3)) == std::string_view::npos;
}

bool is_managed_header(std::string_view name) {
    static constexpr std::string_view kManaged[] = {"accept", "content-type", "content-length", "host",
                                                    "transfer-encoding", "connection"};
    for (std::string_view m : kManaged)
        if (m.size() == name.size() && strncasecmp(m.data(), name.data(), m.size()) == 0) return true;
    return false;
}

std::string SseConfig::describe() const {
    std::string out = type + " " + url;
    if (ide_name) out += ", IDE '" + *ide_name + "'";
    if (ide_running_in_windows) out += *ide_running_in_windows ? ", IDE running in Windows" : ", IDE not in Windows";
    return out;
}

SseConfig parse_config(std::string_view json) {
    // Bounded (size, depth 128) like every JSON from outside: a config may come from a repository.
    ConfigReader r(json, "sse");
    SseConfig c;
    c.type = read_type(r);
    if (r.ok()) r.set_subject(c.type);
    c.name = r.string("name").value_or("");
    c.url = read_url(r);
    c.headers = read_headers(r);
    c.timeout = std::chrono::milliseconds(r.integer<std::int64_t>("timeoutMs", 1, 86400000, 60000));
    c.connect_timeout = std::chrono::milliseconds(r.integer<std::int64_t>("connectTimeoutMs", 1, 600000, 10000));
    c.ca_file = read_ca_file(r);
    c.max_message_bytes = r.integer<std::size_t>("maxMessageBytes", 1, std::numeric_limits<std::size_t>::max() / 4,
                                                 c.max_message_bytes);
    c.loop_idle = std::chrono::milliseconds(r.integer<std::int64_t>("loopIdleMs", 0, 86400000, c.loop_idle.count()));
    if (c.type == "sse-ide") {
        c.ide_name = r.string("ideName");
        c.ide_running_in_windows = r.boolean("ideRunningInWindows");
    }
    r.throw_if_error();
    return c;
}

}  // namespace mcph::sse
