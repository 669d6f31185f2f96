#include "shell.hpp"

#include "command_table.hpp"
#include "commands.hpp"
#include "exit_codes.hpp"
#include "json_output.hpp"
#include "interactive.hpp"
#include "shell_editor.hpp"
#include "shell_events.hpp"
#include "shell_connects.hpp"

#include <mcph/error.hpp>
#include <mcph/text.hpp>

#include "libedit.hpp"  // Tokenizer, libedit()

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace mcph::cli {
namespace {

constexpr const char* kShellHelp =
    "\nIn the shell: the commands above without `mcph` (e.g. `tools`, `call mem/recall '{\"key\":\"a\"}'`,\n"
    "`status`), `help <command>`, and `exit [N]` / `quit`. Servers stay connected between commands.\n"
    "Tab completes commands, servers and tools; Ctrl-C cancels a running call or clears the line\n"
    "(or stops waiting for servers still connecting: they go on, and their outcome is printed);\n"
    "Ctrl-D ends. Global options (--mcp-config, --plugin-dir, --strict-mcp-config) are given to\n"
    "`mcph shell` itself.\n";

// The history file: <config home>/shell_history, the config home as the library finds it
// ($MCPH_CONFIG_HOME, else $XDG_CONFIG_HOME/mcph, else ~/.config/mcph). Empty: no history file.
std::filesystem::path history_file() {
    const auto env = [](const char* name) -> std::string {
        const char* v = std::getenv(name);
        return v ? v : "";
    };
    if (!env("MCPH_CONFIG_HOME").empty()) return std::filesystem::path(env("MCPH_CONFIG_HOME")) / "shell_history";
    if (!env("XDG_CONFIG_HOME").empty()) return std::filesystem::path(env("XDG_CONFIG_HOME")) / "mcph" / "shell_history";
    if (!env("HOME").empty()) return std::filesystem::path(env("HOME")) / ".config" / "mcph" / "shell_history";
    return {};
}

// A server's log line, as the one-shot CLI prints it (every part the server's: escaped, one line).
void print_log(const std::string& server, const std::string& level, const std::string& logger, const JsonValue& data) {
    const std::string text = data.IsString() ? std::string(data.GetString(), data.GetStringLength()) : to_json(data);
    print_console_line("[" + terminal_safe(server, LineBreaks::Escape) +
                       (logger.empty() ? "" : "/" + terminal_safe(logger, LineBreaks::Escape)) + " " +
                       terminal_safe(level, LineBreaks::Escape) + "] " + terminal_safe(text, LineBreaks::Escape));
}

// Live lines go through the console, so they never cut into the line being typed.
void route_live_lines(HostOptions& ho) {
    ho.callbacks.on_log = print_log;
    ho.callbacks.on_list_changed = [](const std::string& server, const std::string& list) {
        print_console_line("mcph: " + terminal_safe(list, LineBreaks::Escape) + " of " +
                           terminal_safe(server, LineBreaks::Escape) + " changed");
    };
}

std::vector<std::string> completions(Host& host, bool first) {
    std::vector<std::string> out;
    if (first) {
        out = command_names();
        for (const char* extra : {"exit", "quit", "help"}) out.emplace_back(extra);
        return out;
    }
    out = host.server_names();
    for (const auto& t : host.tools()) {
        out.push_back(t.mapped_name);
        out.push_back(t.server + "/" + t.name);
    }
    return out;
}

void say_error(const std::string& message) { std::cerr << "mcph: error: " << terminal_safe(message) << "\n" << std::flush; }

// One command line, already split into words: its exit status.
int execute(Host& host, const Options& shell, ShellConnects& connects, const std::vector<std::string>& words) {
    std::vector<std::string> argv_s = {"mcph"};
    argv_s.insert(argv_s.end(), words.begin(), words.end());
    std::vector<char*> argv;
    for (auto& w : argv_s) argv.push_back(w.data());
    argv.push_back(nullptr);
    // `mcph shell --json`, or a line's own --json: its failure is also one JSON document on stdout,
    // as a one-shot command's is. Before parsing, a --json word counts (a usage error is JSON too).
    bool json = shell.json;
    for (const auto& w : words) {
        if (w == "--") break;
        json = json || w == "--json";
    }
    const auto fail = [&json](const std::string& kind, const std::string& message, int code) {
        say_error(message);
        if (json) print_json_error(kind, message, code);
        return code;
    };
    try {
        Options o = parse_options(static_cast<int>(argv_s.size()), argv.data());
        json = shell.json || o.json;  // parsed: `add s cmd --json` gives --json to the server
        o.json = json;
        for (const auto& w : o.warnings) std::cerr << "mcph: warning: " << w << "\n";
        if (!o.mcp_configs.empty() || !o.plugin_dirs.empty() || o.strict_mcp_config || !o.roots.empty())
            throw Error(ErrorKind::Usage, "--mcp-config, --plugin-dir, --root and --strict-mcp-config are options of "
                                          "`mcph shell` itself: the shell's host is made once");
        if (o.help && !o.command.empty()) {
            std::cout << command_help(*find_command(o.command)) << std::flush;
            return kExitOk;
        }
        if (o.help || o.command.empty()) {
            std::cout << usage_text() << kShellHelp << std::flush;
            return o.help ? kExitOk : kExitUsage;
        }
        if (!o.timeout) o.timeout = shell.timeout;
        o.debug = shell.debug;
        o.is_cancelled = [] { return LineEditor::interrupted(); };
        o.run_connect = [&connects](std::function<void()> step, const std::vector<std::string>& servers) {
            connects.run_for_command(std::move(step), servers);
        };
        const int status = run_on_host(host, o);
        std::cout << std::flush;
        return status;
    } catch (const ConnectWaitStopped& e) {
        std::cerr << "mcph: " << terminal_safe(e.what()) << "\n" << std::flush;
        if (json) print_json_error("cancelled", e.what(), kExitCancelled);
        return kExitCancelled;
    } catch (const AuthNeeded& e) {
        return fail("auth-needed", std::string(e.what()) + " (sign in with `login " + e.server() + "`)", kExitAuthNeeded);
    } catch (const Error& e) {
        if (e.kind() == ErrorKind::Cancelled) {
            std::cerr << "mcph: cancelled (the server was sent notifications/cancelled)\n" << std::flush;
            if (json) print_json_error("cancelled", e.what(), kExitCancelled);
            return kExitCancelled;
        }
        return fail(to_string(e.kind()), e.what(), exit_code_for(e.kind()));
    } catch (const std::exception& e) {
        return fail("internal", std::string("internal error: ") + e.what(), kExitFailure);
    }
}

// Splits a line into words as sh does (quotes, backslashes) with libedit's tokenizer, rather
// than a parser of our own. nullopt (and a message) for an unmatched quote.
std::optional<std::vector<std::string>> split_words(Tokenizer* tok, const std::string& line) {
    int argc = 0;
    const char** argv = nullptr;
    const int rc = libedit().tok_str(tok, line.c_str(), &argc, &argv);
    std::optional<std::vector<std::string>> out;
    if (rc == 0) out.emplace(argv, argv + argc);
    libedit().tok_reset(tok);
    if (!out) say_error(rc > 0 ? "unmatched quote in the line" : "cannot split the line into words");
    return out;
}

// Without a terminal: one line from stdin, bounded. nullopt at the end of input.
std::optional<std::string> read_script_line(bool& too_long) {
    std::string line;
    too_long = false;
    int c = 0;
    bool any = false;
    while ((c = std::getchar()) != EOF) {
        any = true;
        if (c == '\n') return line;
        if (line.size() < kMaxShellLineBytes) line.push_back(static_cast<char>(c));
        else too_long = true;
    }
    if (!any) return std::nullopt;
    return line;
}

// `exit [N]` / `quit`: the status to exit with, or nullopt when the line is not one.
std::optional<int> exit_request(const std::vector<std::string>& words, int last) {
    if (words.empty() || (words[0] != "exit" && words[0] != "quit")) return std::nullopt;
    if (words.size() == 1) return last;
    try {
        return std::stoi(words[1]) & 0xff;
    } catch (const std::exception&) {
        say_error("exit takes a number, not '" + words[1] + "'");
        return kExitUsage;
    }
}

}  // namespace

int run_shell(const Options& options) {
    if (!options.args.empty()) throw Error(ErrorKind::Usage, "usage: mcph shell (commands are typed in it)");
    auto announcer = std::make_shared<ConnectAnnouncer>();
    auto host = make_host(options, {}, [announcer](HostOptions& ho) {
        route_live_lines(ho);
        ho.on_state_change = [announcer](const std::string& server, const ConnectionState& state) {
            announcer->on_state_change(server, state);
        };
    });
    const bool terminal = stdin_is_tty();
    std::unique_ptr<Tokenizer, void (*)(Tokenizer*)> tok(libedit().tok_init(nullptr), libedit().tok_end);
    std::unique_ptr<LineEditor> editor;
    // Before connecting: the editor's SIGINT handler is what lets Ctrl-C end the start-up wait.
    if (terminal)
        editor = std::make_unique<LineEditor>(history_file(), [&host](bool first) { return completions(*host, first); });
    // Every server connects before the first prompt; at a terminal Ctrl-C stops the wait, and the
    // servers still connecting go on (shell_connects.hpp). Commands then find them live.
    ShellConnects connects(*host, announcer, terminal);
    const auto started = connects.run([&host = *host] { host.connect_all(); });
    const std::vector<std::string>& still_connecting = started.still_connecting;
    if (started.stopped && !still_connecting.empty())
        std::cerr << "mcph shell: stopped waiting for " << server_list(still_connecting) << "; "
                  << still_connecting_note(still_connecting.size()) << "\n";
    for (const auto& s : host->status())
        if (s.state == "failed" && std::find(still_connecting.begin(), still_connecting.end(), s.name) == still_connecting.end())
            print_console_line("mcph: server '" + terminal_safe(s.name, LineBreaks::Escape) +
                               "' failed: " + terminal_safe(s.error, LineBreaks::Escape));
    if (terminal) {
        std::size_t live = 0;
        for (const auto& name : host->server_names()) live += host->session(name) ? 1 : 0;
        std::cerr << "mcph shell: " << live << " of " << host->server_names().size()
                  << " servers connected. `help` lists the commands; Tab completes; Ctrl-D or `exit` ends.\n";
    }
    int last = kExitOk;
    for (;;) {
        std::optional<std::string> line;
        bool too_long = false;
        if (editor) {
            prompt_owns_console(true);
            line = editor->read_line("mcph> ");
            prompt_owns_console(false);
        } else {
            line = read_script_line(too_long);
        }
        if (!line) break;
        if (too_long) {
            say_error("a line longer than " + std::to_string(kMaxShellLineBytes) + " bytes was not run");
            last = kExitUsage;
            continue;
        }
        auto words = split_words(tok.get(), *line);
        if (!words) {
            last = kExitUsage;
            continue;
        }
        if (words->empty() || (*words)[0].rfind('#', 0) == 0) continue;  // blank lines and comments
        if (auto code = exit_request(*words, last)) return *code;
        LineEditor::take_interrupt();  // a Ctrl-C typed before the command does not cancel it
        last = execute(*host, options, connects, *words);
    }
    if (editor) std::cerr << "\n";
    return last;
}

}  // namespace mcph::cli
