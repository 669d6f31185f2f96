// Finds and loads plugin files with Boost.DLL. A file that is not a plugin, lacks the entry
// symbol, has another ABI major, or whose init fails is skipped with a reason — never a crash.
#pragma once

#include <mcph/host.hpp>
#include <mcph/plugin_api.h>

#include <boost/dll/shared_library.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace mcph::plugins {

// One loaded plugin. The shared library stays mapped as long as this object lives, so every
// transport or auth object it created must hold a shared_ptr to it (unloading unmaps the code).
class LoadedPlugin {
public:
    LoadedPlugin(boost::dll::shared_library library, const mcph_plugin* descriptor);
    ~LoadedPlugin();
    LoadedPlugin(const LoadedPlugin&) = delete;
    LoadedPlugin& operator=(const LoadedPlugin&) = delete;

    const mcph_plugin& descriptor() const { return *descriptor_; }
    const mcph_transport_vtable_v1* transport() const { return transport_; }
    const mcph_auth_vtable_v1* auth() const { return auth_; }
    void bind_interfaces();

private:
    boost::dll::shared_library library_;
    const mcph_plugin* descriptor_;
    const mcph_transport_vtable_v1* transport_ = nullptr;
    const mcph_auth_vtable_v1* auth_ = nullptr;
};

// The directories searched, in order: $MCPH_PLUGIN_PATH entries, the configured ones, then the
// default next to the running binary.
std::vector<std::filesystem::path> plugin_search_path(const HostOptions& options);

// The default plugin directory: <dir of the running executable>/../lib/mcph/plugins.
std::filesystem::path default_plugin_dir();

// Loads one file. On failure returns null and fills info.error.
std::shared_ptr<LoadedPlugin> load_plugin(const std::filesystem::path& file, const mcph_host_services* services,
                                          PluginInfo& info);

}  // namespace mcph::plugins
