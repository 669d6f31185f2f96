// The CLI's configuration commands: add, remove, enable, disable, approve, reconnect. They edit
// the files of the layered config (atomically, mode kept) through mcph::Host.
#include "connect_step.hpp"
#include "config_commands.hpp"

#include "interactive.hpp"
#include "json_output.hpp"
#include "render.hpp"

#include <mcph/error.hpp>
#include <mcph/text.hpp>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <iostream>

namespace mcph::cli {
namespace {

bool looks_like_url(const std::string& s) {
    for (const char* scheme : {"http://", "https://", "ws://", "wss://"})
        if (s.rfind(scheme, 0) == 0) return true;
    return false;
}

}  // namespace

// What `mcph add` refuses before anything is written: a name that would be read as an option or
// could not be typed back, K=V without a valid name, a header that is not "Name: value".
void check_server_name(const std::string& name) {
    const bool ok = !name.empty() && name.size() <= 64 && name[0] != '-' &&
                    std::all_of(name.begin(), name.end(), [](char c) {
                        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
                    });
    if (!ok)
        throw Error(ErrorKind::Usage, "invalid server name '" + name +
                                          "': use 1 to 64 letters, digits, '_', '-' or '.', not starting with '-'"
                                          " (nothing was saved)");
}

namespace {

std::pair<std::string, std::string> split_env(const std::string& kv) {
    const auto eq = kv.find('=');
    const std::string key = kv.substr(0, eq);
    const bool ok = eq != std::string::npos && !key.empty() && !std::isdigit(static_cast<unsigned char>(key[0])) &&
                    std::all_of(key.begin(), key.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
    if (!ok) throw Error(ErrorKind::Usage, "invalid -e/--env '" + kv + "': expected KEY=value with KEY of letters, digits and '_' (nothing was saved)");
    return {key, kv.substr(eq + 1)};
}

std::pair<std::string, std::string> split_header(const std::string& header) {
    const auto colon = header.find(':');
    const std::string name = header.substr(0, colon);
    // RFC 9110 token characters; a CR or LF in the value would start another header.
    const bool name_ok = colon != std::string::npos && !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
    });
    std::string value = colon == std::string::npos ? "" : header.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    if (!name_ok || value.find_first_of("\r\n") != std::string::npos || value.find('\0') != std::string::npos)
        throw Error(ErrorKind::Usage, "invalid -H/--header '" + header + "': expected 'Name: value' (nothing was saved)");
    return {name, value};
}

JsonValue string_map(const std::vector<std::pair<std::string, std::string>>& pairs, Json::AllocatorType& a) {
    JsonValue out(rapidjson::kObjectType);
    for (const auto& [k, v] : pairs) {
        if (out.HasMember(k.c_str())) out.RemoveMember(k.c_str());  // the last one given wins
        out.AddMember(JsonValue(k.c_str(), a), JsonValue(v.c_str(), a), a);
    }
    return out;
}

// --inherit-env true | false | NAME,PREFIX_*,... as the "inheritEnv" value; the names are checked
// with the rest of the entry (check_entry), so a bad one is refused naming it.
JsonValue inherit_env_value(const std::string& text, Json::AllocatorType& a) {
    if (text == "true" || text == "false") return JsonValue(text == "true");
    JsonValue names(rapidjson::kArrayType);
    for (std::size_t start = 0; start <= text.size();) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        names.PushBack(JsonValue(text.substr(start, comma - start).c_str(), a), a);
        start = comma + 1;
    }
    return names;
}

