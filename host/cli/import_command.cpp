// `mcph import`: other clients' mcpServers entries into one of mcph's scopes.
//
// Each entry is checked the way `mcph add` checks one (a name that can be typed back, the host's
// own config reader), and written through Host::save_server (the config editor: read-modify-write,
// atomic rename, mode kept). Entries are independent: a bad one is refused with its reason and the
// rest are imported. A file that is not a readable JSON(C) object is refused whole, before anything
// is written. Nothing is connected or run.
//
// VS Code `inputs` do not travel: an entry that uses ${input:ID} is refused, naming the input.
// The answer to an input is asked for the file that declares it and kept under that file; copying
// the reference without its declaration would make the entry unusable, and copying the declaration
// would need the editor to merge "inputs" arrays across files. Put the value in the environment
// and reference it as ${VAR} instead (the refusal says so).
//
// Claude Code passes its whole environment to the stdio servers it starts; mcph passes a small
// allow-list unless "inheritEnv" says otherwise (config/inherit_env.hpp). An imported Claude Code
// stdio entry would silently lose the variables it relied on (a token exported in the shell), so
// it is written with "inheritEnv": true, unless the entry sets "inheritEnv" itself; the output
// names each entry this was done to, so the user can narrow it to a list of names.
#include "import_command.hpp"

#include "config/file_read.hpp"
#include "config/jsonc.hpp"
#include "config_commands.hpp"
#include "json/json_access.hpp"
#include "json_output.hpp"
#include "render.hpp"

#include <mcph/error.hpp>

#include <fcntl.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>

namespace mcph::cli {
namespace {

namespace fs = std::filesystem;

// One entry read from a source file: the name, the entry as written, and which file had it.
struct Candidate {
    std::string name;
    Json entry;
    std::string origin;
};

struct Outcome {
    std::string name;
    std::string origin;
    std::string reason;             // empty for an imported entry
    bool inherit_env_added = false;  // an imported Claude Code stdio entry given "inheritEnv": true
};

fs::path home_dir() {
    const char* home = std::getenv("HOME");
    if (!home || !*home) throw Error(ErrorKind::Usage, "HOME is not set: cannot find the other client's config files");
    return home;
}

// XDG_CONFIG_HOME when set to an absolute path (the XDG rule), else ~/.config.
fs::path config_home(const fs::path& home) {
    const char* xdg = std::getenv("XDG_CONFIG_HOME");
    if (xdg && *xdg == '/') return xdg;
    return home / ".config";
}

// nullopt when the file does not exist; an unreadable or oversized file is an error naming it.
std::optional<std::string> read_if_present(const fs::path& file) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) return std::nullopt;
        throw Error(ErrorKind::Usage, "cannot read " + file.string() + ": " + std::strerror(errno) + " (nothing was written)");
    }
    return config::read_to_end_and_close(fd, file);  // the size bound of every config file
}

// `servers` when it is an object (or absent); anything else refuses the whole file.
const JsonValue* checked_servers(const JsonValue* servers, const std::string& origin) {
    if (servers && !servers->IsObject())
        throw Error(ErrorKind::Usage, origin + ": the servers must be an object of server definitions (nothing was written)");
    return servers;
}

// The servers object of a document: "mcpServers" (Claude Desktop, Claude Code, Cursor) or
// "servers" (VS Code mcp.json), or a VS Code settings file's "mcp": {"servers": ...}.
const JsonValue* servers_of(const JsonValue& doc, const std::string& origin) {
    if (!doc.IsObject()) throw Error(ErrorKind::Usage, origin + ": the file must hold a JSON object (nothing was written)");
    const JsonValue* servers = json::member(doc, "mcpServers");
    if (!servers) servers = json::member(doc, "servers");
    if (!servers)
        if (const JsonValue* mcp = json::object_member(doc, "mcp")) servers = json::member(*mcp, "servers");
    return checked_servers(servers, origin);
}

// The first ${input:ID} in any string of `v`, or empty.
std::string input_reference(const JsonValue& v) {
    if (v.IsString()) {
        const std::string_view s = json::view(v);
        const auto at = s.find("${input:");
        if (at == std::string_view::npos) return {};
        const auto close = s.find('}', at);
        return std::string(s.substr(at + 8, close == std::string_view::npos ? std::string_view::npos : close - at - 8));
    }
    if (v.IsObject())
        for (const auto& m : v.GetObject())
            if (std::string id = input_reference(m.value); !id.empty()) return id;
    if (v.IsArray())
        for (const auto& e : v.GetArray())
            if (std::string id = input_reference(e); !id.empty()) return id;
    return {};
}

