#include "plugins/plugin_registry.hpp"

#include <algorithm>

namespace mcph::plugins {
namespace {

bool looks_like_shared_library(const std::filesystem::path& p) {
    const std::string name = p.filename().string();
    return p.extension() == ".so" || name.find(".so.") != std::string::npos;
}

std::vector<std::filesystem::path> sorted_entries(const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> files;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        std::error_code type_ec;
        if (entry.is_regular_file(type_ec) && looks_like_shared_library(entry.path())) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());  // deterministic precedence within one directory
    return files;
}

}  // namespace

void PluginRegistry::discover(const std::vector<std::filesystem::path>& dirs, const mcph_host_services* services) {
    for (const auto& dir : dirs) {
        std::error_code ec;
        if (!std::filesystem::is_directory(dir, ec)) continue;
        for (const auto& file : sorted_entries(dir)) consider(file, services);
    }
}

void PluginRegistry::consider(const std::filesystem::path& file, const mcph_host_services* services) {
    std::error_code ec;
    auto canonical = std::filesystem::canonical(file, ec);
    if (ec) canonical = file;
    if (std::find(seen_.begin(), seen_.end(), canonical) != seen_.end()) return;
    seen_.push_back(canonical);

    PluginInfo info;
    auto plugin = load_plugin(canonical, services, info);
    if (plugin) {
        for (const auto& type : info.config_types) {
            if (!transports_.emplace(type, plugin).second)
                info.error += (info.error.empty() ? "" : "; ") + std::string("transport type '") + type +
                              "' already served by an earlier plugin";
        }
        if (!info.auth_backend.empty() && !auth_backends_.emplace(info.auth_backend, plugin).second)
            info.error += (info.error.empty() ? "" : "; ") + std::string("auth backend '") + info.auth_backend +
                          "' already served by an earlier plugin";
    }
    infos_.push_back(std::move(info));
}

std::shared_ptr<LoadedPlugin> PluginRegistry::transport_for(const std::string& type) const {
    auto it = transports_.find(type);
    return it == transports_.end() ? nullptr : it->second;
}

std::shared_ptr<LoadedPlugin> PluginRegistry::auth_backend(const std::string& name) const {
    auto it = auth_backends_.find(name);
    return it == auth_backends_.end() ? nullptr : it->second;
}

std::vector<std::string> PluginRegistry::transport_types() const {
    std::vector<std::string> types;
    for (const auto& [type, plugin] : transports_) types.push_back(type);
    return types;
}

void PluginRegistry::clear() {
    transports_.clear();
    auth_backends_.clear();
}

}  // namespace mcph::plugins
