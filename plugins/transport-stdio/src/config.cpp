#include "config.hpp"

#include <mcph/bounded_json.hpp>
#include <mcph/plugin_helper.hpp>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <cstdint>
#include <limits>

namespace mcph::stdio {
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
        if (required) invalid(std::string("stdio config: '") + key + "' is required");
        return {};
    }
    if (!v->IsString()) invalid(std::string("stdio config: '") + key + "' must be a string");
    return std::string(v->GetString(), v->GetStringLength());
}

std::vector<std::string> parse_args(const Value& object) {
    std::vector<std::string> out;
    const Value* v = member(object, "args");
    if (!v) return out;
    if (!v->IsArray()) invalid("stdio config: 'args' must be an array of strings");
    for (rapidjson::SizeType i = 0; i < v->Size(); ++i) {
        const Value& a = (*v)[i];
        if (!a.IsString()) invalid("stdio config: 'args[" + std::to_string(i) + "]' must be a string");
        out.emplace_back(a.GetString(), a.GetStringLength());
    }
    return out;
}

std::map<std::string, std::string> parse_env(const Value& object) {
    std::map<std::string, std::string> out;
    const Value* v = member(object, "env");
    if (!v) return out;
    if (!v->IsObject()) invalid("stdio config: 'env' must be an object of strings");
    for (auto it = v->MemberBegin(); it != v->MemberEnd(); ++it) {
        std::string key(it->name.GetString(), it->name.GetStringLength());
        if (key.empty() || key.find('=') != std::string::npos || key.find('\0') != std::string::npos)
            invalid("stdio config: 'env' has an invalid variable name '" + key + "'");
        if (!it->value.IsString()) invalid("stdio config: 'env." + key + "' must be a string");
        out[key] = std::string(it->value.GetString(), it->value.GetStringLength());
    }
    return out;
}

uint64_t integer_field(const Value& object, const char* key, uint64_t min, uint64_t max, uint64_t fallback) {
    const Value* v = member(object, key);
    if (!v) return fallback;
    if (!v->IsUint64() || v->GetUint64() < min || v->GetUint64() > max)
        invalid(std::string("stdio config: '") + key + "' must be an integer between " + std::to_string(min) +
                " and " + std::to_string(max));
    return v->GetUint64();
}

void check_type(const Value& object) {
    const Value* v = member(object, "type");
    if (v && !(v->IsString() && std::string_view(v->GetString(), v->GetStringLength()) == "stdio"))
        invalid("stdio config: 'type' must be \"stdio\"");
}

}  // namespace

StdioConfig parse_config(std::string_view json) {
    rapidjson::Document doc;
    if (const auto outcome = json_bounds::parse(doc, json); !outcome)
        invalid("stdio config is not valid JSON: " + outcome.message());
    if (!doc.IsObject()) invalid("stdio config must be a JSON object");

    StdioConfig c;
    check_type(doc);
    c.name = string_field(doc, "name", false);
    c.command = string_field(doc, "command", true);
    if (c.command.empty()) invalid("stdio config: 'command' must not be empty");
    if (c.command.find('\0') != std::string::npos) invalid("stdio config: 'command' contains a NUL byte");
    c.args = parse_args(doc);
    c.env = parse_env(doc);
    c.cwd = string_field(doc, "cwd", false);
    c.max_message_bytes = static_cast<size_t>(
        integer_field(doc, "maxMessageBytes", 1, std::numeric_limits<size_t>::max() / 2, c.max_message_bytes));
    c.shutdown_grace = std::chrono::milliseconds(
        integer_field(doc, "shutdownGraceMs", 0, 600000, static_cast<uint64_t>(c.shutdown_grace.count())));
    c.stderr_cap_bytes = static_cast<size_t>(integer_field(doc, "stderrCapBytes", 4096, uint64_t{1} << 30, c.stderr_cap_bytes));
    c.write_stall_timeout = std::chrono::milliseconds(
        integer_field(doc, "writeStallTimeoutMs", 1, 3600000, static_cast<uint64_t>(c.write_stall_timeout.count())));
    return c;
}

}  // namespace mcph::stdio
