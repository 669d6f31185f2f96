#include "session/connect_budget.hpp"

#include "json/json_access.hpp"

#include <mcph/error.hpp>
#include <mcph/json.hpp>

#include <algorithm>
#include <cstdint>

namespace mcph::session {
namespace {

constexpr std::int64_t kPluginMaxConnectMs = 600000;  // the plugins refuse more

}  // namespace

std::string with_connect_timeout(const std::string& config_json, std::chrono::milliseconds connect_timeout) {
    Json config = parse_json(config_json, "server config");
    if (!config.IsObject()) throw Error(ErrorKind::Usage, "server config must be a JSON object");
    std::int64_t ms = std::clamp<std::int64_t>(connect_timeout.count(), 1, kPluginMaxConnectMs);
    if (const JsonValue* set = json::member(config, "connectTimeoutMs"); set && set->IsInt64() && set->GetInt64() >= 1)
        ms = std::min(ms, set->GetInt64());
    config.RemoveMember("connectTimeoutMs");
    config.AddMember("connectTimeoutMs", JsonValue(static_cast<int64_t>(ms)), config.GetAllocator());
    return to_json(config);
}

}  // namespace mcph::session
