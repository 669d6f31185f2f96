// Listing commands that isolate servers: each server is asked on its own, so one that fails (a
// connection that did not come up, "Method not found" for a capability it advertised, a timeout)
// costs only its own line, and the others are shown. Also `list` (the health check), `complete`
// and `log-level`.
#include "listing_commands.hpp"

#include "connect_step.hpp"
#include "did_you_mean.hpp"
#include "exit_codes.hpp"
#include "json_output.hpp"
#include "render.hpp"

#include <mcph/error.hpp>
#include <mcph/text.hpp>

#include <unistd.h>

#include <array>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <variant>

namespace mcph::cli {
namespace {

// One server that could not answer a listing: typed (kind, exit code), not a sentence to match.
struct ServerFailure {
    std::string server;
    std::string kind;  // mcph::to_string(ErrorKind), or "auth-needed" for a server that needs a sign-in
    std::string message;
    int exit_code = kExitFailure;
};

struct Listing {
    std::size_t answered = 0;
    std::vector<std::string> without;  // answered, but does not offer the capability
    std::vector<ServerFailure> failures;
};

ServerFailure failure_of(Host& host, const std::string& server, const Error& e) {
    if (std::holds_alternative<state::NeedsAuth>(host.state(server)))
        return {server, "auth-needed", std::string(e.what()) + " (run `mcph login " + server + "`)", kExitAuthNeeded};
    return {server, to_string(e.kind()), e.what(), exit_code_for(e.kind())};
}

// A server connect_all did not connect, as a failure; nullopt when it is disabled (the user's
// choice, not a failure of the listing).
std::optional<ServerFailure> failure_from_state(Host& host, const std::string& server) {
    const ConnectionState st = host.state(server);
    if (const auto* f = std::get_if<state::Failed>(&st)) return ServerFailure{server, "connection", f->error, kExitFailure};
    if (const auto* n = std::get_if<state::NeedsAuth>(&st))
        return ServerFailure{server, "auth-needed", n->reason + " (run `mcph login " + server + "`)", kExitAuthNeeded};
    if (std::holds_alternative<state::Disabled>(st)) return std::nullopt;
    return ServerFailure{server, "connection", "not connected (" + std::string(state_name(st)) + ")", kExitFailure};
}

// Asks each server (the one named in o.args[0], else all) with `list`; `capability` is the one it
// must advertise to be asked at all. A single named server that fails throws its error (so the
// command exits with that error's code); otherwise each failure is recorded and the rest go on.
Listing ask_each(Host& host, const Options& o, const char* capability, const std::function<void(ClientSession&)>& list) {
    require_servers(host);
    if (o.args.size() > 1) throw Error(ErrorKind::Usage, "usage: mcph " + o.command + " [server] (see `mcph " + o.command + " --help`)");
    Listing out;
    if (!o.args.empty()) {
        auto session = connect_named(host, o, o.args[0]);
        ++out.answered;
        if (capability && !session->has_capability(capability)) out.without.push_back(o.args[0]);
        else list(*session);
        return out;
    }
    connect_step(o, [&host] { host.connect_all(); });
    for (const auto& name : host.server_names()) {
        auto session = host.session(name);
        if (!session) {
            if (auto f = failure_from_state(host, name)) out.failures.push_back(std::move(*f));
            continue;
        }
        ++out.answered;
        if (capability && !session->has_capability(capability)) {
            out.without.push_back(name);
            continue;
        }
        try {
            list(*session);
        } catch (const Error& e) {
            --out.answered;
            out.failures.push_back(failure_of(host, name, e));
        }
    }
    return out;
}

// 0 when at least one server answered; else the failures' code: 4 when all need auth, 1 when all
// were the servers' own JSON-RPC errors, 3 otherwise.
int listing_exit_code(const Listing& l) {
    if (l.answered > 0 || l.failures.empty()) return kExitOk;
    bool all_auth = true, all_reported = true;
    for (const auto& f : l.failures) {
        all_auth = all_auth && f.exit_code == kExitAuthNeeded;
        all_reported = all_reported && f.exit_code == kExitReported;
    }
    return all_auth ? kExitAuthNeeded : all_reported ? kExitReported : kExitFailure;
}

JsonValue listing_json_string(const std::string& s, Json::AllocatorType& a) {
    return JsonValue(s.data(), static_cast<rapidjson::SizeType>(s.size()), a);
}

// {"schemaVersion":1, <member>:[...], "errors":[{server,kind,message,exitCode}], "without":[names]}
void print_listing_json(Json items, const char* member, const Listing& l) {
    Json doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember(JsonValue(member, a), JsonValue(items, a), a);
    JsonValue errors(rapidjson::kArrayType);
    for (const auto& f : l.failures) {
        JsonValue e(rapidjson::kObjectType);
        e.AddMember("server", listing_json_string(f.server, a), a);
        e.AddMember("kind", listing_json_string(f.kind, a), a);
        e.AddMember("message", listing_json_string(f.message, a), a);
        e.AddMember("exitCode", f.exit_code, a);
        errors.PushBack(e, a);
    }
    doc.AddMember("errors", errors, a);
    JsonValue without(rapidjson::kArrayType);
    for (const auto& w : l.without) without.PushBack(listing_json_string(w, a), a);
    doc.AddMember("without", without, a);
    print_json_document(doc, member);
}

// The library's messages often start with "server 'X': " already: not twice on X's line.
std::string without_server_prefix(const std::string& server, const std::string& message) {
    const std::string prefix = "server '" + server + "': ";
    return message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
}

// The lines after the list: a server without the capability, and each failure.
void print_listing_notes(const Listing& l, const char* noun) {
    for (const auto& w : l.without) std::cout << "server '" << one_line(w) << "': no " << noun << "\n";
    for (const auto& f : l.failures)
        std::cout << "server '" << one_line(f.server) << "': "
                  << one_line(first_line_of(without_server_prefix(f.server, f.message), 300).line) << "\n";
}

// ---- mcph list ---------------------------------------------------------------------------------

// Colour only on a terminal, and never when NO_COLOR is set to anything (no-color.org).
bool use_colour() {
    const char* no_colour = std::getenv("NO_COLOR");
    return ::isatty(STDOUT_FILENO) == 1 && !(no_colour && *no_colour);
}

struct HealthRow {
    std::string name;
    std::string type;
    bool ok = false;
    std::string state;   // the connection state, or "config-problem", "unapproved", "denied", "duplicate"
    std::string detail;  // "(N tools)" when ok, else the reason
    std::size_t tools = 0;
    int exit_code = kExitOk;  // what this row contributes to the exit code (0: not a failure)
};

HealthRow row_of(const ServerStatus& s, const std::vector<Tool>& tools) {
    HealthRow r{s.name, s.type, false, s.state, {}, 0, kExitOk};
    if (std::holds_alternative<state::Connected>(s.connection)) {
        for (const auto& t : tools) r.tools += t.server == s.name;
        r.ok = true;
        r.detail = "(" + std::to_string(r.tools) + (r.tools == 1 ? " tool)" : " tools)");
    } else if (const auto* n = std::get_if<state::NeedsAuth>(&s.connection)) {
        r.detail = "needs authentication: " + n->reason + " (run `mcph login " + s.name + "`)";
        r.exit_code = kExitAuthNeeded;
    } else if (const auto* d = std::get_if<state::Disabled>(&s.connection)) {
        r.detail = "disabled: " + d->reason;
    } else if (const auto* f = std::get_if<state::Failed>(&s.connection)) {
        r.detail = "failed: " + without_server_prefix(s.name, f->error);
        r.exit_code = kExitFailure;
    } else {
        r.detail = "did not connect in time" + (s.error.empty() ? std::string() : ": " + s.error);
        r.exit_code = kExitFailure;
    }
    return r;
}

std::vector<HealthRow> health_rows(Host& host, const Options& o) {
    connect_step(o, [&host] { host.connect_all(); });
    const std::vector<Tool> tools = host.tools();
    std::vector<HealthRow> rows;
    for (const auto& s : host.status()) rows.push_back(row_of(s, tools));
    // The servers left out of the connection set, each with why; policy and duplicates are
    // decisions, not failures; a config problem or a pending approval needs the user.
    const ConfigReport report = host.config_report();
    const auto add = [&rows](const std::vector<ExcludedServer>& list, const char* state, const char* label, int code) {
        for (const auto& e : list)
            rows.push_back({e.name.empty() ? e.origin : e.name, "-", false, state, std::string(label) + ": " + e.reason, 0, code});
    };
    add(report.problems, "config-problem", "config problem", kExitFailure);
    add(report.unapproved, "unapproved", "awaiting approval (`mcph approve`)", kExitFailure);
    add(report.denied, "denied", "left out by policy", kExitOk);
    add(report.suppressed_duplicates, "duplicate", "left out as a duplicate", kExitOk);
    return rows;
}

int health_exit_code(const std::vector<HealthRow>& rows) {
    int code = kExitOk;
    for (const auto& r : rows) {
        if (r.exit_code == kExitFailure) return kExitFailure;
        if (r.exit_code == kExitAuthNeeded) code = kExitAuthNeeded;
    }
    return code;
}

void print_health_json(const std::vector<HealthRow>& rows) {
    Json doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    JsonValue list(rapidjson::kArrayType);
    for (const auto& r : rows) {
        JsonValue v(rapidjson::kObjectType);
        v.AddMember("name", listing_json_string(r.name, a), a);
        v.AddMember("type", listing_json_string(r.type, a), a);
        v.AddMember("ok", r.ok, a);
        v.AddMember("state", listing_json_string(r.state, a), a);
        if (r.ok) v.AddMember("tools", static_cast<uint64_t>(r.tools), a);
        else v.AddMember("reason", listing_json_string(r.detail, a), a);
        list.PushBack(v, a);
    }
    doc.AddMember("checks", list, a);
    print_json_document(doc, "checks");
}

}  // namespace

void require_servers(Host& host) {
    if (host.server_names().empty())
        throw Error(ErrorKind::Usage, "no servers configured: pass --mcp-config '{\"mcpServers\":{...}}', add one with "
                                      "`mcph add`, or try `mcph demo` (`mcph status` shows servers left out and why)");
}

std::shared_ptr<ClientSession> connect_named(Host& host, const Options& o, const std::string& name) {
    try {
        if (!o.run_connect) return host.connect(name);
        connect_step(o, [&host, name] { host.connect(name); }, {name});  // the shell: Ctrl-C stops waiting
        if (auto session = host.session(name)) return session;
        return host.connect(name);  // it dropped right after connecting: the attempt a one-shot command would make
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::NotFound) throw;
        throw Error(ErrorKind::NotFound, e.what() + did_you_mean(name, host.server_names()));
    }
}

