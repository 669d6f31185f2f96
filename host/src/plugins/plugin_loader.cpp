#include "plugins/plugin_loader.hpp"

#include <boost/dll/runtime_symbol_info.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace mcph::plugins {
namespace {

// Reads a descriptor field only if the plugin's struct is large enough to have it.
template <class T>
bool has_field(const mcph_plugin& d, T mcph_plugin::*field) {
    const auto offset = reinterpret_cast<std::size_t>(&(static_cast<const mcph_plugin*>(nullptr)->*field));
    return d.struct_size >= offset + sizeof(T);
}

// What makes two spellings of a directory the same: symlinks resolved as far as the path exists
// (weakly_canonical), else the normalised spelling.
std::filesystem::path directory_identity(const std::filesystem::path& dir) {
    std::error_code ec;
    auto resolved = std::filesystem::weakly_canonical(dir, ec);
    return ec ? dir.lexically_normal() : resolved;
}

// The address library_plugin_dir() asks dladdr about.
void location_anchor() {}

std::string safe_string(const char* s) { return s ? std::string(s) : std::string(); }

bool validate_descriptor(const mcph_plugin* d, PluginInfo& info) {
    if (!d) {
        info.error = "mcph_plugin_entry returned null";
        return false;
    }
    if (d->struct_size < offsetof(mcph_plugin, get_interface) + sizeof(d->get_interface)) {
        info.error = "descriptor too small (struct_size " + std::to_string(d->struct_size) + ")";
        return false;
    }
    info.abi_major = d->abi_major;
    info.abi_minor = d->abi_minor;
    info.name = safe_string(d->name);
    info.version = safe_string(d->version);
    info.description = safe_string(d->description);
    if (d->abi_major != MCPH_ABI_MAJOR) {
        info.error = "plugin ABI " + std::to_string(d->abi_major) + "." + std::to_string(d->abi_minor) +
                     " is incompatible with host ABI " + std::to_string(MCPH_ABI_MAJOR) + "." +
                     std::to_string(MCPH_ABI_MINOR) + " (major versions must match)";
        return false;
    }
    if (!d->get_interface) {
        info.error = "descriptor has no get_interface";
        return false;
    }
    return true;
}

bool run_init(const mcph_plugin* d, const mcph_host_services* services, PluginInfo& info) {
    if (!has_field(*d, &mcph_plugin::init) || !d->init) return true;
    mcph_error err;
    std::memset(&err, 0, sizeof err);
    err.struct_size = sizeof err;
    mcph_status status = d->init(services, &err);
    if (status != MCPH_OK) {
        info.error = std::string("init failed: ") + (err.message[0] ? err.message : "status " + std::to_string(status));
        return false;
    }
    return true;
}

void describe_interfaces(const LoadedPlugin& plugin, PluginInfo& info) {
    if (const auto* t = plugin.transport()) {
        info.interfaces.push_back(MCPH_TRANSPORT_INTERFACE_V1);
        if (t->config_types)
            for (const char* const* type = t->config_types; *type; ++type) info.config_types.emplace_back(*type);
    }
    if (const auto* a = plugin.auth()) {
        info.interfaces.push_back(MCPH_AUTH_INTERFACE_V1);
        info.auth_backend = safe_string(a->backend_name);
    }
}

}  // namespace

LoadedPlugin::LoadedPlugin(MappedLibrary library, const mcph_plugin* descriptor)
    : library_(std::move(library)), descriptor_(descriptor) {}

LoadedPlugin::~LoadedPlugin() {
    if (has_field(*descriptor_, &mcph_plugin::shutdown) && descriptor_->shutdown) descriptor_->shutdown();
}

void LoadedPlugin::bind_interfaces() {
    // A vtable is used only if it covers the 1.0 layout we always call into (up to `destroy`). The
    // fields 1.1 appended (traits, send_ex, cancel) are read only inside its struct_size
    // (TransportChannel::has_v11), so a plugin built against 1.0 loads: requiring the whole
    // current sizeof here would refuse every plugin of an earlier minor version.
    auto* t = static_cast<const mcph_transport_vtable_v1*>(descriptor_->get_interface(MCPH_TRANSPORT_INTERFACE_V1));
    constexpr std::size_t kTransportV10Size = offsetof(mcph_transport_vtable_v1, destroy) + sizeof(t->destroy);
    if (t && t->struct_size >= kTransportV10Size && t->create && t->start && t->send && t->close && t->destroy)
        transport_ = t;
    auto* a = static_cast<const mcph_auth_vtable_v1*>(descriptor_->get_interface(MCPH_AUTH_INTERFACE_V1));
    if (a && a->struct_size >= sizeof(mcph_auth_vtable_v1) && a->create && a->get_headers && a->destroy) auth_ = a;
}

