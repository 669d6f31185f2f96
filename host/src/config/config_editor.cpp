#include "config/config_editor.hpp"

#include "config/atomic_write.hpp"
#include "config/jsonc.hpp"
#include "config/server_config.hpp"
#include "json/json_access.hpp"

#include <mcph/error.hpp>

#include <algorithm>

namespace mcph::config {
namespace {

[[noreturn]] void refuse(const fs::path& file, const std::string& why) {
    throw Error(ErrorKind::Usage, file.string() + ": " + why + "; the file was left unchanged");
}

// The document to edit: an empty object when the file does not exist.
Json read_for_edit(const fs::path& file) {
    const std::optional<std::string> text = read_file_if_exists(file);
    Json doc(rapidjson::kObjectType);
    if (!text) return doc;
    // Strict on purpose: rewriting a JSONC file would drop its comments, so a commented file is
    // refused here (the loader still reads it) rather than silently stripped.
    try {
        doc = parse_json(*text, "JSON");
    } catch (const Error& e) {
        refuse(file, std::string(e.what()) + " (comments and trailing commas are read, but mcph does not rewrite a file "
                                             "that has them; edit it by hand)");
    }
    if (!doc.IsObject()) refuse(file, "the file must hold a JSON object (fix it by hand first)");
    return doc;
}

void write_pretty(const fs::path& file, const Json& doc, mode_t mode_for_new_file) {
    write_file_atomically(file, to_pretty_json(doc) + "\n", mode_for_new_file);
}

// "mcpServers", or "servers" for a file already in VS Code's shape.
const char* servers_key(const Json& doc) {
    return !doc.HasMember("mcpServers") && doc.HasMember("servers") ? "servers" : "mcpServers";
}

// The servers object, created when `create` and absent; nullptr when absent and not created.
JsonValue* servers_object(Json& doc, const fs::path& file, bool create) {
    const char* key = servers_key(doc);
    auto it = doc.FindMember(key);
    if (it == doc.MemberEnd()) {
        if (!create) return nullptr;
        doc.AddMember(JsonValue(key, doc.GetAllocator()), JsonValue(rapidjson::kObjectType), doc.GetAllocator());
        return &doc[key];
    }
    if (!it->value.IsObject()) refuse(file, std::string(key) + " is not an object");
    return &it->value;
}

// A list of server names ("disabledMcpServers"...), created when absent.
JsonValue& name_list(Json& doc, const fs::path& file, const char* key) {
    auto it = doc.FindMember(key);
    if (it == doc.MemberEnd()) {
        doc.AddMember(JsonValue(key, doc.GetAllocator()), JsonValue(rapidjson::kArrayType), doc.GetAllocator());
        return doc[key];
    }
    if (!it->value.IsArray()) refuse(file, std::string(key) + " is not an array of server names");
    for (const JsonValue& item : it->value.GetArray())
        if (!item.IsString()) refuse(file, std::string(key) + " holds something other than server names");
    return it->value;
}

bool list_has(const JsonValue& list, const std::string& name) {
    for (const JsonValue& item : list.GetArray())
        if (json::view(item) == name) return true;
    return false;
}

bool list_remove(JsonValue& list, const std::string& name) {
    bool changed = false;
    for (auto it = list.Begin(); it != list.End();) {
        if (json::view(*it) == name) {
            it = list.Erase(it);
            changed = true;
        } else {
            ++it;
        }
    }
    return changed;
}

// True when the file's servers hold a definition of `name`; false for unreadable files too.
bool defines(const fs::path& file, const std::string& name) {
    try {
        const std::optional<std::string> text = read_file_if_exists(file);
        if (!text) return false;
        Json doc = parse_config_json(*text, file.string());
        for (const char* key : {"mcpServers", "servers"})
            if (const JsonValue* servers = json::object_member(doc, key); servers && servers->HasMember(name.c_str()))
                return true;
    } catch (const Error&) {
    }
    return false;
}

}  // namespace

void add_server_entry(const fs::path& file, const std::string& name, const JsonValue& entry, bool replace,
                      mode_t mode_for_new_file) {
    // Validated as written (${VAR} unexpanded): the file keeps the reference, never the secret.
    parse_server_config(name, entry);
    Json doc = read_for_edit(file);
    JsonValue* servers = servers_object(doc, file, true);
    auto& a = doc.GetAllocator();
    auto it = servers->FindMember(name.c_str());
    if (it != servers->MemberEnd()) {
        if (!replace)
            throw Error(ErrorKind::Usage, "server '" + name + "' already exists in " + file.string() +
                                              "; remove it first or ask to replace it");
        it->value.CopyFrom(entry, a);  // in place: the file's order stays as the user wrote it
    } else {
        servers->AddMember(json::string_value(name, a), JsonValue(entry, a), a);
    }
    write_pretty(file, doc, mode_for_new_file);
}

bool remove_server_entry(const fs::path& file, const std::string& name) {
    Json doc = read_for_edit(file);
    JsonValue* servers = servers_object(doc, file, false);
    if (!servers) return false;
    auto it = servers->FindMember(name.c_str());
    if (it == servers->MemberEnd()) return false;
    servers->EraseMember(it);  // EraseMember keeps the order (RemoveMember would move the last one here)
    write_pretty(file, doc, 0600);
    return true;
}

void set_server_disabled(const fs::path& settings_file, const std::string& name, bool disabled) {
    if (name.empty()) throw Error(ErrorKind::Usage, "a server name must not be empty");
    Json doc = read_for_edit(settings_file);
    JsonValue& add_to = name_list(doc, settings_file, disabled ? "disabledMcpServers" : "enabledMcpServers");
    bool changed = false;
    if (!list_has(add_to, name)) {
        add_to.PushBack(json::string_value(name, doc.GetAllocator()), doc.GetAllocator());
        changed = true;
    }
    const char* other = disabled ? "enabledMcpServers" : "disabledMcpServers";
    if (doc.HasMember(other)) changed = list_remove(name_list(doc, settings_file, other), name) || changed;
    if (changed) write_pretty(settings_file, doc, 0600);
}

std::optional<fs::path> file_defining(const ConfigLocations& locations, const std::string& name) {
    std::vector<fs::path> candidates{locations.enterprise_file(), locations.managed_settings_file(),
                                     locations.local_settings_file(), locations.legacy_local_settings_file()};
    const std::vector<fs::path> project = locations.project_files();
    candidates.insert(candidates.end(), project.rbegin(), project.rend());  // closest first
    candidates.push_back(locations.user_settings_file());
    // Later folders, and later files in a folder, win in the loader: search them first.
    for (auto dir = locations.plugin_dirs.rbegin(); dir != locations.plugin_dirs.rend(); ++dir) {
        std::vector<fs::path> files;
        std::error_code ec;
        for (fs::directory_iterator it(*dir, ec), end; !ec && it != end; it.increment(ec))
            if (it->path().filename().string().ends_with(".mcp.json")) files.push_back(it->path());
        std::sort(files.rbegin(), files.rend());
        candidates.insert(candidates.end(), files.begin(), files.end());
    }
    for (const fs::path& file : candidates)
        if (defines(file, name)) return file;
    return std::nullopt;
}

}  // namespace mcph::config
