#include "commands.hpp"

#include "browser.hpp"
#include "completion_scripts.hpp"
#include "config/file_read.hpp"
#include "config_commands.hpp"
#include "connect_notice.hpp"
#include "connect_step.hpp"
#include "content_output.hpp"
#include "import_command.hpp"
#include "did_you_mean.hpp"
#include "exit_codes.hpp"
#include "input_prompt.hpp"
#include "inputs_command.hpp"
#include "interactive.hpp"
#include "json_output.hpp"
#include "listing_commands.hpp"
#include "man_page.hpp"
#include "render.hpp"
#include "shell.hpp"
#include "shell_events.hpp"
#include "subscribe_command.hpp"
#include "wire_trace.hpp"

#include <mcph/error.hpp>
#include <mcph/text.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>
#include <variant>

namespace mcph::cli {
namespace {

std::string load_config_text(const std::string& source) {
    const auto first = source.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && source[first] == '{') return source;  // inline JSON
    const int fd = ::open(source.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error(ErrorKind::Usage, "cannot read --mcp-config file '" + source + "': " + std::strerror(errno));
    return config::read_to_end_and_close(fd, source);  // bounded like every other config file
}

Json parse_args_json(const std::vector<std::string>& args, std::size_t index) {
    if (args.size() <= index) return Json(rapidjson::kObjectType);
    Json doc = parse_json(args[index], "tool arguments");
    if (!doc.IsObject()) throw Error(ErrorKind::Usage, "arguments must be a JSON object, e.g. '{\"a\":1}'");
    return doc;
}

// Strings with their length, invalid UTF-8 replaced: the output parses whatever a server sent.
// One document with "schemaVersion"; a list goes under `member`.
void print_json(const JsonValue& value, const char* member = "result") { print_json_document(value, member); }

// Connects every configured server; a failure is reported on stderr and the rest go on.
void connect_all_reporting(Host& host, const Options& o) {
    connect_step(o, [&host] { host.connect_all(); });
    for (const auto& s : host.status())
        if (s.state == "failed") std::cerr << "mcph: server '" << one_line(s.name) << "' failed: " << terminal_safe(s.error) << "\n";
}

std::vector<std::shared_ptr<ClientSession>> live_sessions(Host& host) {
    std::vector<std::shared_ptr<ClientSession>> out;
    for (const auto& name : host.server_names())
        if (auto s = host.session(name)) out.push_back(s);
    if (out.empty()) throw Error(ErrorKind::Connection, "no server could be connected (see the errors above)");
    return out;
}

// The servers a mapped tool name may belong to, so `call` connects only those.
std::vector<std::string> candidate_servers(Host& host, const std::string& tool) {
    std::vector<std::string> out;
    for (const auto& name : host.server_names()) {
        std::string sanitized = name;
        for (char& c : sanitized)
            if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
        if (tool.rfind("mcp__" + sanitized.substr(0, 40), 0) == 0 || tool.rfind(name + "/", 0) == 0) out.push_back(name);
    }
    return out;
}

// A tool named after a server ("nosuch/read", "mcp__nosuch__read") that no configured server
// matches: the cause is the server, so say that rather than "not connected" or "no tool".
void require_named_server(Host& host, const std::string& tool) {
    std::string server;
    if (tool.rfind("mcp__", 0) == 0) {
        const auto end = tool.find("__", 5);
        if (end != std::string::npos) server = tool.substr(5, end - 5);
    } else if (const auto slash = tool.find('/'); slash != std::string::npos) {
        server = tool.substr(0, slash);
    }
    if (server.empty()) return;
    throw Error(ErrorKind::NotFound, "no server named '" + server + "' is configured (tool '" + tool + "')" +
                                         did_you_mean(server, host.server_names()));
}

// Every name a tool may be called by: mapped and server/original.
std::vector<std::string> tool_names(Host& host) {
    std::vector<std::string> out;
    for (const auto& t : host.tools()) {
        out.push_back(t.mapped_name);
        out.push_back(t.server + "/" + t.name);
    }
    return out;
}

// Where -o saved content: on stdout, or on stderr when stdout carries the --json document.
void print_saved(const std::vector<std::string>& paths, bool json) {
    for (const auto& p : paths) (json ? std::cerr : std::cout) << "saved " << one_line(p) << "\n";
}

int cmd_servers(Host& host, const Options& o) {
    if (o.json) {
        Json doc(rapidjson::kArrayType);
        auto& a = doc.GetAllocator();
        const auto str = [&a](const std::string& s) { return JsonValue(s.data(), static_cast<rapidjson::SizeType>(s.size()), a); };
        for (const auto& s : host.status()) {
            JsonValue v(rapidjson::kObjectType);
            v.AddMember("name", str(s.name), a);
            v.AddMember("type", str(s.type), a);
            v.AddMember("state", str(s.state), a);
            v.AddMember("scope", str(s.scope), a);
            v.AddMember("origin", str(s.origin), a);
            JsonValue shadows(rapidjson::kArrayType);
            for (const auto& sh : host.config_report().shadowed) {
                if (sh.name != s.name) continue;
                JsonValue h(rapidjson::kObjectType);
                h.AddMember("scope", str(sh.scope), a);
                h.AddMember("origin", str(sh.origin), a);
                shadows.PushBack(h, a);
            }
            v.AddMember("shadows", shadows, a);
            doc.PushBack(v, a);
        }
        print_json(doc, "servers");
        return 0;
    }
    for (const auto& s : host.status())
        std::cout << one_line(s.name) << "  [" << one_line(s.type) << ", " << one_line(s.scope) << "]  " << one_line(s.state)
                  << "  " << one_line(s.origin) << "\n";
    const ConfigReport report = host.config_report();
    for (const auto* list : {&report.unapproved, &report.denied, &report.suppressed_duplicates, &report.problems})
        for (const auto& e : *list)
            std::cout << one_line(e.name.empty() ? e.origin : e.name) << "  (not connected: " << one_line(e.reason) << ")\n";
    for (const auto& s : report.shadowed) std::cout << one_line(s.name) << "  (replaced: " << one_line(s.reason) << ")\n";
    if (host.server_names().empty() && report.unapproved.empty() && report.denied.empty() &&
        report.suppressed_duplicates.empty() && report.problems.empty() && report.shadowed.empty())
        std::cout << "(no servers configured)\n";
    return 0;
}

ToolDetail tool_detail(const Options& o) {
    if (o.full && o.brief) throw Error(ErrorKind::Usage, "--full and --brief exclude each other");
    return o.full ? ToolDetail::Full : o.brief ? ToolDetail::Summary : ToolDetail::Described;
}

int cmd_call(Host& host, const Options& o) {
    if (o.args.empty()) throw Error(ErrorKind::Usage, "usage: mcph call <tool> [json-args]");
    require_servers(host);
    const std::string& tool = o.args[0];
    Json args = parse_args_json(o.args, 1);
    auto candidates = candidate_servers(host, tool);
    if (candidates.empty()) require_named_server(host, tool);
    if (candidates.empty()) candidates = host.server_names();
    for (const auto& name : candidates) {
        try {
            connect_step(o, [&host, name] { host.connect(name); }, {name});
        } catch (const Error& e) {
            if (candidates.size() == 1 || e.kind() == ErrorKind::Cancelled) throw;  // Cancelled: Ctrl-C in the shell
            std::cerr << "mcph: server '" << one_line(name) << "' failed: " << terminal_safe(e.what()) << "\n";
        }
    }
    RequestOptions ro;
    ro.on_progress = progress_printer(tool);
    ro.reset_timeout_on_progress = true;
    ro.is_cancelled = o.is_cancelled;  // the shell's Ctrl-C: notifications/cancelled, and the shell goes on
    // Progress keeps a long tool call alive, but --timeout is also the most it may take in total
    // (without --timeout the library's cap holds: ten request timeouts).
    if (o.timeout) ro.max_total_timeout = *o.timeout;
    CallToolResult result;
    try {
        result = host.call_tool(tool, args, ro);
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::NotFound) throw;
        throw Error(ErrorKind::NotFound, e.what() + did_you_mean(tool, tool_names(host)));
    }
    if (ro.on_progress) std::cerr << "\n";
    if (o.json) print_json(result.raw);
    else print_call_result(std::cout, result);
    if (!o.output.empty()) print_saved(save_call_content(result.raw, o.output, o.force), o.json);
    return result.is_error ? 1 : 0;
}

// The shell's Ctrl-C (Options::is_cancelled) for a request other than a tool call: it ends in
// notifications/cancelled and Error(Cancelled), and the shell goes on. Outside the shell: none.
RequestOptions shell_request_options(const Options& o) {
    RequestOptions ro;
    ro.is_cancelled = o.is_cancelled;
    return ro;
}

int cmd_read(Host& host, const Options& o) {
    if (o.args.empty()) throw Error(ErrorKind::Usage, "usage: mcph read <uri> [server]");
    require_servers(host);
    const std::string& uri = o.args[0];
    std::vector<std::shared_ptr<ClientSession>> sessions;
    if (o.args.size() > 1) sessions.push_back(connect_named(host, o, o.args[1]));
    else {
        connect_all_reporting(host, o);
        sessions = live_sessions(host);
    }
    std::optional<Error> last;
    for (auto& s : sessions) {
        if (!s->has_capability("resources")) continue;
        try {
            Json result = s->read_resource(uri, shell_request_options(o));
            if (!o.output.empty()) {
                print_saved(save_read_result(result, o.output, o.force), o.json);
                if (o.json) print_done(true, "saved the resource '" + uri + "' to " + o.output);
                return 0;
            }
            if (o.json) print_json(result);
            else print_read_result(std::cout, result);
            return 0;
        } catch (const Error& e) {
            if (e.kind() != ErrorKind::Remote) throw;
            last = e;
        }
    }
    if (last) throw *last;
    throw Error(ErrorKind::NotFound, "no connected server offers resources");
}

// `mcph skills [server]` lists skills (nothing of a skill is read); `mcph skills load <server>
// <skill>` loads one, which reads and verifies its SKILL.md, and prints it.
int cmd_skill_load(Host& host, const Options& o) {
    if (o.args.size() != 3) throw Error(ErrorKind::Usage, "usage: mcph skills load <server> <skill name or uri>");
    auto session = connect_named(host, o, o.args[1]);
    LoadedSkill loaded;
    try {
        loaded = session->load_skill(o.args[2]);
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::NotFound) throw;
        throw Error(ErrorKind::NotFound, std::string(e.what()) + " (run `mcph skills " + o.args[1] + "`)");
    }
    if (o.json) print_json(loaded_skill_json(loaded));
    else std::cout << terminal_safe(loaded.content) << (loaded.content.empty() || loaded.content.back() == '\n' ? "" : "\n");
    return 0;
}

