#include "sse_config.hpp"

#include "endpoint_url.hpp"
#include "mcp_headers.hpp"

#include <mcph/bounded_json.hpp>
#include <mcph/plugin_helper.hpp>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <strings.h>

#include <cstdint>
#include <fstream>
#include <limits>

namespace mcph::sse {
namespace {

using mcph::plugin::Error;
using Value = rapidjson::Value;

// Every message starts with "<type> config:" so the user sees which kind of entry is wrong.
class Parser {
public:
    explicit Parser(std::string prefix) : prefix_(std::move(prefix)) {}

    [[noreturn]] void invalid(const std::string& message) const {
        throw Error(MCPH_ERR_INVALID_ARGUMENT, prefix_ + " config: " + message);
    }

    static const Value* member(const Value& object, const char* key) {
        auto it = object.FindMember(key);
        return it == object.MemberEnd() || it->value.IsNull() ? nullptr : &it->value;
    }

    std::optional<std::string> string_field(const Value& object, const char* key, bool required) const {
        const Value* v = member(object, key);
        if (!v) {
            if (required) invalid(std::string("'") + key + "' is required");
            return std::nullopt;
        }
        if (!v->IsString()) invalid(std::string("'") + key + "' must be a string");
        return std::string(v->GetString(), v->GetStringLength());
    }

    std::optional<bool> bool_field(const Value& object, const char* key) const {
        const Value* v = member(object, key);
        if (!v) return std::nullopt;
        if (!v->IsBool()) invalid(std::string("'") + key + "' must be true or false");
        return v->GetBool();
    }

    uint64_t integer_field(const Value& object, const char* key, uint64_t min, uint64_t max, uint64_t fallback) const {
        const Value* v = member(object, key);
        if (!v) return fallback;
        if (!v->IsUint64() || v->GetUint64() < min || v->GetUint64() > max)
            invalid(std::string("'") + key + "' must be an integer between " + std::to_string(min) + " and " +
                    std::to_string(max));
        return v->GetUint64();
    }

    // libcurl's URL parser decides what a URL is; hand-parsing would disagree with it at the edges.
    std::string url(const Value& object) const {
        std::string u = *string_field(object, "url", true);
        std::string why = check_http_url(u);
        if (!why.empty()) invalid("'url' " + why);
        return u;
    }

    std::vector<std::pair<std::string, std::string>> headers(const Value& object) const {
        std::vector<std::pair<std::string, std::string>> out;
        const Value* v = member(object, "headers");
        if (!v) return out;
        if (!v->IsObject()) invalid("'headers' must be an object of strings");
        for (auto it = v->MemberBegin(); it != v->MemberEnd(); ++it) {
            std::string name(it->name.GetString(), it->name.GetStringLength());
            if (!is_token(name)) invalid("'headers' has an invalid header name '" + name + "'");
            if (is_managed_header(name)) invalid("'headers." + name + "' is managed by the transport");
            if (!it->value.IsString()) invalid("'headers." + name + "' must be a string");
            std::string value(it->value.GetString(), it->value.GetStringLength());
            if (!is_safe_header_value(value)) invalid("'headers." + name + "' contains a line break or NUL");
            out.emplace_back(std::move(name), std::move(value));
        }
        return out;
    }

    std::string ca_file(const Value& object) const {
        std::string path = string_field(object, "caFile", false).value_or("");
        if (!path.empty() && !std::ifstream(path)) invalid("'caFile' cannot be read: " + path);
        return path;
    }

private:
    std::string prefix_;
};

std::string config_type(const Value& object) {
    const Value* v = Parser::member(object, "type");
    if (!v) return "sse";
    std::string_view t = v->IsString() ? std::string_view(v->GetString(), v->GetStringLength()) : std::string_view();
    if (t != "sse" && t != "sse-ide")
        throw Error(MCPH_ERR_INVALID_ARGUMENT, "sse config: 'type' must be \"sse\" or \"sse-ide\"");
    return std::string(t);
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
    rapidjson::Document doc;
    // Bounded (iterative, depth 128) like every JSON from outside: a config may come from a repository.
    if (mcph::json_bounds::ParseOutcome parsed = mcph::json_bounds::parse(doc, json); !parsed)
        throw Error(MCPH_ERR_INVALID_ARGUMENT, "sse config is not valid JSON: " + parsed.message());
    if (!doc.IsObject()) throw Error(MCPH_ERR_INVALID_ARGUMENT, "sse config must be a JSON object");

    SseConfig c;
    c.type = config_type(doc);
    Parser p(c.type);
    c.name = p.string_field(doc, "name", false).value_or("");
    c.url = p.url(doc);
    c.headers = p.headers(doc);
    c.timeout = std::chrono::milliseconds(p.integer_field(doc, "timeoutMs", 1, 86400000, 60000));
    c.connect_timeout = std::chrono::milliseconds(p.integer_field(doc, "connectTimeoutMs", 1, 600000, 10000));
    c.ca_file = p.ca_file(doc);
    c.max_message_bytes = static_cast<size_t>(
        p.integer_field(doc, "maxMessageBytes", 1, std::numeric_limits<size_t>::max() / 4, c.max_message_bytes));
    if (c.type == "sse-ide") {
        c.ide_name = p.string_field(doc, "ideName", false);
        c.ide_running_in_windows = p.bool_field(doc, "ideRunningInWindows");
    }
    return c;
}

}  // namespace mcph::sse
