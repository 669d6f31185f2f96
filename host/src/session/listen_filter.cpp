#include "session/listen_filter.hpp"

#include "json/json_access.hpp"
#include "session/request_meta.hpp"

#include <algorithm>

namespace mcph::session {
namespace {

bool flag(const JsonValue& object, const char* key) {
    const JsonValue* v = json::member(object, key);
    return v && v->IsBool() && v->GetBool();
}

bool list_changed(const JsonValue& caps, const char* feature) {
    const JsonValue* f = json::object_member(caps, feature);
    return f && flag(*f, "listChanged");
}

}  // namespace

Json ListenFilter::to_json() const {
    Json out(rapidjson::kObjectType);
    auto& a = out.GetAllocator();
    if (tools_list_changed) out.AddMember("toolsListChanged", true, a);
    if (prompts_list_changed) out.AddMember("promptsListChanged", true, a);
    if (resources_list_changed) out.AddMember("resourcesListChanged", true, a);
    if (!resource_subscriptions.empty()) {
        JsonValue uris(rapidjson::kArrayType);
        for (const auto& uri : resource_subscriptions) uris.PushBack(json::string_value(uri, a), a);
        out.AddMember("resourceSubscriptions", uris, a);
    }
    return out;
}

ListenFilter ListenFilter::from_json(const JsonValue& value) {
    ListenFilter f;
    if (!value.IsObject()) return f;
    f.tools_list_changed = flag(value, "toolsListChanged");
    f.prompts_list_changed = flag(value, "promptsListChanged");
    f.resources_list_changed = flag(value, "resourcesListChanged");
    if (const JsonValue* uris = json::array_member(value, "resourceSubscriptions"))
        for (const JsonValue& uri : uris->GetArray())
            if (uri.IsString()) f.resource_subscriptions.emplace(uri.GetString(), uri.GetStringLength());
    return f;
}

ListenFilter wanted_filter(const JsonValue& caps, const std::set<std::string>& resource_uris) {
    ListenFilter f;
    f.tools_list_changed = list_changed(caps, "tools");
    f.prompts_list_changed = list_changed(caps, "prompts");
    f.resources_list_changed = list_changed(caps, "resources");
    const JsonValue* resources = json::object_member(caps, "resources");
    if (resources && flag(*resources, "subscribe")) f.resource_subscriptions = resource_uris;
    return f;
}

std::vector<std::string> not_granted(const ListenFilter& asked, const ListenFilter& acknowledged) {
    std::vector<std::string> out;
    if (asked.tools_list_changed && !acknowledged.tools_list_changed) out.emplace_back("toolsListChanged");
    if (asked.prompts_list_changed && !acknowledged.prompts_list_changed) out.emplace_back("promptsListChanged");
    if (asked.resources_list_changed && !acknowledged.resources_list_changed) out.emplace_back("resourcesListChanged");
    for (const auto& uri : asked.resource_subscriptions)
        if (!acknowledged.resource_subscriptions.count(uri)) out.push_back("resourceSubscriptions " + uri);
    return out;
}

bool is_subscription_notification(const std::string& method) {
    return method == "notifications/tools/list_changed" || method == "notifications/prompts/list_changed" ||
           method == "notifications/resources/list_changed" || method == "notifications/resources/updated" ||
           method == "notifications/subscriptions/acknowledged";
}

bool names_subscription(const JsonValue& params, std::int64_t listen_id) {
    const JsonValue* meta = json::object_member(params, "_meta");
    const JsonValue* id = meta ? json::member(*meta, kMetaSubscriptionId) : nullptr;
    if (!id) return false;
    if (id->IsInt64()) return id->GetInt64() == listen_id;
    if (id->IsString()) return std::string(id->GetString(), id->GetStringLength()) == std::to_string(listen_id);
    return false;
}

std::chrono::milliseconds relisten_delay(int failures) {
    const int doublings = std::clamp(failures - 1, 0, 6);
    return std::min(std::chrono::milliseconds(1000L << doublings), std::chrono::milliseconds(60000));
}

}  // namespace mcph::session