int cmd_list(Host& host, const Options& o) {
    if (!o.args.empty()) throw Error(ErrorKind::Usage, "usage: mcph list [--json] [--timeout D]");
    const std::vector<HealthRow> rows = health_rows(host, o);
    if (o.json) {
        print_health_json(rows);
        return health_exit_code(rows);
    }
    if (rows.empty()) std::cout << "(no servers configured)\n";
    const bool colour = use_colour();
    for (const auto& r : rows) {
        const char* mark = r.ok ? "\u2714" : "\u2717";
        if (colour) std::cout << (r.ok ? "\033[32m" : "\033[31m") << mark << "\033[0m";
        else std::cout << mark;
        std::cout << " " << one_line(r.name) << "  " << one_line(r.type) << "  " << one_line(first_line_of(r.detail, 300).line)
                  << "\n";
    }
    return health_exit_code(rows);
}

int cmd_tools(Host& host, const Options& o) {
    if (o.full && o.brief) throw Error(ErrorKind::Usage, "--full and --brief exclude each other");
    std::vector<std::string> answered;
    // The tool list is read at connect: a server that connected has answered tools/list.
    const Listing l = ask_each(host, o, "tools", [&answered](ClientSession& s) { answered.push_back(s.server_name()); });
    std::vector<Tool> tools;
    for (auto& t : host.tools())
        for (const auto& name : answered)
            if (t.server == name) tools.push_back(std::move(t));
    if (o.json) {
        print_listing_json(tools_json(tools), "tools", l);
        return listing_exit_code(l);
    }
    const ToolDetail detail = o.full ? ToolDetail::Full : o.brief ? ToolDetail::Summary : ToolDetail::Described;
    print_tools(std::cout, tools, detail, terminal_width());
    std::vector<ServerStatus> considered;
    for (auto& s : host.status())
        if (o.args.empty() || s.name == o.args[0]) considered.push_back(std::move(s));
    print_withheld(std::cout, considered, detail);
    print_listing_notes(l, "tools");
    return listing_exit_code(l);
}

