#include "plugins/plugin_registry.hpp"

#include <algorithm>

namespace mcph::plugins {
namespace {

bool looks_like_shared_library(const std::filesystem::path& p) {
    const std::string name = p.filename().string();
    return p.extension() == ".so" || name.find(".so.") != std::string::npos;
}

// The plugin files of `dir` in file-name order, each by its canonical path. The directory is
// resolved once; a file on its own only when it is a symlink (canonical() costs a readlink per path
// component, and this ran for every file).
std::vector<std::filesystem::path> sorted_entries(const std::filesystem::path& dir) {
    std::vector<std::pair<std::filesystem::path, std::filesystem::path>> found;  // name, canonical
    std::error_code ec;
    auto resolved_dir = std::filesystem::canonical(dir, ec);
    if (ec) resolved_dir.clear();
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        std::error_code type_ec, link_ec, canonical_ec;
        if (!entry.is_regular_file(type_ec) || !looks_like_shared_library(entry.path())) continue;
        const auto name = entry.path().filename();
        if (!resolved_dir.empty() && !entry.is_symlink(link_ec) && !link_ec) {
            found.emplace_back(name, resolved_dir / name);
            continue;
        }
        auto canonical = std::filesystem::canonical(entry.path(), canonical_ec);
        found.emplace_back(name, canonical_ec ? entry.path() : canonical);
    }
    std::sort(found.begin(), found.end());  // deterministic precedence within one directory
    std::vector<std::filesystem::path> files;
    files.reserve(found.size());
    for (auto& f : found) files.push_back(std::move(f.second));
    return files;
}

void append_note(std::string& error, const std::string& note) { error += (error.empty() ? "" : "; ") + note; }

std::string names_or_nothing(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out.empty() ? "nothing" : out;
}

// What a loaded plugin serves must be what its manifest said: the index was built from the manifest.
std::string manifest_mismatch(const PluginManifest& m, const PluginInfo& real) {
    auto types = m.transport_types, served = real.config_types;
    std::sort(types.begin(), types.end());
    std::sort(served.begin(), served.end());
    if (types == served && m.auth_backend == real.auth_backend) return {};
    return "its manifest (" MCPH_MANIFEST_SECTION ") claims transport types " + names_or_nothing(m.transport_types) +
           " and auth backend " + (m.auth_backend.empty() ? "none" : "'" + m.auth_backend + "'") +
           ", but the plugin serves " + names_or_nothing(real.config_types) + " and " +
           (real.auth_backend.empty() ? "no auth backend" : "auth backend '" + real.auth_backend + "'") +
           ": refused";
}

}  // namespace

void PluginRegistry::discover(const std::vector<std::filesystem::path>& dirs, const mcph_host_services* services) {
    std::lock_guard lock(mutex_);
    services_ = services;
    for (const auto& dir : dirs) {
        std::error_code ec;
        if (!std::filesystem::is_directory(dir, ec)) continue;
        for (const auto& file : sorted_entries(dir)) consider(file);
    }
}

void PluginRegistry::consider(const std::filesystem::path& canonical) {  // sorted_entries resolved it
    if (std::find(seen_.begin(), seen_.end(), canonical) != seen_.end()) return;
    seen_.push_back(canonical);

    Entry entry;
    entry.info.path = canonical;
    std::string why;
    entry.manifest = read_plugin_manifest(canonical, why);
    if (entry.manifest) {
        entry.info.config_types = entry.manifest->transport_types;
        entry.info.auth_backend = entry.manifest->auth_backend;
    }
    entries_.push_back(std::move(entry));
    const std::size_t index = entries_.size() - 1;
    // Without a (usable) manifest, the plugin itself says what it serves: load it now.
    if (!entries_[index].manifest) {
        ensure_loaded(index);
        if (!why.empty() && entries_[index].info.loaded)
            append_note(entries_[index].info.error, "loaded at start: " + why);
    }
    claim(index);
}