// `mcph add [options] NAME COMMAND-OR-URL [ARGS...]` as an mcpServers entry, after every check.
Json entry_from_options(const Options& o) {
    const std::string& target = o.args[1];
    const bool url = looks_like_url(target);
    std::string type = o.transport;
    if (type.empty()) type = url ? (target.rfind("ws", 0) == 0 ? "ws" : "http") : "stdio";
    std::vector<std::pair<std::string, std::string>> env, headers;
    for (const auto& kv : o.env) env.push_back(split_env(kv));
    for (const auto& h : o.headers) headers.push_back(split_header(h));
    Json entry(rapidjson::kObjectType);
    auto& a = entry.GetAllocator();
    if (type == "stdio") {
        if (url) throw Error(ErrorKind::Usage, "'" + target + "' is a URL, but the transport is stdio, which runs a command "
                                               "(use --transport http, sse or ws for a URL; nothing was saved)");
        if (!headers.empty()) throw Error(ErrorKind::Usage, "-H/--header is for http, sse and ws servers, not stdio (nothing was saved)");
        entry.AddMember("command", JsonValue(target.c_str(), a), a);
        JsonValue rest(rapidjson::kArrayType);
        for (std::size_t i = 2; i < o.args.size(); ++i) rest.PushBack(JsonValue(o.args[i].c_str(), a), a);
        entry.AddMember("args", rest, a);
        if (!env.empty()) entry.AddMember("env", string_map(env, a), a);
        if (!o.inherit_env.empty()) entry.AddMember("inheritEnv", inherit_env_value(o.inherit_env, a), a);
        return entry;
    }
    if (!url) throw Error(ErrorKind::Usage, "the transport " + type + " needs a URL (http://, https://, ws:// or wss://), not '" +
                                                target + "' (for a command leave out --transport; nothing was saved)");
    if (o.args.size() > 2) throw Error(ErrorKind::Usage, "a " + type + " server takes only a URL; unexpected '" + o.args[2] + "' (nothing was saved)");
    if (!env.empty()) throw Error(ErrorKind::Usage, "-e/--env is for stdio servers, not " + type + " (nothing was saved)");
    if (!o.inherit_env.empty())
        throw Error(ErrorKind::Usage, "--inherit-env is for stdio servers, not " + type + " (nothing was saved)");
    entry.AddMember("type", JsonValue(type.c_str(), a), a);
    entry.AddMember("url", JsonValue(target.c_str(), a), a);
    if (!headers.empty()) entry.AddMember("headers", string_map(headers, a), a);
    return entry;
}

// ${NAME} is expanded when the config is loaded, not when it is saved (the variable may be set
// only where the server runs): for the check each one gets a default, so an unset variable is not
// an error here. A url that is only a variable gets a placeholder URL for the same reason.
std::string with_defaults(const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        const auto close = text.compare(i, 2, "${") == 0 ? text.find('}', i) : std::string::npos;
        const auto inner = close == std::string::npos ? std::string() : text.substr(i + 2, close - i - 2);
        // Only ${NAME} of the environment: ${/}, ${workspaceFolder}, ${userHome}, ${pathSeparator}
        // and ${env:...}/${input:...} have meanings of their own and are left as written.
        const bool env_name = !inner.empty() && !std::isdigit(static_cast<unsigned char>(inner[0])) &&
                              std::all_of(inner.begin(), inner.end(), [](char c) {
                                  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                              }) &&
                              inner != "workspaceFolder" && inner != "userHome" && inner != "pathSeparator";
        if (close == std::string::npos || !env_name) {
            out.push_back(text[i++]);
            continue;
        }
        out += "${" + inner + ":-x}";
        i = close + 1;
    }
    return out;
}

void add_defaults(JsonValue& v, Json::AllocatorType& a, bool is_url) {
    if (v.IsString()) {
        const std::string text(v.GetString(), v.GetStringLength());
        const bool only_variable = text.rfind("${", 0) == 0 && text.find('}') == text.size() - 1;
        const std::string fixed = is_url && only_variable ? std::string("https://placeholder.invalid/") : with_defaults(text);
        v.SetString(fixed.c_str(), static_cast<rapidjson::SizeType>(fixed.size()), a);
    } else if (v.IsObject()) {
        for (auto& m : v.GetObject()) add_defaults(m.value, a, std::string_view(m.name.GetString()) == "url");
    } else if (v.IsArray()) {
        for (auto& e : v.GetArray()) add_defaults(e, a, false);
    }
}

}  // namespace