int cmd_skills(Host& host, const Options& o) {
    require_servers(host);
    if (!o.args.empty() && o.args[0] == "load" && o.args.size() > 1) return cmd_skill_load(host, o);
    if (o.args.size() > 1) throw Error(ErrorKind::Usage, "usage: mcph skills [server] | mcph skills load <server> <skill>");
    std::vector<std::shared_ptr<ClientSession>> sessions;
    if (!o.args.empty()) {
        sessions.push_back(connect_named(host, o, o.args[0]));
        if (!sessions[0]->offers_skills()) sessions[0]->list_skills();  // throws: says the server lacks the extension
    } else {
        connect_all_reporting(host, o);
        sessions = live_sessions(host);
    }
    std::vector<Skill> all;
    for (auto& s : sessions)
        if (s->offers_skills())
            for (auto& skill : s->list_skills()) all.push_back(std::move(skill));
    if (o.json) print_json(skills_json(all), "skills");
    else print_skills(std::cout, all);
    return 0;
}

int cmd_prompt(Host& host, const Options& o) {
    if (o.args.empty()) throw Error(ErrorKind::Usage, "usage: mcph prompt <name|server/name> [json-args]");
    require_servers(host);
    std::string name = o.args[0];
    std::string server;
    if (auto slash = name.find('/'); slash != std::string::npos) {
        server = name.substr(0, slash);
        name = name.substr(slash + 1);
    }
    Json args = parse_args_json(o.args, 1);
    if (!server.empty()) connect_named(host, o, server);
    else connect_all_reporting(host, o);
    for (auto& s : live_sessions(host)) {
        if ((!server.empty() && s->server_name() != server) || !s->has_capability("prompts")) continue;
        for (const Prompt& p : s->cached_prompts()) {
            if (p.name != name) continue;
            Json result = s->get_prompt(name, args, shell_request_options(o));
            if (o.json) print_json(result);
            else print_prompt_result(std::cout, result);
            return 0;
        }
    }
    throw Error(ErrorKind::NotFound, "no prompt named '" + o.args[0] + "' (run `mcph prompts`)");
}

