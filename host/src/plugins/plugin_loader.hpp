// Finds and loads plugin files with Boost.DLL. A file that is not a plugin, lacks the entry
// symbol, has another ABI major, or whose init fails is skipped with a reason — never a crash.
#pragma once

#include <mcph/host.hpp>
#include <mcph/plugin_api.h>

#include "plugins/library_cache.hpp"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace mcph::plugins {

// One plugin loaded (init run) for one host. Its library is mapped process-wide (library_cache.hpp)
// and stays mapped at least as long as this object lives; every transport or auth object it
// created holds a shared_ptr to it, so shutdown runs only after the last of them is gone.
class LoadedPlugin {
public:
    LoadedPlugin(MappedLibrary library, const mcph_plugin* descriptor);
    ~LoadedPlugin();
    LoadedPlugin(const LoadedPlugin&) = delete;
    LoadedPlugin& operator=(const LoadedPlugin&) = delete;

    const mcph_plugin& descriptor() const { return *descriptor_; }
    const mcph_transport_vtable_v1* transport() const { return transport_; }
    const mcph_auth_vtable_v1* auth() const { return auth_; }
    void bind_interfaces();
    // Shared by every Host of the process (library_cache.hpp).
    const PluginLibrary& library() const { return *library_; }

private:
    MappedLibrary library_;
    const mcph_plugin* descriptor_;
    const mcph_transport_vtable_v1* transport_ = nullptr;
    const mcph_auth_vtable_v1* auth_ = nullptr;
};

// The directories searched, in order, each once (the first spelling of a directory wins; two
// spellings of one directory, e.g. through the /lib -> /usr/lib symlink, count as one):
// $MCPH_PLUGIN_PATH entries, the configured ones, then default_plugin_dirs().
std::vector<std::filesystem::path> plugin_search_path(const HostOptions& options);

// The default directories, in order (empty ones left out):
//  1. library_plugin_dir(): relocatable, found from libmcph's own location, so an embedder in any
//     prefix and an extracted package find the plugins installed beside the library;
//  2. installed_plugin_dir(): the compiled-in install default;
//  3. executable_plugin_dir(): next to the running binary, the build tree's layout.
std::vector<std::filesystem::path> default_plugin_dirs();

// <directory of the binary holding this code (libmcph.so)>/mcph/plugins: the installed layout,
// <libdir>/libmcph.so.N beside <libdir>/mcph/plugins. Empty if the location is unknown.
std::filesystem::path library_plugin_dir();

// ${CMAKE_INSTALL_FULL_LIBDIR}/mcph/plugins of the build (MCPH_INSTALLED_PLUGIN_DIR); empty when
// the build did not define one.
std::filesystem::path installed_plugin_dir();

// <directory of the running executable>/../lib/mcph/plugins. Empty if the location is unknown.
std::filesystem::path executable_plugin_dir();

// Appends each of `candidates` to `dirs` unless it is empty or names a directory already there.
void append_unique_dirs(std::vector<std::filesystem::path>& dirs, const std::vector<std::filesystem::path>& candidates);

// Loads one file. On failure returns null and fills info.error.
std::shared_ptr<LoadedPlugin> load_plugin(const std::filesystem::path& file, const mcph_host_services* services,
                                          PluginInfo& info);

}  // namespace mcph::plugins
