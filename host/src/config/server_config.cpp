#include "config/server_config.hpp"

#include "config/inherit_env.hpp"
#include "config/config_roots.hpp"
#include "config/jsonc.hpp"
#include "json/json_access.hpp"

#include <mcph/error.hpp>

namespace mcph::config {
namespace {

[[noreturn]] void bad(const std::string& server, const std::string& field, const std::string& problem) {
    throw Error(ErrorKind::Usage, "server '" + server + "': " + field + " " + problem);
}

void require_string(const std::string& server, const JsonValue& entry, const char* field) {
    const JsonValue* v = json::member(entry, field);
    if (!v) bad(server, field, "is required");
    if (!v->IsString() || v->GetStringLength() == 0) bad(server, field, "must be a non-empty string");
}

void check_string_array(const std::string& server, const JsonValue& entry, const char* field) {
    const JsonValue* v = json::member(entry, field);
    if (!v) return;
    if (!v->IsArray()) bad(server, field, "must be an array of strings");
    for (const JsonValue& item : v->GetArray())
        if (!item.IsString()) bad(server, field, "must contain only strings");
}

void check_string_map(const std::string& server, const JsonValue& entry, const char* field) {
    const JsonValue* v = json::member(entry, field);
    if (!v) return;
    if (!v->IsObject()) bad(server, field, "must be an object of strings");
    for (const auto& m : v->GetObject())
        if (!m.value.IsString())
            bad(server, std::string(field) + "." + m.name.GetString(), "must be a string");
}

std::string infer_type(const std::string& name, const JsonValue& entry) {
    if (const JsonValue* t = json::member(entry, "type")) {
        if (!t->IsString() || t->GetStringLength() == 0) bad(name, "type", "must be a non-empty string");
        return canonical_transport_type(json::view(*t));
    }
    if (json::member(entry, "command")) return "stdio";  // type is optional for stdio (compatibility)
    if (json::member(entry, "url")) return "http";
    bad(name, "command or url", "is required");
}

void parse_auth(const std::string& name, const JsonValue& entry, ServerConfig& out) {
    const JsonValue* oauth = json::member(entry, "oauth");
    const JsonValue* auth = json::member(entry, "auth");
    if (oauth && auth) bad(name, "oauth/auth", "are exclusive: use one of them");
    if (oauth) {
        if (!oauth->IsObject()) bad(name, "oauth", "must be an object");
        out.auth_backend = json::bool_or(*oauth, "xaa", false) ? "xaa" : "oauth";
        out.auth_config_json = to_json(*oauth);
    } else if (auth) {
        if (!auth->IsObject()) bad(name, "auth", "must be an object");
        const JsonValue* backend = json::member(*auth, "backend");
        if (!backend || !backend->IsString() || backend->GetStringLength() == 0)
            bad(name, "auth.backend", "must name an auth plugin backend (e.g. \"oauth\")");
        out.auth_backend = std::string(json::view(*backend));
        out.auth_config_json = to_json(*auth);
    }
}

}  // namespace

// Other hosts' spellings: Claude Code and Cursor write "streamable-http" / "http", some SDK
// examples "streamableHttp", and WebSocket servers appear as "ws" or "websocket". Matching is
// exact (a typo stays a type no plugin has, which the loader names), only these spellings fold.
std::string canonical_transport_type(std::string_view type) {
    if (type == "streamable-http" || type == "streamableHttp" || type == "streamable_http" || type == "http") return "http";
    if (type == "websocket" || type == "ws") return "ws";
    return std::string(type);
}

// The enterprise IdP is configured once ("xaaIdp") and shared by every XAA server: it reaches
// each one's auth config as "idp", unless the server names its own.
void share_xaa_idp(const JsonValue& idp, ServerConfig& server) {
    if (server.auth_backend != "xaa") return;
    Json auth = parse_json(server.auth_config_json, "auth config");
    if (auth.HasMember("idp")) return;
    auth.AddMember("idp", JsonValue(idp, auth.GetAllocator()), auth.GetAllocator());
    server.auth_config_json = to_json(auth);
}

ServerConfig parse_server_config(const std::string& name, const JsonValue& entry) {
    if (name.empty()) throw Error(ErrorKind::Usage, "a server name must not be empty");
    if (!entry.IsObject()) bad(name, "definition", "must be a JSON object");
    ServerConfig out;
    out.name = name;
    out.type = infer_type(name, entry);
    if (out.type == "stdio") {
        require_string(name, entry, "command");
        check_string_array(name, entry, "args");
        check_string_map(name, entry, "env");
        if (const JsonValue* cwd = json::member(entry, "cwd"); cwd && !cwd->IsString()) bad(name, "cwd", "must be a string");
        if (const JsonValue* f = json::member(entry, "envFile"); f && (!f->IsString() || f->GetStringLength() == 0))
            bad(name, "envFile", "must be a non-empty string (the path of a KEY=VALUE file)");
        if (const JsonValue* inherit = json::member(entry, "inheritEnv")) {
            if (std::optional<std::string> problem = inherit_env_problem(*inherit)) bad(name, "inheritEnv", *problem);
            out.inherit_env_json = to_json(*inherit);
        }
    } else if (out.type != "sdk") {
        const bool remote = json::member(entry, "url") || out.type == "http" || out.type == "sse" || out.type == "ws";
        if (remote) require_string(name, entry, "url");
        check_string_map(name, entry, "headers");
        // Refused rather than ignored: whoever wrote it expects the server to receive variables,
        // and a remote server is no process of ours, so nothing would reach it.
        if (remote && json::member(entry, "inheritEnv"))
            bad(name, "inheritEnv", "applies only to stdio servers (mcph starts no process for a remote server, so it "
                                    "has no environment to pass; send a token in \"headers\")");
    }
    out.url = json::string_or(entry, "url");
    // A url with no type (Cursor's and Claude Desktop's habit for SSE servers too): the 2025 spec's
    // backwards-compatibility rule — Streamable HTTP first, legacy SSE when the POST is refused
    // (400/404/405). An explicit "http" means Streamable HTTP only, unless "mode": "auto".
    out.auto_fallback_to_sse = out.type == "http" && !json::member(entry, "type");
    // "mode" is ours only for http; other plugins may give it their own meaning.
    if (const JsonValue* mode = json::member(entry, "mode"); mode && out.type == "http") {
        if (!mode->IsString() || (json::view(*mode) != "auto" && json::view(*mode) != "streamable"))
            bad(name, "mode", "must be \"auto\" (fall back to legacy SSE) or \"streamable\"");
        out.auto_fallback_to_sse = json::view(*mode) == "auto";
    }
    parse_auth(name, entry, out);
    if (!out.auth_backend.empty() && out.url.empty()) bad(name, "oauth/auth", "needs a remote server (a url)");
    if (const JsonValue* t = json::member(entry, "timeout")) {
        if (!t->IsNumber() || t->GetDouble() <= 0) bad(name, "timeout", "must be a positive number of milliseconds");
        out.request_timeout = std::chrono::milliseconds(static_cast<long long>(t->GetDouble()));
    }
    if (const JsonValue* d = json::member(entry, "disabled")) {
        if (!d->IsBool()) bad(name, "disabled", "must be true or false");
        out.disabled = d->GetBool();
    }
    out.written_roots = roots_member(entry, "server '" + name + "': ");
    Json filled;
    filled.CopyFrom(entry, filled.GetAllocator());
    auto& a = filled.GetAllocator();
    filled.RemoveMember("type");
    filled.AddMember("type", json::string_value(out.type, a), a);
    filled.RemoveMember("name");
    filled.AddMember("name", json::string_value(name, a), a);
    out.config_json = to_json(filled);
    return out;
}

ServerConfig as_legacy_sse(const ServerConfig& config) {
    ServerConfig out = config;
    out.type = "sse";
    out.auto_fallback_to_sse = false;
    Json doc = parse_json(config.config_json, "server config");
    doc.RemoveMember("mode");
    doc["type"].SetString("sse", doc.GetAllocator());
    out.config_json = to_json(doc);
    return out;
}

std::vector<ServerConfig> parse_mcp_config(std::string_view json_text, const std::string& origin) {
    Json doc = parse_config_json(json_text, origin);  // comments and trailing commas, as editors write
    if (!doc.IsObject()) throw Error(ErrorKind::Usage, origin + ": the config must be a JSON object");
    const JsonValue* servers = json::member(doc, "mcpServers");
    if (!servers) servers = json::member(doc, "servers");
    if (!servers)
        throw Error(ErrorKind::Usage, origin + ": expected {\"mcpServers\": {...}} (or VS Code's {\"servers\": {...}})");
    if (!servers->IsObject()) throw Error(ErrorKind::Usage, origin + ": mcpServers must be an object of server definitions");
    const JsonValue* xaa_idp = json::member(doc, "xaaIdp");
    if (xaa_idp && !xaa_idp->IsObject()) throw Error(ErrorKind::Usage, origin + ": xaaIdp must be an object");
    std::vector<ServerConfig> out;
    for (const auto& m : servers->GetObject()) {
        try {
            out.push_back(parse_server_config(std::string(json::view(m.name)), m.value));
        } catch (const Error& e) {
            throw Error(ErrorKind::Usage, origin + ": " + e.what());
        }
        if (xaa_idp) share_xaa_idp(*xaa_idp, out.back());
    }
    return out;
}

}  // namespace mcph::config