// `status` as a health check: 3 when a server failed, else 4 when one needs auth, else 0.
int status_exit_code(Host& host) {
    int code = kExitOk;
    for (const auto& s : host.status()) {
        if (std::holds_alternative<state::Failed>(s.connection)) return kExitFailure;
        if (std::holds_alternative<state::NeedsAuth>(s.connection)) code = kExitAuthNeeded;
    }
    return code;
}

int cmd_status(Host& host, const Options& o) {
    connect_step(o, [&host] { host.connect_all(); });
    Json status = host.status_json();
    if (o.json) {
        print_json(status);
        return status_exit_code(host);
    }
    print_status(std::cout, status);
    // Sub-agents, and agent files that could not be used (docs/agents.md).
    const AgentCatalog agents = host.agents();
    for (const auto& p : agents.problems) std::cout << "agent file not loaded: " << one_line(p.message) << "\n";
    for (const auto& a : agents.agents)
        if (!a.approved) std::cout << "agent '" << one_line(a.name) << "' not used: " << one_line(a.unapproved_reason) << "\n";
    return status_exit_code(host);
}

int cmd_login(Host& host, const Options& o) {
    if (o.args.empty()) throw Error(ErrorKind::Usage, "usage: mcph login <server>");
    host.login(o.args[0]);
    print_done(o.json, "logged in to '" + one_line(o.args[0]) + "'");
    return 0;
}

