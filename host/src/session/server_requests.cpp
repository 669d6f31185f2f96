#include "session/server_requests.hpp"

#include "json/json_access.hpp"

namespace mcph {

void apply_schema_defaults(const JsonValue& schema, Json& content) {
    if (!content.IsObject()) content.SetObject();
    const JsonValue* properties = json::object_member(schema, "properties");
    if (!properties) return;
    auto& alloc = content.GetAllocator();
    for (const auto& property : properties->GetObject()) {
        if (content.HasMember(property.name)) continue;
        const JsonValue* def = json::member(property.value, "default");
        if (!def) continue;
        content.AddMember(JsonValue(property.name, alloc), JsonValue(*def, alloc), alloc);
    }
}

Root file_root(const std::filesystem::path& directory) {
    std::filesystem::path name = directory.filename();
    if (name.empty()) name = directory.parent_path().filename();  // "/srv/a/": named "a"
    return Root{detail::file_uri(directory), name.string()};
}

}  // namespace mcph

namespace mcph::detail {

std::string file_uri(const std::filesystem::path& absolute_path) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out = "file://";
    for (unsigned char c : absolute_path.generic_string()) {
        const bool unreserved = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                                c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
        if (unreserved) {
            out.push_back(static_cast<char>(c));
        } else {
            out.push_back('%');
            out.push_back(kHex[c >> 4]);
            out.push_back(kHex[c & 0xF]);
        }
    }
    return out;
}

std::vector<Root> default_roots() {
    std::error_code ec;
    auto cwd = std::filesystem::current_path(ec);
    if (ec) return {};
    return {file_root(cwd)};
}

Json roots_result(const std::vector<Root>& roots) {
    Json result(rapidjson::kObjectType);
    auto& alloc = result.GetAllocator();
    JsonValue list(rapidjson::kArrayType);
    for (const Root& root : roots) {
        JsonValue entry(rapidjson::kObjectType);
        entry.AddMember("uri", json::string_value(root.uri, alloc), alloc);
        if (!root.name.empty()) entry.AddMember("name", json::string_value(root.name, alloc), alloc);
        list.PushBack(entry, alloc);
    }
    result.AddMember("roots", list, alloc);
    return result;
}

Json elicitation_result(const ElicitationRequest& request, ElicitationResponse response) {
    Json result(rapidjson::kObjectType);
    auto& alloc = result.GetAllocator();
    std::string action = response.action;
    if (action != "accept" && action != "decline" && action != "cancel") action = "decline";
    result.AddMember("action", json::string_value(action, alloc), alloc);
    // URL mode: the user's answer happened out of band, so nothing travels back — the 2025-11-25
    // ElicitResult has content "only present when action is accept and mode was form" — and
    // whatever the embedder's callback put in `content` is not sent to the server.
    if (action == "accept" && request.mode != "url") {
        apply_schema_defaults(request.requested_schema, response.content);
        result.AddMember("content", JsonValue(response.content, alloc), alloc);
    }
    return result;
}

}  // namespace mcph::detail
