#include "config/inherit_env.hpp"

#include "json/json_access.hpp"

#include <string_view>

namespace mcph::config {
namespace {

bool env_name_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }

// Checked here as well as in the plugin: the plugin cannot use the host's code (it sees only its
// config JSON), and the host must refuse a bad value at load, per server, before anything starts.
bool valid_inherit_env_name(std::string_view name) {
    if (name.size() > kMaxInheritEnvNameBytes) return false;
    if (!name.empty() && name.back() == '*') name.remove_suffix(1);
    if (name.empty() || !env_name_start(name.front())) return false;
    for (char c : name)
        if (!env_name_start(c) && !(c >= '0' && c <= '9')) return false;
    return true;
}

}  // namespace

std::optional<std::string> inherit_env_problem(const JsonValue& value) {
    if (value.IsBool()) return std::nullopt;
    if (!value.IsArray()) return "must be true, false or an array of variable names";
    if (value.Size() > kMaxInheritEnvNames)
        return "has " + std::to_string(value.Size()) + " names, more than the " + std::to_string(kMaxInheritEnvNames) + " allowed";
    for (rapidjson::SizeType i = 0; i < value.Size(); ++i) {
        const JsonValue& item = value[i];
        const std::string entry = "entry " + std::to_string(i) + " ";
        if (!item.IsString()) return entry + to_json(item).substr(0, kMaxInheritEnvNameBytes) + " is not a string";
        const std::string_view name = json::view(item);
        if (!valid_inherit_env_name(name))
            return entry + "'" + std::string(name.substr(0, kMaxInheritEnvNameBytes)) +
                   "' is not a variable name (letters, digits and '_', not starting with a digit, at most " +
                   std::to_string(kMaxInheritEnvNameBytes) + " bytes; one trailing '*' for a prefix)";
    }
    return std::nullopt;
}

bool apply_inherit_env_default(ServerConfig& server, const std::string& value_json, const std::string& from) {
    if (server.type != "stdio" || !server.inherit_env_json.empty()) return false;
    Json entry = parse_json(server.config_json, "server config");
    auto& a = entry.GetAllocator();
    entry.AddMember("inheritEnv", JsonValue(parse_json(value_json, "inheritEnv"), a), a);
    server.config_json = to_json(entry);
    server.inherit_env_json = value_json;
    server.inherit_env_from = from;
    return true;
}

}  // namespace mcph::config
