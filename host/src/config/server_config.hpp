// Server definitions as users write them: {"mcpServers":{name:{...}}} (Claude Desktop / Claude
// Code) or {"servers":{name:{...}}} (VS Code). Validation names the server and the field.
#pragma once

#include <mcph/json.hpp>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcph::config {

struct ServerConfig {
    std::string name;
    std::string type;         // "stdio" when omitted with a command; "http" when omitted with a url
    std::string config_json;  // the entry with "type" and "name" filled in: what the plugin receives
    std::optional<std::chrono::milliseconds> request_timeout;  // "timeout" (ms)
    bool disabled = false;
    // Auth: "oauth": {...} selects backend "oauth" (or "xaa" with "xaa": true); "auth": {"backend":
    // "<name>", ...} selects any auth plugin. Empty backend: no auth.
    std::string auth_backend;
    std::string auth_config_json;
    std::string url;  // remote servers: the endpoint
    // type "http" with "mode": "auto", or a url with no type at all: the spec's
    // backwards-compatibility rule — try Streamable HTTP, and when initialize is answered
    // 400/404/405 fall back to the legacy SSE transport.
    bool auto_fallback_to_sse = false;
    // "envFile" (stdio): when not empty, the file must resolve inside this folder (a project
    // server's, the project root: env_file.hpp). Set by the loader, not read from the entry.
    std::string env_file_confined_to;
    // "inheritEnv" (stdio; config/inherit_env.hpp) as compact JSON — "true", "false" or
    // ["NAME",...] — whether the entry set it or a settings default did; empty when neither did
    // (the plugin's default: the allow-list).
    std::string inherit_env_json;
    // The settings file whose default "inheritEnv" the loader applied; empty: the entry's own (or none).
    std::string inherit_env_from;
    // "roots" (config_roots.hpp): as written (validated, after ${VAR} expansion), and resolved by the
    // loader — absolute, canonical, existing directories, a project's inside its repository.
    // nullopt: not written (the settings' default, else the working directory, applies); an
    // empty list: no roots.
    std::optional<std::vector<std::string>> written_roots;
    std::optional<std::vector<std::filesystem::path>> roots;
};

// "streamable-http", "streamableHttp", "http" → "http"; "websocket", "ws" → "ws"; any other
// spelling unchanged.
std::string canonical_transport_type(std::string_view type);

// The same server as a legacy SSE config (for the auto fallback).
ServerConfig as_legacy_sse(const ServerConfig& config);

// Validates one entry. Throws mcph::Error(Usage) naming server and field.
ServerConfig parse_server_config(const std::string& name, const JsonValue& entry);

// A document's shared "xaaIdp" object reaches each XAA server's auth config as "idp" unless the
// server names its own (parse_mcp_config does this; the layered loader parses entries one by one).
void share_xaa_idp(const JsonValue& idp, ServerConfig& server);

// Parses a whole document (JSONC: config/jsonc.hpp); `origin` (a file name or "--mcp-config") goes into error messages.
std::vector<ServerConfig> parse_mcp_config(std::string_view json_text, const std::string& origin);

}  // namespace mcph::config