int cmd_resources(Host& host, const Options& o) {
    std::vector<Resource> all;
    const Listing l = ask_each(host, o, "resources", [&all](ClientSession& s) {
        for (auto& r : s.list_resources()) all.push_back(std::move(r));
    });
    if (o.json) print_listing_json(resources_json(all), "resources", l);
    else {
        print_resources(std::cout, all);
        print_listing_notes(l, "resources");
    }
    return listing_exit_code(l);
}

int cmd_prompts(Host& host, const Options& o) {
    std::vector<Prompt> all;
    const Listing l = ask_each(host, o, "prompts", [&all](ClientSession& s) {
        for (auto& p : s.list_prompts()) all.push_back(std::move(p));
    });
    if (o.json) print_listing_json(prompts_json(all), "prompts", l);
    else {
        print_prompts(std::cout, all);
        print_listing_notes(l, "prompts");
    }
    return listing_exit_code(l);
}

int cmd_templates(Host& host, const Options& o) {
    std::vector<ResourceTemplate> all;
    const Listing l = ask_each(host, o, "resources", [&all](ClientSession& s) {
        for (auto& t : s.list_resource_templates()) all.push_back(std::move(t));
    });
    if (o.json) print_listing_json(templates_json(all), "templates", l);
    else {
        if (all.empty()) std::cout << "(no resource templates)\n";
        print_templates(std::cout, all);
        print_listing_notes(l, "resource templates");
    }
    return listing_exit_code(l);
}