int cmd_logout(Host& host, const Options& o) {
    if (o.args.empty()) throw Error(ErrorKind::Usage, "usage: mcph logout <server>");
    host.logout(o.args[0]);
    print_done(o.json, "logged out of '" + one_line(o.args[0]) + "'; stored credentials removed");
    return 0;
}

int cmd_plugins(Host& host, const Options& o) {
    // plugins() loads each plugin not loaded yet, so that every one shows loaded or refused (a
    // manifest that lies is found out); status_json() then lists them as they now are.
    const auto& plugins = host.plugins();
    if (o.json) print_json(host.status_json()["plugins"], "plugins");
    else print_plugins(std::cout, plugins);
    return 0;
}

// ---- sub-agents (--agent NAME, `mcph agents`) -------------------------------------------------

// Opens the agent's overlay and says which of its servers could not be connected (the reason was
// logged on stderr as it happened).
std::unique_ptr<Overlay> open_agent(Host& host, const Options& o) {
    auto overlay = host.open_overlay(o.agent);
    for (const auto& name : overlay->server_names())
        if (!overlay->session(name))
            std::cerr << "mcph: agent '" << one_line(o.agent) << "': server '" << one_line(name) << "' is not connected\n";
    return overlay;
}

int cmd_agent_tools(Host& host, const Options& o) {
    auto overlay = open_agent(host, o);
    std::vector<Tool> tools;
    for (auto& t : overlay->tools())
        if (o.args.empty() || t.server == o.args[0]) tools.push_back(std::move(t));
    if (o.json) print_json(tools_json(tools), "tools");
    else print_tools(std::cout, tools, tool_detail(o), terminal_width());
    return 0;
}

int cmd_agent_call(Host& host, const Options& o) {
    if (o.args.empty()) throw Error(ErrorKind::Usage, "usage: mcph --agent <name> call <tool> [json-args]");
    const std::string& tool = o.args[0];
    Json args = parse_args_json(o.args, 1);
    auto overlay = open_agent(host, o);
    RequestOptions ro;
    ro.on_progress = progress_printer(tool);
    ro.reset_timeout_on_progress = true;
    if (o.timeout) ro.max_total_timeout = *o.timeout;
    CallToolResult result = overlay->call_tool(tool, args, ro);
    if (ro.on_progress) std::cerr << "\n";
    if (o.json) print_json(result.raw);
    else print_call_result(std::cout, result);
    return result.is_error ? 1 : 0;
}

void print_agent(const AgentDefinition& a) {
    std::cout << one_line(a.name) << "  [" << agent_source_name(a.source)
              << (a.plugin_source.empty() ? "" : ": " + one_line(a.plugin_source)) << "]  " << one_line(a.origin) << "\n";
    if (!a.description.empty()) std::cout << "  " << one_line(a.description) << "\n";
    for (const auto& s : a.servers) {
        if (!s.reference.empty()) std::cout << "  uses " << one_line(s.reference) << " (the parent's connection)\n";
        else std::cout << "  runs " << one_line(s.name) << " " << terminal_safe(s.config_json) << "\n";
    }
    if (!a.approved) std::cout << "  (not used: " << one_line(a.unapproved_reason) << ")\n";
    for (const auto& origin : a.shadows) std::cout << "  (replaces the definition in " << one_line(origin) << ")\n";
}

