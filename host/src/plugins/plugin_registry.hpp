// Every plugin the host discovered: indexed by transport type and auth backend, with the refused
// ones and their reasons (shown by `mcph plugins`).
//
// A plugin whose file carries a manifest (plugin_manifest.hpp) is indexed from it and loaded the
// first time a server needs one of its types; one without is loaded at discovery. Either way the
// first plugin (in search order) to claim a transport type or auth backend serves it.
#pragma once

#include "plugins/plugin_loader.hpp"
#include "plugins/plugin_manifest.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace mcph::plugins {

class PluginRegistry {
public:
    // Scans `dirs` in order for shared libraries (*.so), each once (by canonical path).
    void discover(const std::vector<std::filesystem::path>& dirs, const mcph_host_services* services);

    // Every plugin found, each loaded first if it was not yet (so each shows loaded, or refused
    // with the reason). The reference stays valid and unchanged until the registry is destroyed.
    const std::vector<PluginInfo>& infos();
    // Every plugin found as it is now, loading none. For views that list plugins without needing
    // them (`mcph status`): a one-stdio-server host then never maps the HTTP plugin, libcurl or
    // OpenSSL's TLS just to name them.
    struct Listed {
        PluginInfo info;              // of a plugin not loaded yet: what its manifest claims
        bool not_loaded_yet = false;  // indexed from its manifest; loads when a server needs it
    };
    std::vector<Listed> listing() const;
    // The plugin serving a transport type, loading it now if needed; null if none does (or it
    // failed to load: infos() says why).
    std::shared_ptr<LoadedPlugin> transport_for(const std::string& type);
    std::shared_ptr<LoadedPlugin> auth_backend(const std::string& name);
    // Why the plugin claiming `type` serves nothing (it failed to load, or its manifest lied);
    // empty when it serves it or nobody claims it.
    std::string refusal_for(const std::string& type) const;
    // The types claimed, loaded or not.
    std::vector<std::string> transport_types() const;
    // How many plugins are mapped now (for tests of lazy loading).
    std::size_t loaded_count() const;

    // Drops every plugin reference held here (objects created from them keep their own); nothing
    // is loaded after this.
    void clear();

private:
    struct Entry {
        PluginInfo info;                          // from the manifest until loaded
        std::optional<PluginManifest> manifest;   // set: not loaded at discovery
        std::shared_ptr<LoadedPlugin> plugin;
        bool attempted = false;                   // load_plugin ran (loaded or refused)
    };

    void consider(const std::filesystem::path& canonical);  // a file sorted_entries listed
    void claim(std::size_t index);
    std::shared_ptr<LoadedPlugin> ensure_loaded(std::size_t index);  // mutex_ held
    void note_claims(std::size_t index);                               // mutex_ held

    mutable std::mutex mutex_;
    const mcph_host_services* services_ = nullptr;
    std::vector<Entry> entries_;
    std::vector<std::filesystem::path> seen_;
    std::map<std::string, std::size_t> transports_;     // type -> entry index
    std::map<std::string, std::size_t> auth_backends_;  // backend -> entry index
    std::vector<PluginInfo> infos_;                     // filled once, by infos()
    bool infos_ready_ = false;
    bool cleared_ = false;
};

}  // namespace mcph::plugins