// `mcph complete <server> (--prompt NAME | --resource-template URI) <argument> [value]`
int cmd_complete(Host& host, const Options& o) {
    const char* usage = "usage: mcph complete <server> (--prompt NAME | --resource-template URI) <argument> [value]";
    if (o.args.size() < 2 || o.args.size() > 3 || o.complete_prompt.empty() == o.complete_template.empty())
        throw Error(ErrorKind::Usage, usage);
    auto session = connect_named(host, o, o.args[0]);
    Json ref(rapidjson::kObjectType);
    auto& a = ref.GetAllocator();
    if (!o.complete_prompt.empty()) {
        ref.AddMember("type", "ref/prompt", a);
        ref.AddMember("name", listing_json_string(o.complete_prompt, a), a);
    } else {
        ref.AddMember("type", "ref/resource", a);
        ref.AddMember("uri", listing_json_string(o.complete_template, a), a);
    }
    Json result = session->complete(ref, o.args[1], o.args.size() > 2 ? o.args[2] : std::string());
    if (!result.IsObject() || !result.HasMember("completion") || !result["completion"].IsObject() ||
        !result["completion"].HasMember("values") || !result["completion"]["values"].IsArray())
        throw Error(ErrorKind::Protocol, "server '" + o.args[0] + "' answered completion/complete without completion.values");
    JsonValue& completion = result["completion"];
    if (o.json) {
        Json doc(rapidjson::kObjectType);
        auto& da = doc.GetAllocator();
        JsonValue c(rapidjson::kObjectType);
        JsonValue values(rapidjson::kArrayType);
        for (const auto& v : completion["values"].GetArray())
            if (v.IsString()) values.PushBack(JsonValue(v, da), da);
        c.AddMember("values", values, da);
        if (completion.HasMember("total") && completion["total"].IsUint64()) c.AddMember("total", completion["total"].GetUint64(), da);
        if (completion.HasMember("hasMore") && completion["hasMore"].IsBool()) c.AddMember("hasMore", completion["hasMore"].GetBool(), da);
        doc.AddMember("completion", c, da);
        print_json_document(doc, "completion");
        return 0;
    }
    for (const auto& v : completion["values"].GetArray())
        if (v.IsString()) std::cout << one_line(std::string_view(v.GetString(), v.GetStringLength())) << "\n";
    if (completion.HasMember("hasMore") && completion["hasMore"].IsBool() && completion["hasMore"].GetBool())
        std::cout << "(more"
                  << (completion.HasMember("total") && completion["total"].IsUint64()
                          ? ": " + std::to_string(completion["total"].GetUint64()) + " in all"
                          : std::string())
                  << ")\n";
    return 0;
}

// `mcph log-level <server> <level>`: the spec's levels are RFC 5424's eight severities.
int cmd_log_level(Host& host, const Options& o) {
    if (o.args.size() != 2) throw Error(ErrorKind::Usage, "usage: mcph log-level <server> <level>");
    static const std::array<const char*, 8> kLevels = {"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"};
    const std::vector<std::string> levels(kLevels.begin(), kLevels.end());
    if (std::find(levels.begin(), levels.end(), o.args[1]) == levels.end())
        throw Error(ErrorKind::Usage, "invalid log level '" + o.args[1] +
                                          "' (use debug, info, notice, warning, error, critical, alert or emergency)" +
                                          did_you_mean(o.args[1], levels));
    auto session = connect_named(host, o, o.args[0]);
    session->set_logging_level(o.args[1]);
    print_done(o.json, "server '" + one_line(o.args[0]) + "' logs at level " + o.args[1] +
                           " (log lines it sends are printed on stderr)");
    return 0;
}

}  // namespace mcph::cli