// An entry is checked by the host's own config reader (the one every config file goes through),
// in a host of its own that reads no file and connects nothing: what it refuses is never saved.
void check_entry(const std::string& name, const JsonValue& entry) {
    if (!entry.IsObject()) throw Error(ErrorKind::Usage, "a server definition must be a JSON object (nothing was saved)");
    Json doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    JsonValue servers(rapidjson::kObjectType);
    JsonValue copy(entry, a);
    add_defaults(copy, a, false);
    servers.AddMember(JsonValue(name.c_str(), a), copy, a);
    doc.AddMember("mcpServers", servers, a);
    HostOptions probe_options;
    probe_options.load_layered_config = false;
    Host probe(std::move(probe_options));
    try {
        probe.add_config_json(to_json(doc), "mcph add");
    } catch (const Error& e) {
        throw Error(ErrorKind::Usage, std::string(e.what()) + " (nothing was saved)");
    }
}

namespace {

// What `approve` shows: every definition it pinned, in full, with the scanner's findings — the
// person approving reads what the model will read. (Kept apart from what approve records.)
void show_approval(Host& host, const std::string& name, bool json) {
    const std::vector<Tool> pinned = host.tool_definitions(name);
    const std::string said = "approved '" + one_line(name) + "'; " + std::to_string(pinned.size()) + " tool definition(s) pinned";
    // With --json stdout carries only the document; the definitions are still shown, on stderr.
    std::ostream& details = json ? std::cerr : std::cout;
    if (json) print_done(true, said);
    else std::cout << said << "\n";
    if (!pinned.empty()) print_approved_definitions(details, name, pinned);
}

const std::string& server_arg(const Options& o, const char* usage) {
    if (o.args.size() != 1) throw Error(ErrorKind::Usage, std::string("usage: ") + usage);
    return o.args[0];
}

// A yes/no question on the terminal; anything but "y"/"yes" (or end of input) is no.
bool ask_yes_no(const std::string& question) {
    std::cerr << question << " [y/N] " << std::flush;
    std::string line;
    if (!std::getline(std::cin, line)) return false;
    return line == "y" || line == "Y" || line == "yes";
}

// The user's definitions a project definition of `name` replaces (issue #9 item 12).
std::vector<ShadowedServer> replaced_by_project(const Host& host, const std::string& name) {
    std::vector<ShadowedServer> out;
    for (const auto& s : host.config_report().shadowed)
        if (s.name == name && s.by_scope == "project") out.push_back(s);
    return out;
}

}  // namespace

int cmd_add(Host& host, const Options& o) {
    if (o.args.size() < 2)
        throw Error(ErrorKind::Usage, "usage: mcph add [-s scope] [--transport stdio|http|sse|ws] [-e K=V]... [-H 'Name: value']... "
                                      "<name> <command-or-url> [args...] (see `mcph add --help`)");
    check_server_name(o.args[0]);
    // `mcph add NAME '{...}'` as before (add-json is the documented spelling).
    const bool json_form = !o.dash_dash && o.transport.empty() && o.args.size() == 2 && !o.args[1].empty() && o.args[1][0] == '{';
    Json entry = json_form ? parse_json(o.args[1], "server definition") : entry_from_options(o);
    check_entry(o.args[0], entry);
    const std::string scope = o.scope.empty() ? "local" : o.scope;
    host.save_server(scope, o.args[0], entry);
    print_done(o.json, "added '" + one_line(o.args[0]) + "' (" + scope + " scope)");
    return 0;
}

int cmd_add_json(Host& host, const Options& o) {
    if (o.args.size() != 2) throw Error(ErrorKind::Usage, "usage: mcph add-json [-s scope] <name> '<json>' (see `mcph add-json --help`)");
    check_server_name(o.args[0]);
    Json entry;
    try {
        entry = parse_json(o.args[1], "server definition");
    } catch (const Error& e) {
        throw Error(ErrorKind::Usage, std::string(e.what()) + " (nothing was saved)");
    }
    check_entry(o.args[0], entry);
    const std::string scope = o.scope.empty() ? "local" : o.scope;
    host.save_server(scope, o.args[0], entry);
    print_done(o.json, "added '" + one_line(o.args[0]) + "' (" + scope + " scope)");
    return 0;
}

int cmd_remove(Host& host, const Options& o) {
    const std::string& name = server_arg(o, "mcph remove [--scope local|project|user] <name>");
    if (!host.remove_saved_server(name, o.scope))
        throw Error(ErrorKind::NotFound, "no saved definition of '" + name + "'" + (o.scope.empty() ? "" : " in " + o.scope + " scope"));
    print_done(o.json, "removed '" + one_line(name) + "'");
    return 0;
}