int cmd_agents(Host& host, const Options& o) {
    if (o.json) {  // the "agents" member of the status view
        Json status = host.status_json();
        Json doc;
        static_cast<JsonValue&>(doc).Swap(status["agents"]);
        print_json(doc, "agents");
        return 0;
    }
    const AgentCatalog catalog = host.agents();
    if (catalog.agents.empty()) std::cout << "(no agents defined)\n";
    for (const auto& a : catalog.agents) print_agent(a);
    for (const auto& p : catalog.problems) std::cout << "not loaded: " << one_line(p.message) << "\n";
    return 0;
}

// `mcph approve --agent NAME`: what the agent would run is shown before it is approved.
int cmd_agent_approve(Host& host, const Options& o) {
    if (!o.args.empty()) throw Error(ErrorKind::Usage, "usage: mcph approve --agent <name>");
    if (!o.json)  // with --json, stdout has only the document
        for (const auto& a : host.agents().agents)
            if (a.name == o.agent) print_agent(a);
    host.approve_agent(o.agent);
    print_done(o.json, "approved agent '" + one_line(o.agent) + "' as its file is now; a change to the file needs approval again");
    return 0;
}

int run_agent_command(Host& host, const Options& o) {
    if (o.command == "tools") return cmd_agent_tools(host, o);
    if (o.command == "call") return cmd_agent_call(host, o);
    if (o.command == "approve") return cmd_agent_approve(host, o);
    throw Error(ErrorKind::Usage, "--agent works with tools, call and approve, not '" + o.command + "'");
}

}  // namespace

namespace {

// A --mcp-config document. A malformed one (or one with a malformed entry) is refused whole and is
// a usage error. One whose entries load but some cannot be used (an input nobody could answer, an
// unset variable) is added all the same — Host::add_config_json then throws the first problem,
// already recorded in the config report under this origin: the command goes on with the other
// servers, as a bad entry of a layered config file costs only itself, and says what was left out.
void add_mcp_config(Host& host, const std::string& text, const std::string& origin, const std::filesystem::path& file) {
    try {
        host.add_config_json(text, origin, file);
    } catch (const Error&) {
        bool recorded = false;
        for (const auto& problem : host.config_report().problems) recorded = recorded || problem.origin == origin;
        if (!recorded) throw;
        for (const auto& problem : host.config_report().problems)
            if (problem.origin == origin)
                std::cerr << "mcph: warning: " << terminal_safe(origin, LineBreaks::Escape) << ": server '"
                          << terminal_safe(problem.name, LineBreaks::Escape) << "' left out: "
                          << terminal_safe(problem.reason, LineBreaks::Escape) << "\n";
    }
}

}  // namespace

std::unique_ptr<Host> make_host(const Options& options, const std::string& extra_config_json,
                                const std::function<void(HostOptions&)>& adjust) {
    HostOptions ho;
    ho.plugin_dirs = options.plugin_dirs;
    if (options.timeout) ho.request_timeout = *options.timeout;
    if (options.connect_timeout) ho.connect_timeout = *options.connect_timeout;
    // `list` is a health check: a server that has not connected in a few seconds is reported
    // rather than waited for (--timeout or --connect-timeout set the bound).
    if (options.command == "list" && !options.connect_timeout)
        ho.connect_timeout = options.timeout.value_or(std::chrono::milliseconds(5000));
    const bool interactive = stdin_is_tty() && stderr_is_tty();
    ho.callbacks = make_cli_callbacks(interactive);
    // --root replaces the configured roots for this run (the shell's host too: one callback).
    if (!options.roots.empty()) ho.callbacks.roots = fixed_roots(options.roots);
    // A browser sign-in only when someone is there to finish it (or asked for it with `login`):
    // a script meeting a 401 gets "needs-auth, run mcph login" at once instead of a long wait.
    if (interactive || options.command == "login") ho.open_url = open_in_browser;
    // VS Code `inputs`: asked of a person, once (the library keeps the answer); without a terminal
    // the server needing one is a config problem naming the input.
    if (interactive) ho.ask_input = ask_input_on_terminal;
    // Every config layer, unless told to use --mcp-config only; the demo runs on its own config.
    ho.load_layered_config = !options.strict_mcp_config && options.command != "demo";
    if (wire_trace_requested(options))
        ho.wire_trace = wire_tracer([](const std::string& line) { print_console_line(line); });
    if (adjust) adjust(ho);
    auto host = std::make_unique<Host>(std::move(ho));
    if (!extra_config_json.empty()) host->add_config_json(extra_config_json, "demo");
    // A file's inputs are kept under its canonical path (Host::add_config_json): asked once however
    // the path is typed. Messages keep the path as typed.
    for (const auto& source : options.mcp_configs) {
        const bool inline_json = source.rfind('{', 0) == 0;
        add_mcp_config(*host, load_config_text(source), "--mcp-config " + (inline_json ? "(inline)" : source),
                       inline_json ? std::filesystem::path() : std::filesystem::path(source));
    }
    return host;
}