// Claude Code's servers of one project directory in ~/.claude.json, or null when it has none.
const JsonValue* project_servers_of(const JsonValue& doc, const std::string& project, const std::string& origin) {
    const JsonValue* projects = doc.IsObject() ? json::object_member(doc, "projects") : nullptr;
    const JsonValue* entry = projects ? json::object_member(*projects, project.c_str()) : nullptr;
    if (!entry) return nullptr;
    const JsonValue* servers = json::member(*entry, "mcpServers");
    return checked_servers(servers, origin);
}

// Every entry of every place, later places replacing earlier ones' names. A file that is missing
// is skipped (a client may keep only one of its files); when none exists that is a usage error.
std::vector<Candidate> read_candidates(const std::vector<ImportSource>& sources, const std::string& source) {
    std::vector<Candidate> out;
    std::map<std::string, std::size_t> index;
    bool any = false;
    for (const ImportSource& place : sources) {
        const fs::path& file = place.file;
        const std::optional<std::string> text = read_if_present(file);
        if (!text) continue;
        any = true;
        Json doc;
        try {
            doc = config::parse_config_json(*text, file.string());  // line and column in the message
        } catch (const Error& e) {
            throw Error(ErrorKind::Usage, std::string(e.what()) + " (nothing was written)");
        }
        const std::string origin = place.project.empty() ? file.string() : file.string() + " (project " + place.project + ")";
        const JsonValue* servers = place.project.empty() ? servers_of(doc, origin) : project_servers_of(doc, place.project, origin);
        if (!servers) continue;
        for (const auto& m : servers->GetObject()) {
            Candidate c{std::string(json::view(m.name)), Json(), origin};
            c.entry.CopyFrom(m.value, c.entry.GetAllocator());
            if (auto it = index.find(c.name); it != index.end()) {
                out[it->second] = std::move(c);
            } else {
                index.emplace(c.name, out.size());
                out.push_back(std::move(c));
            }
        }
    }
    if (!any) {
        std::string looked;
        for (const ImportSource& place : sources)
            if (place.project.empty()) looked += (looked.empty() ? "" : ", ") + place.file.string();
        throw Error(ErrorKind::Usage, "no config file of '" + source + "' found (looked for " + looked + ")");
    }
    return out;
}

// Why `name` is taken in `scope`, or empty: defined there (the definition in effect, or one it
// shadows), or an entry with a config problem of that name anywhere (a problem does not say its
// scope; skipping is the safe side, and --force writes the scope's entry whether or not it was there).
std::string taken_in_scope(const Host& host, const std::string& name, const std::string& scope) {
    const std::string in_scope = "a server of that name is already configured in " + scope + " scope (--force replaces it)";
    try {
        if (host.definition(name).scope == scope) return in_scope;
    } catch (const Error&) {
    }
    const ConfigReport report = host.config_report();
    for (const auto& s : report.shadowed)
        if (s.name == name && s.scope == scope) return in_scope;
    for (const auto& p : report.problems)
        if (p.name == name)
            return "a server of that name is already configured in " + p.origin + " (with a problem: " + p.reason +
                   "); --force writes this one into " + scope + " scope";
    return {};
}

// A stdio entry as mcph reads one: "type": "stdio", or no type and a command (config/server_config.hpp).
bool stdio_entry(const JsonValue& entry) {
    if (const JsonValue* type = json::member(entry, "type")) return type->IsString() && json::view(*type) == "stdio";
    return json::member(entry, "command") != nullptr && json::member(entry, "url") == nullptr;
}

// Claude Code's behaviour kept (see the top of the file): true when "inheritEnv": true was added.
bool keep_claude_code_environment(Json& entry) {
    if (!entry.IsObject() || !stdio_entry(entry) || json::member(entry, "inheritEnv")) return false;
    entry.AddMember("inheritEnv", true, entry.GetAllocator());
    return true;
}

