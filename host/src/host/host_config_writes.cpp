// Changing the configuration on disk for the user: mcph add / remove (config files, written
// atomically with their mode kept) and mcph approve (the approval store, with tool pins).
#include "config/config_editor.hpp"
#include "config/env_expansion.hpp"
#include "config/file_trust.hpp"
#include "config/local_migration.hpp"
#include "governance/server_signature.hpp"
#include "governance/tool_pins.hpp"
#include "host/host_impl.hpp"
#include "json/json_access.hpp"

namespace mcph {
namespace {

std::filesystem::path file_for_scope(const config::ConfigLocations& locations, const std::string& scope) {
    if (scope == "user") return locations.user_settings_file();
    if (scope == "local") return locations.local_settings_file();
    if (scope == "project") return locations.project_root / ".mcp.json";
    throw Error(ErrorKind::Usage, "unknown scope '" + scope + "' (use user, project or local)");
}

// The administrator's files and a plugin's own contributions are not the user's to edit.
bool editable(const config::ConfigLocations& locations, const std::filesystem::path& file) {
    if (file == locations.enterprise_file() || file == locations.managed_settings_file()) return false;
    for (const auto& dir : locations.plugin_dirs)
        if (file.parent_path() == dir) return false;
    return true;
}

// A file inside the project may be a committed symlink: writing through it must not reach a file
// outside the project (the user's settings, approvals, any JSON file they can write).
void check_stays_in_project(const config::ConfigLocations& locations, const std::filesystem::path& file) {
    const auto below = file.lexically_relative(locations.project_root);
    if (below.empty() || *below.begin() == "..") return;  // not a project file
    std::error_code ec;
    if (!std::filesystem::exists(std::filesystem::symlink_status(file, ec))) return;
    if (!config::resolves_inside(file, locations.project_root))
        throw Error(ErrorKind::Usage, file.string() + " is a symlink leading out of the project " +
                                          locations.project_root.string() + "; refusing to write through it");
    config::require_trusted(file, {config::Owner::CurrentUser, true});
}

}  // namespace

void Host::save_server(const std::string& scope, const std::string& name, const JsonValue& config, bool replace) {
    const auto file = file_for_scope(impl_->locations, scope);
    check_stays_in_project(impl_->locations, file);
    config::add_server_entry(file, name, config, replace);
    impl_->load_servers();
}

bool Host::remove_saved_server(const std::string& name, const std::string& scope) {
    std::filesystem::path file;
    if (!scope.empty()) {
        file = file_for_scope(impl_->locations, scope);
    } else {
        auto defining = config::file_defining(impl_->locations, name);
        if (!defining) return false;
        file = *defining;
    }
    if (!editable(impl_->locations, file))
        throw Error(ErrorKind::Usage, "server '" + name + "' is defined in " + file.string() +
                                          " (an administrator's or a plugin's file); it cannot be removed here — "
                                          "`mcph disable " + name + "` switches it off for you");
    check_stays_in_project(impl_->locations, file);
    const bool removed = config::remove_server_entry(file, name);
    if (!removed) return false;
    // The approval went with the definition: a later definition of this name is approved afresh.
    try {
        impl_->approvals.remove_defined_in(file.string(), name);
    } catch (const Error& e) {
        impl_->load_servers();
        throw Error(e.kind(), "removed '" + name + "' from " + file.string() + ", but its approval could not be dropped: " + e.what());
    }
    impl_->load_servers();
    return true;
}

void Host::approve(const std::string& name) {
    const auto server = impl_->configured(name);
    config::Approval approval;
    approval.key = impl_->approval_key(server);
    approval.signature = governance::written_fingerprint(server);  // the whole entry as written
    // First an explicit, empty pin set: until the server's lists are read, everything it shows is
    // held back — and stays so if it cannot be reached (nothing is ever pinned later unseen).
    approval.pins.instructions = governance::instructions_pin_hash("");
    impl_->approvals.save(approval);
    impl_->load_servers();
    std::shared_ptr<detail::SessionCore> core;
    try {
        core = impl_->connection_of(name)->connect();
    } catch (const Error& e) {
        throw Error(e.kind(), "server '" + name + "' is approved with nothing pinned, since it could not be reached to "
                                                  "read its tools: everything it lists will be held back until you run "
                                                  "`mcph approve " + name + "` again while it is reachable (" + e.what() + ")");
    }
    approval.pins = Impl::pins_of(*core);
    impl_->approvals.save(approval);
    std::lock_guard lock(impl_->mutex);
    impl_->pins[name] = approval.pins;
    impl_->review_inputs_changed();
}

ServerDefinition Host::definition(const std::string& name) const {
    const auto server = impl_->configured(name);
    ServerDefinition out{name, std::string(config::scope_name(server.scope)), server.origin, {}, {}, {}, {}};
    Json written;
    const bool parsed = static_cast<bool>(json_bounds::parse(written, server.written_json));
    const JsonValue* entry = parsed && written.IsObject() ? json::member(written, "entry") : nullptr;
    if (entry) {
        out.definition_json = to_pretty_json(*entry);
        out.variables = config::variables_read_by(*entry);
    } else {
        out.definition_json = server.config.config_json;  // a source without a written form (none today)
    }
    if (server.config.type == "stdio") {
        const config::ServerConfig& c = server.config;
        out.inherit_env_json = c.inherit_env_json.empty() ? "false" : c.inherit_env_json;
        out.inherit_env_from = !c.inherit_env_from.empty() ? c.inherit_env_from : c.inherit_env_json.empty() ? "default" : "definition";
    }
    return out;
}

std::filesystem::path Host::migrate_local_settings() {
    auto to = config::migrate_legacy_local_settings(impl_->locations);
    impl_->load_servers();
    return to;
}

}  // namespace mcph