namespace {

using Handler = int (*)(Host&, const Options&);

const std::map<std::string, Handler>& command_handlers() {
    static const std::map<std::string, Handler> kCommands = {
        {"servers", cmd_servers},     {"tools", cmd_tools},   {"call", cmd_call},     {"resources", cmd_resources},
        {"read", cmd_read},           {"skills", cmd_skills},   {"prompts", cmd_prompts}, {"prompt", cmd_prompt}, {"status", cmd_status},
        {"plugins", cmd_plugins},     {"login", cmd_login},   {"logout", cmd_logout},
        {"add", cmd_add},             {"remove", cmd_remove}, {"enable", cmd_enable}, {"disable", cmd_disable},
        {"approve", cmd_approve},     {"reconnect", cmd_reconnect}, {"migrate-local", cmd_migrate_local},
        {"agents", cmd_agents},       {"add-json", cmd_add_json}, {"get", cmd_get},
        {"list", cmd_list},           {"templates", cmd_templates}, {"complete", cmd_complete}, {"log-level", cmd_log_level},
        {"import", cmd_import},        {"subscribe", cmd_subscribe},
        {"inputs", cmd_inputs},
    };
    return kCommands;
}

Handler handler_for(const std::string& command) {
    auto it = command_handlers().find(command);
    if (it == command_handlers().end()) throw Error(ErrorKind::Usage, "unknown command '" + command + "' (see mcph --help)");
    return it->second;
}

int run_handler(Host& host, const Options& o, Handler handler) {
    try {
        if (!o.agent.empty()) return run_agent_command(host, o);
        return handler(host, o);
    } catch (const Error& e) {
        // A connection that failed because a server wants a sign-in is exit 4, not 3: the fix is
        // `mcph login`, not the server's command line.
        if (e.kind() != ErrorKind::Connection && e.kind() != ErrorKind::Protocol) throw;
        for (const auto& s : host.status())
            if (std::holds_alternative<state::NeedsAuth>(s.connection))
                throw AuthNeeded(s.name, std::string(e.what()) + " (server '" + s.name + "' needs authentication)");
        throw;
    }
}

}  // namespace

int run_on_host(Host& host, const Options& o) {
    if (o.command == "demo" || o.command == "shell")
        throw Error(ErrorKind::Usage, "`" + o.command + "` cannot run inside the shell (run `mcph " + o.command + "`)");
    return run_handler(host, o, handler_for(o.command));
}

int run_command(const Options& o) {
    if (o.command == "demo") return run_demo(o);
    if (o.command == "shell") return run_shell(o);
    // Generated from the command table; nothing to connect (`completion servers` reads the config).
    if (o.command == "completion") return run_completion(o);
    if (o.command == "man") return print_man_page();
    // Over a host that reads no config: listing or forgetting answers must not ask one.
    if (o.command == "inputs") return run_inputs(o);
    const Handler handler = handler_for(o.command);
    auto host = make_host(o);
    if (o.command != "migrate-local") offer_local_migration(*host, stdin_is_tty() && stderr_is_tty());
    if (!stderr_is_tty()) return run_handler(*host, o, handler);
    // At a terminal a server that does not answer is named while the command waits for it.
    Options at_terminal = o;
    at_terminal.run_connect = [&host = *host](std::function<void()> step, const std::vector<std::string>& servers) {
        run_with_connect_notice(host, step, servers);
    };
    return run_handler(*host, at_terminal, handler);
}

}  // namespace mcph::cli