std::filesystem::path library_plugin_dir() {
    // dladdr (through Boost.DLL) on a function with internal linkage in this file: it cannot be
    // interposed, so the answer is the binary this code was linked into. When that is the
    // executable (the library linked statically, as in the unit tests) there is no library
    // location: nothing is added. dladdr may name the main program by a relative path (as it
    // was started); a directory relative to the working directory is never searched.
    std::error_code ec;
    const std::filesystem::path self = boost::dll::symbol_location_ptr(&location_anchor, ec);
    if (ec || !self.is_absolute()) return {};
    std::error_code exe_ec;
    const std::filesystem::path exe = boost::dll::program_location(exe_ec);
    if (!exe_ec && std::filesystem::equivalent(self, exe, exe_ec)) return {};
    return (self.parent_path() / "mcph" / "plugins").lexically_normal();
}

std::filesystem::path installed_plugin_dir() {
#ifdef MCPH_INSTALLED_PLUGIN_DIR
    return std::filesystem::path(MCPH_INSTALLED_PLUGIN_DIR).lexically_normal();
#else
    return {};
#endif
}

std::filesystem::path executable_plugin_dir() {
    std::error_code ec;
    auto exe = boost::dll::program_location(ec);
    if (ec) return {};
    return (exe.parent_path() / ".." / "lib" / "mcph" / "plugins").lexically_normal();
}

std::vector<std::filesystem::path> default_plugin_dirs() {
    std::vector<std::filesystem::path> dirs;
    append_unique_dirs(dirs, {library_plugin_dir(), installed_plugin_dir(), executable_plugin_dir()});
    return dirs;
}

void append_unique_dirs(std::vector<std::filesystem::path>& dirs, const std::vector<std::filesystem::path>& candidates) {
    // Each directory is resolved once (weakly_canonical costs a readlink per path component, and
    // comparing every candidate with every kept directory resolved them again each time).
    std::vector<std::filesystem::path> kept;
    kept.reserve(dirs.size() + candidates.size());
    for (const auto& d : dirs) kept.push_back(directory_identity(d));
    for (const auto& dir : candidates) {
        if (dir.empty()) continue;
        auto key = directory_identity(dir);
        if (std::find(kept.begin(), kept.end(), key) != kept.end()) continue;
        kept.push_back(std::move(key));
        dirs.push_back(dir);
    }
}

std::vector<std::filesystem::path> plugin_search_path(const HostOptions& options) {
    std::vector<std::filesystem::path> dirs;
    if (options.use_env_plugin_path) {
        if (const char* env = std::getenv("MCPH_PLUGIN_PATH")) {
            std::stringstream ss(env);
            std::string entry;
            std::vector<std::filesystem::path> from_env;
            while (std::getline(ss, entry, ':'))
                if (!entry.empty()) from_env.emplace_back(entry);
            append_unique_dirs(dirs, from_env);
        }
    }
    append_unique_dirs(dirs, options.plugin_dirs);
    if (options.use_default_plugin_dir) append_unique_dirs(dirs, default_plugin_dirs());
    return dirs;
}

std::shared_ptr<LoadedPlugin> load_plugin(const std::filesystem::path& file, const mcph_host_services* services,
                                          PluginInfo& info) {
    info.path = file;
    // Mapped once per process (library_cache.hpp); init and shutdown still run per host.
    MappedLibrary library = map_plugin_library(file, info.error);
    if (!library) return nullptr;
    if (!library->library.has(MCPH_ENTRY_SYMBOL)) {
        info.error = "not an mcph plugin (no mcph_plugin_entry symbol)";
        return nullptr;
    }
    const mcph_plugin* descriptor = nullptr;
    try {
        descriptor = library->library.get<const mcph_plugin*()>(MCPH_ENTRY_SYMBOL)();
    } catch (const std::exception& e) {
        info.error = std::string("entry point failed: ") + e.what();
        return nullptr;
    }
    if (!validate_descriptor(descriptor, info) || !run_init(descriptor, services, info)) return nullptr;
    auto plugin = std::make_shared<LoadedPlugin>(std::move(library), descriptor);
    plugin->bind_interfaces();
    describe_interfaces(*plugin, info);
    if (info.interfaces.empty()) {
        info.error = "plugin offers no interface this host understands (mcph.transport/1, mcph.auth/1)";
        return nullptr;
    }
    info.loaded = true;
    return plugin;
}

}  // namespace mcph::plugins