// Why an entry cannot be imported, or empty when it can.
std::string refusal(const Candidate& c) {
    try {
        check_server_name(c.name);
        if (const std::string id = input_reference(c.entry); !id.empty())
            return "it uses the VS Code input ${input:" + id +
                   "}; inputs are not imported (set the value in your environment and write ${VAR} instead)";
        check_entry(c.name, c.entry);
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

JsonValue outcome_list(const std::vector<Outcome>& list, Json::AllocatorType& a, bool with_reason) {
    JsonValue out(rapidjson::kArrayType);
    for (const auto& o : list) {
        JsonValue item(rapidjson::kObjectType);
        item.AddMember("name", JsonValue(o.name.c_str(), a), a);
        item.AddMember("from", JsonValue(o.origin.c_str(), a), a);
        if (with_reason) item.AddMember("reason", JsonValue(o.reason.c_str(), a), a);
        if (o.inherit_env_added) item.AddMember("inheritEnvAdded", true, a);
        out.PushBack(item, a);
    }
    return out;
}

void print_outcome(bool json, bool dry_run, const std::string& scope, const std::vector<Outcome>& imported,
                   const std::vector<Outcome>& skipped, const std::vector<Outcome>& refused) {
    if (json) {
        Json doc(rapidjson::kObjectType);
        auto& a = doc.GetAllocator();
        doc.AddMember("scope", JsonValue(scope.c_str(), a), a);
        doc.AddMember("dryRun", dry_run, a);
        doc.AddMember("imported", outcome_list(imported, a, false), a);
        doc.AddMember("skipped", outcome_list(skipped, a, true), a);
        doc.AddMember("refused", outcome_list(refused, a, true), a);
        print_json_document(doc, "result");
        return;
    }
    const char* verb = dry_run ? "would import" : "imported";
    for (const auto& i : imported)
        std::cout << verb << " '" << one_line(i.name) << "' from " << one_line(i.origin)
                  << (i.inherit_env_added ? " with \"inheritEnv\": true (Claude Code passes its whole environment to stdio "
                                            "servers; write a list of names there to pass fewer)"
                                          : "")
                  << "\n";
    for (const auto& s : skipped) std::cout << "skipped '" << one_line(s.name) << "': " << one_line(s.reason) << "\n";
    for (const auto& r : refused) std::cout << "refused '" << one_line(r.name) << "': " << one_line(r.reason) << "\n";
    std::cout << imported.size() << (dry_run ? " would be imported" : " imported") << " into " << scope << " scope, "
              << skipped.size() << " skipped, " << refused.size() << " refused" << (dry_run ? " (dry run: nothing written)" : "")
              << "\n";
}

}  // namespace

std::vector<ImportSource> import_sources(const std::string& source, const fs::path& home, const fs::path& cwd) {
    if (source == "claude-desktop") return {{config_home(home) / "Claude" / "claude_desktop_config.json", {}}};
    // Claude Code: user servers (top of ~/.claude.json), the project's .mcp.json, then the servers
    // it keeps for this directory in ~/.claude.json (`claude mcp add` without a scope), which win.
    if (source == "claude-code")
        return {{home / ".claude.json", {}}, {cwd / ".mcp.json", {}}, {home / ".claude.json", cwd.string()}};
    if (source == "vscode") return {{config_home(home) / "Code" / "User" / "settings.json", {}}, {cwd / ".vscode" / "mcp.json", {}}};
    if (source == "cursor") return {{home / ".cursor" / "mcp.json", {}}, {cwd / ".cursor" / "mcp.json", {}}};
    return {{fs::path(source), {}}};
}

int cmd_import(Host& host, const Options& o) {
    if (o.args.empty())
        throw Error(ErrorKind::Usage, "usage: mcph import <claude-desktop|claude-code|vscode|cursor|FILE> [-s scope] "
                                      "[--dry-run] [--force] [names...] (see `mcph import --help`)");
    const std::string& source = o.args[0];
    const std::vector<std::string> wanted(o.args.begin() + 1, o.args.end());
    std::vector<Candidate> candidates = read_candidates(import_sources(source, home_dir(), fs::current_path()), source);
    for (const std::string& name : wanted) {
        const bool found = std::any_of(candidates.begin(), candidates.end(), [&](const Candidate& c) { return c.name == name; });
        if (!found) throw Error(ErrorKind::Usage, "'" + source + "' has no server named '" + name + "' (nothing was written)");
    }
    const std::string scope = o.scope.empty() ? "local" : o.scope;
    std::vector<Outcome> imported, skipped, refused;
    for (Candidate& c : candidates) {
        if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), c.name) == wanted.end()) continue;
        if (std::string why = refusal(c); !why.empty()) {
            refused.push_back({c.name, c.origin, why});
            continue;
        }
        if (std::string taken = taken_in_scope(host, c.name, scope); !taken.empty() && !o.force) {
            skipped.push_back({c.name, c.origin, std::move(taken)});
            continue;
        }
        const bool inherit_env_added = source == "claude-code" && keep_claude_code_environment(c.entry);
        try {
            // replace=force: adds when absent, replaces in place when present.
            if (!o.dry_run) host.save_server(scope, c.name, c.entry, /*replace=*/o.force);
        } catch (const Error& e) {  // e.g. the scope's file is malformed: this entry is not written
            refused.push_back({c.name, c.origin, e.what()});
            continue;
        }
        imported.push_back({c.name, c.origin, "", inherit_env_added});
    }
    print_outcome(o.json, o.dry_run, scope, imported, skipped, refused);
    // 1: the command did part of what was asked (a script sees that some entries did not arrive).
    return skipped.empty() && refused.empty() ? 0 : 1;
}

}  // namespace mcph::cli