void PluginRegistry::claim(std::size_t index) {
    Entry& e = entries_[index];
    if (e.attempted && !e.plugin) return;  // refused: claims nothing
    for (const auto& type : e.info.config_types)
        if (!transports_.emplace(type, index).second)
            append_note(e.info.error, "transport type '" + type + "' already served by an earlier plugin");
    if (!e.info.auth_backend.empty() && !auth_backends_.emplace(e.info.auth_backend, index).second)
        append_note(e.info.error, "auth backend '" + e.info.auth_backend + "' already served by an earlier plugin");
}

std::shared_ptr<LoadedPlugin> PluginRegistry::ensure_loaded(std::size_t index) {
    Entry& e = entries_[index];
    if (e.attempted || cleared_) return e.plugin;
    e.attempted = true;
    PluginInfo real;
    e.plugin = load_plugin(e.info.path, services_, real);
    if (e.plugin && e.manifest) {
        if (std::string mismatch = manifest_mismatch(*e.manifest, real); !mismatch.empty()) {
            e.plugin.reset();
            real.loaded = false;
            append_note(real.error, mismatch);
        }
    }
    e.info = std::move(real);
    if (e.manifest) note_claims(index);
    return e.plugin;
}

// A plugin loaded late keeps the notes its manifest's claims earned at discovery.
void PluginRegistry::note_claims(std::size_t index) {
    Entry& e = entries_[index];
    if (!e.plugin) return;
    for (const auto& type : e.info.config_types)
        if (auto it = transports_.find(type); it != transports_.end() && it->second != index)
            append_note(e.info.error, "transport type '" + type + "' already served by an earlier plugin");
    if (!e.info.auth_backend.empty())
        if (auto it = auth_backends_.find(e.info.auth_backend); it != auth_backends_.end() && it->second != index)
            append_note(e.info.error, "auth backend '" + e.info.auth_backend + "' already served by an earlier plugin");
}

const std::vector<PluginInfo>& PluginRegistry::infos() {
    std::lock_guard lock(mutex_);
    if (!infos_ready_) {
        for (std::size_t i = 0; i < entries_.size(); ++i) ensure_loaded(i);
        for (const auto& e : entries_) infos_.push_back(e.info);
        infos_ready_ = true;
    }
    return infos_;
}

std::vector<PluginRegistry::Listed> PluginRegistry::listing() const {
    std::lock_guard lock(mutex_);
    std::vector<Listed> out;
    out.reserve(entries_.size());
    for (const auto& e : entries_) out.push_back({e.info, !e.attempted});
    return out;
}

std::shared_ptr<LoadedPlugin> PluginRegistry::transport_for(const std::string& type) {
    std::lock_guard lock(mutex_);
    auto it = transports_.find(type);
    return it == transports_.end() ? nullptr : ensure_loaded(it->second);
}

std::shared_ptr<LoadedPlugin> PluginRegistry::auth_backend(const std::string& name) {
    std::lock_guard lock(mutex_);
    auto it = auth_backends_.find(name);
    return it == auth_backends_.end() ? nullptr : ensure_loaded(it->second);
}

std::string PluginRegistry::refusal_for(const std::string& type) const {
    std::lock_guard lock(mutex_);
    auto it = transports_.find(type);
    if (it == transports_.end()) return {};
    const Entry& e = entries_[it->second];
    if (!e.attempted || e.plugin) return {};
    return e.info.path.string() + ": " + e.info.error;
}

std::vector<std::string> PluginRegistry::transport_types() const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> types;
    for (const auto& [type, index] : transports_) types.push_back(type);
    return types;
}

std::size_t PluginRegistry::loaded_count() const {
    std::lock_guard lock(mutex_);
    return static_cast<std::size_t>(std::count_if(entries_.begin(), entries_.end(), [](const Entry& e) { return e.plugin != nullptr; }));
}

void PluginRegistry::clear() {
    std::lock_guard lock(mutex_);
    cleared_ = true;
    for (auto& e : entries_) e.plugin.reset();
}

}  // namespace mcph::plugins
