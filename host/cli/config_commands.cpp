// The CLI's configuration commands: add, remove, enable, disable, approve, reconnect. They edit
// the files of the layered config (atomically, mode kept) through mcph::Host.
#include "config_commands.hpp"

#include "interactive.hpp"
#include "render.hpp"

#include <mcph/error.hpp>
#include <mcph/text.hpp>

#include <iostream>

namespace mcph::cli {
namespace {

bool looks_like_url(const std::string& s) {
    for (const char* scheme : {"http://", "https://", "ws://", "wss://"})
        if (s.rfind(scheme, 0) == 0) return true;
    return false;
}

// `mcph add NAME ...`: a JSON object, a URL (Streamable HTTP; ws:// for WebSocket), or a command
// line for a stdio server.
Json entry_from_args(const std::vector<std::string>& args) {
    const std::string& first = args[1];
    if (!first.empty() && first[0] == '{') return parse_json(first, "server definition");
    Json entry(rapidjson::kObjectType);
    auto& a = entry.GetAllocator();
    if (looks_like_url(first) && args.size() == 2) {
        entry.AddMember("type", rapidjson::StringRef(first.rfind("ws", 0) == 0 ? "ws" : "http"), a);
        entry.AddMember("url", JsonValue(first.c_str(), a), a);
        return entry;
    }
    entry.AddMember("command", JsonValue(first.c_str(), a), a);
    JsonValue rest(rapidjson::kArrayType);
    for (std::size_t i = 2; i < args.size(); ++i) rest.PushBack(JsonValue(args[i].c_str(), a), a);
    entry.AddMember("args", rest, a);
    return entry;
}

// What `approve` shows: every definition it pinned, in full, with the scanner's findings — the
// person approving reads what the model will read. (Kept apart from what approve records.)
void show_approval(Host& host, const std::string& name) {
    const std::vector<Tool> pinned = host.tool_definitions(name);
    std::cout << "approved '" << one_line(name) << "'; " << pinned.size() << " tool definition(s) pinned\n";
    if (!pinned.empty()) print_approved_definitions(std::cout, name, pinned);
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
        throw Error(ErrorKind::Usage, "usage: mcph add [--scope local|project|user] <name> <command> [args...] | <name> <url> | <name> '<json>'");
    const std::string scope = o.scope.empty() ? "local" : o.scope;
    host.save_server(scope, o.args[0], entry_from_args(o.args));
    std::cout << "added '" << one_line(o.args[0]) << "' (" << scope << " scope)\n";
    return 0;
}

int cmd_remove(Host& host, const Options& o) {
    const std::string& name = server_arg(o, "mcph remove [--scope local|project|user] <name>");
    if (!host.remove_saved_server(name, o.scope))
        throw Error(ErrorKind::NotFound, "no saved definition of '" + name + "'" + (o.scope.empty() ? "" : " in " + o.scope + " scope"));
    std::cout << "removed '" << one_line(name) << "'\n";
    return 0;
}

int cmd_enable(Host& host, const Options& o) {
    const std::string& name = server_arg(o, "mcph enable <name>");
    host.enable(name);
    std::cout << "enabled '" << one_line(name) << "'\n";
    return 0;
}

int cmd_disable(Host& host, const Options& o) {
    const std::string& name = server_arg(o, "mcph disable <name>");
    host.disable(name);
    std::cout << "disabled '" << one_line(name) << "'\n";
    return 0;
}

// What is being approved, as written: the person approving reads the command line or URL, and the
// environment variables the definition will read (a header with ${GITHUB_TOKEN} sends that token).
void show_definition(const ServerDefinition& d) {
    std::cerr << "mcph: approving '" << one_line(d.name) << "' (" << one_line(d.scope) << " scope, " << one_line(d.origin)
              << "):\n"
              << terminal_safe(d.definition_json) << "\n";
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
    show_approval(host, name);
    return 0;
}

int cmd_migrate_local(Host& host, const Options& o) {
    if (!o.args.empty()) throw Error(ErrorKind::Usage, "usage: mcph migrate-local");
    const ConfigReport report = host.config_report();
    const std::string from = report.legacy_local_settings;
    const auto to = host.migrate_local_settings();
    std::cout << "moved " << (from.empty() ? std::string("the project's .mcph/settings.local.json") : from) << " to "
              << to.string() << " (your local settings for this project)\n";
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
    host.reconnect(name);
    std::cout << "reconnected '" << one_line(name) << "'\n";
    return 0;
}

}  // namespace mcph::cli