int cmd_enable(Host& host, const Options& o) {
    const std::string& name = server_arg(o, "mcph enable <name>");
    host.enable(name);
    print_done(o.json, "enabled '" + one_line(name) + "'");
    return 0;
}

int cmd_disable(Host& host, const Options& o) {
    const std::string& name = server_arg(o, "mcph disable <name>");
    host.disable(name);
    print_done(o.json, "disabled '" + one_line(name) + "'");
    return 0;
}

// What is being approved, as written: the person approving reads the command line or URL, and the
// environment variables the definition will read (a header with ${GITHUB_TOKEN} sends that token).
void show_definition(const ServerDefinition& d) {
    std::cerr << "mcph: approving '" << one_line(d.name) << "' (" << one_line(d.scope) << " scope, " << one_line(d.origin)
              << "):\n"
              << terminal_safe(d.definition_json) << "\n";
    if (!d.inherit_env_json.empty()) std::cerr << "mcph: " << inherit_env_line(d) << "\n";
    if (d.variables.empty()) return;
    std::cerr << "mcph: it reads these environment variables:";
    for (const auto& v : d.variables) std::cerr << " " << one_line(v);
    std::cerr << "\n";
}

int cmd_approve(Host& host, const Options& o) {
    const std::string& name = server_arg(o, "mcph approve <name>");
    show_definition(host.definition(name));
    // "approve github" is the natural answer to a project server that took github's place; it
    // would approve the project's definition, so that must be said, and agreed to, first.
    const auto replaced = replaced_by_project(host, name);
    if (!replaced.empty()) {
        for (const auto& r : replaced) std::cerr << "mcph: warning: " << one_line(r.reason) << "\n";
        const bool interactive = stdin_is_tty() && stderr_is_tty();
        if (!o.yes && !(interactive && ask_yes_no("Approve the project's definition of '" + one_line(name) + "' from " +
                                                  one_line(replaced.front().by_origin) + "?")))
            throw Error(ErrorKind::Usage, "not approved: the project definition of '" + name + "' in " +
                                              replaced.front().by_origin + " replaces your " + replaced.front().scope +
                                              "-scope server of that name; review it, and pass --yes to approve it anyway "
                                              "(or rename your server)");
    }
    host.approve(name);
    show_approval(host, name, o.json);
    return 0;
}

int cmd_migrate_local(Host& host, const Options& o) {
    if (!o.args.empty()) throw Error(ErrorKind::Usage, "usage: mcph migrate-local");
    const ConfigReport report = host.config_report();
    const std::string from = report.legacy_local_settings;
    const auto to = host.migrate_local_settings();
    print_done(o.json, "moved " + (from.empty() ? std::string("the project's .mcph/settings.local.json") : from) + " to " +
                           to.string() + " (your local settings for this project)");
    return 0;
}

void offer_local_migration(Host& host, bool interactive) {
    const ConfigReport report = host.config_report();
    if (report.legacy_local_settings.empty()) return;
    if (!interactive) {
        std::cerr << "mcph: note: " << report.legacy_local_settings
                  << " is inside the project, so it is read as a project file (its servers need approval, its "
                     "lists are ignored); if it is yours, run `mcph migrate-local`\n";
        return;
    }
    std::cerr << "mcph: " << report.legacy_local_settings
              << " is inside the project: anyone who commits to the repository can write it, so until you move it "
                 "it is only trusted as a project file.\n";
    if (!ask_yes_no("Did you write it, and should it become your local settings (" + report.local_settings + ")?")) return;
    const auto to = host.migrate_local_settings();
    std::cerr << "mcph: moved it to " << to.string() << "\n";
}

int cmd_reconnect(Host& host, const Options& o) {
    const std::string& name = server_arg(o, "mcph reconnect <name>");
    connect_step(o, [&host, name] { host.reconnect(name); }, {name});
    print_done(o.json, "reconnected '" + one_line(name) + "'");
    return 0;
}

}  // namespace mcph::cli
