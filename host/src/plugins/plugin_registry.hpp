// Every plugin the host discovered: the loaded ones indexed by transport type and auth backend,
// the refused ones with their reasons (shown by `mcph plugins`).
#pragma once

#include "plugins/plugin_loader.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mcph::plugins {

class PluginRegistry {
public:
    // Scans `dirs` in order for shared libraries (*.so) and loads each once (by canonical path).
    // The first plugin to claim a transport type or auth backend serves it; later claims are noted.
    void discover(const std::vector<std::filesystem::path>& dirs, const mcph_host_services* services);

    const std::vector<PluginInfo>& infos() const { return infos_; }
    // The plugin serving a transport type, or null.
    std::shared_ptr<LoadedPlugin> transport_for(const std::string& type) const;
    std::shared_ptr<LoadedPlugin> auth_backend(const std::string& name) const;
    std::vector<std::string> transport_types() const;

    // Drops every plugin reference held here (objects created from them keep their own).
    void clear();

private:
    void consider(const std::filesystem::path& file, const mcph_host_services* services);

    std::vector<PluginInfo> infos_;
    std::vector<std::filesystem::path> seen_;
    std::map<std::string, std::shared_ptr<LoadedPlugin>> transports_;
    std::map<std::string, std::shared_ptr<LoadedPlugin>> auth_backends_;
};

}  // namespace mcph::plugins
