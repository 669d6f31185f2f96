// Where a server definition came from: its scope (seed 000 §18.6), the file (or "--mcp-config",
// "api"), and for plugin-contributed servers the plugin that brought it (tagged when the config is
// built, so dedup never has to ask whether a plugin is loaded yet — seed 000 §18.7).
#pragma once

#include "config/server_config.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace mcph::config {

// Lowest to highest merge precedence, except Enterprise (exclusive: when present, every other
// source is ignored) and Managed (merged above Dynamic: an administrator's definition of a name is
// not overridden by a user's). Webapp (connectors synced from a web service, config/connectors.hpp)
// is a source like Plugin: above it, below everything the user writes by hand.
enum class Scope { Plugin, Webapp, User, Project, Local, Dynamic, Managed, Enterprise };

inline std::string_view scope_name(Scope s) {
    switch (s) {
        case Scope::Plugin: return "plugin";
        case Scope::Webapp: return "webapp";
        case Scope::User: return "user";
        case Scope::Project: return "project";
        case Scope::Local: return "local";
        case Scope::Dynamic: return "dynamic";
        case Scope::Managed: return "managed";
        case Scope::Enterprise: return "enterprise";
    }
    return "?";
}

// A definition of the same name that a higher scope replaced (whole-entry replacement). Reported,
// so that a project cannot silently take the place of the user's server of the same name.
struct ShadowedDefinition {
    Scope scope = Scope::Dynamic;
    std::string origin;
};

// One server definition after ${VAR} expansion, with its provenance.
struct ConfiguredServer {
    ServerConfig config;
    Scope scope = Scope::Dynamic;
    std::string origin;         // file path, "--mcp-config <path>", "api", or (webapp) the endpoint URL
    std::string plugin_source;  // Scope::Plugin only: the contributing plugin's name
    std::string project_root;   // Scope::Project and Local: the project the approval is stored under
    // The entry as written in its file, before ${VAR} expansion (with the document's shared xaaIdp
    // when it applies): what an approval is a hash of, so that rotating a token in the environment
    // keeps the approval while any edit of the file revokes it.
    std::string written_json;
    std::vector<ShadowedDefinition> shadows;  // lower definitions of this name it replaced, lowest first
};

}  // namespace mcph::config
