// The CLI's configuration commands: add, remove, enable, disable, approve, reconnect. They edit
// the files of the layered config (atomically, mode kept) through mcph::Host.
#include "config_commands.hpp"

#include "render.hpp"

#include <mcph/error.hpp>

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

int cmd_approve(Host& host, const Options& o) {
    const std::string& name = server_arg(o, "mcph approve <name>");
    host.approve(name);
    show_approval(host, name);
    return 0;
}

int cmd_reconnect(Host& host, const Options& o) {
    const std::string& name = server_arg(o, "mcph reconnect <name>");
    host.reconnect(name);
    std::cout << "reconnected '" << one_line(name) << "'\n";
    return 0;
}

}  // namespace mcph::cli
