// What a plugin file says it serves, read from its ELF section ".mcph_manifest" without loading it
// (MCPH_PLUGIN_MANIFEST in mcph/plugin_api.h). The host then maps a plugin, and the libraries it
// needs (libcurl, OpenSSL, libwebsockets...), only when a server first needs its transport type or
// auth backend. A plugin without the section is loaded at discovery, as before.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mcph::plugins {

struct PluginManifest {
    std::vector<std::string> transport_types;
    std::string auth_backend;
};

// The largest manifest section read; a bigger one is refused (the file is then loaded eagerly).
constexpr std::size_t kMaxManifestBytes = 4096;

// nullopt with `why` empty: the file has no manifest. nullopt with `why` set: it has one that
// cannot be used (not ELF, too large, malformed JSON, a bad type name) and `why` says so.
std::optional<PluginManifest> read_plugin_manifest(const std::filesystem::path& file, std::string& why);

// Parses the section's bytes (split out for the unit tests).
std::optional<PluginManifest> parse_plugin_manifest(const std::string& bytes, std::string& why);

}  // namespace mcph::plugins
