// Changing the configuration on disk for the user: mcph add / remove (config files, written
// atomically with their mode kept) and mcph approve (the approval store, with tool pins).
#include "config/config_editor.hpp"
#include "governance/server_signature.hpp"
#include "governance/tool_pins.hpp"
#include "host/host_impl.hpp"

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

}  // namespace

void Host::save_server(const std::string& scope, const std::string& name, const JsonValue& config, bool replace) {
    config::add_server_entry(file_for_scope(impl_->locations, scope), name, config, replace);
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
    const bool removed = config::remove_server_entry(file, name);
    if (removed) impl_->load_servers();
    return removed;
}

void Host::approve(const std::string& name) {
    const auto server = impl_->configured(name);
    config::Approval approval;
    approval.project_key = impl_->project_key(server);
    approval.server = name;
    approval.signature = governance::definition_fingerprint(server.config);  // the whole definition, not just its identity
    impl_->approvals.save(approval);  // empty pins: the tools are pinned once they are read
    impl_->load_servers();
    std::shared_ptr<detail::SessionCore> core;
    try {
        core = impl_->connection_of(name)->connect();
    } catch (const Error& e) {
        throw Error(e.kind(), "server '" + name + "' is approved, but its tools could not be read to pin them (they "
                                                  "will be pinned at its first connection): " + e.what());
    }
    approval.tool_pins = governance::pin_tools(core->cached_tools());
    impl_->approvals.save(approval);
    std::lock_guard lock(impl_->mutex);
    impl_->pins[name] = approval.tool_pins;
}

}  // namespace mcph
