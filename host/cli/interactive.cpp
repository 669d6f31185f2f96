#include "interactive.hpp"

#include "browser.hpp"
#include "console_line.hpp"
#include "elicitation_form.hpp"
#include "shell_events.hpp"
#include "subscribe_command.hpp"

#include <mcph/error.hpp>
#include <mcph/text.hpp>

#include <rapidjson/document.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <optional>
#include <string>
#include <unistd.h>

namespace mcph::cli {
namespace {

std::mutex& console_mutex() {
    static std::mutex m;
    return m;
}

// Set while `mcph shell` waits at its prompt (prompt_owns_console); read and written under
// console_mutex(), so a question is either over before the prompt starts or sees the flag.
bool g_prompt_owns_console = false;

// A question that arrives while the shell waits at its prompt is not asked: the form would read
// the line being typed there, which a server could use to collect it. Said above the prompt.
bool unasked_at_prompt(const std::string& server, const char* what) {
    if (!g_prompt_owns_console) return false;
    print_console_line("mcph: server '" + terminal_safe(server, LineBreaks::Escape) + "' asked for " + what +
                       " while no command was running: not asked (cancelled)");
    return true;
}

std::string ask(const std::string& question) {
    std::cerr << question << std::flush;
    return read_console_line().value_or(std::string());
}

std::string string_member(const JsonValue& v, const char* key) {
    if (!v.IsObject()) return {};
    auto it = v.FindMember(key);
    return it != v.MemberEnd() && it->value.IsString() ? std::string(it->value.GetString(), it->value.GetStringLength())
                                                       : std::string();
}

// The text of the last message the server wants sampled, for showing to the person.
std::string last_message_text(const JsonValue& params) {
    if (!params.IsObject() || !params.HasMember("messages") || !params["messages"].IsArray()) return {};
    const auto& messages = params["messages"].GetArray();
    if (messages.Empty()) return {};
    const JsonValue& last = messages[messages.Size() - 1];
    if (!last.IsObject() || !last.HasMember("content")) return {};
    return string_member(last["content"], "text");
}

Json sample_on_terminal(const std::string& server, const JsonValue& params) {
    std::lock_guard lock(console_mutex());
    if (unasked_at_prompt(server, "a model completion"))
        throw Error(ErrorKind::Remote, "the user was not asked: no command was running", -1);
    std::cerr << "\n[" << terminal_safe(server, LineBreaks::Escape) << "] asks for a model completion:\n  "
              << terminal_safe(last_message_text(params)) << "\n";
    std::string reply = ask("Type the reply (empty line declines): ");
    if (reply.empty()) throw Error(ErrorKind::Remote, "the user declined the sampling request", -1);
    Json result(rapidjson::kObjectType);
    auto& a = result.GetAllocator();
    result.AddMember("role", "assistant", a);
    JsonValue content(rapidjson::kObjectType);
    content.AddMember("type", "text", a);
    content.AddMember("text", JsonValue(reply.c_str(), a), a);
    result.AddMember("content", content, a);
    result.AddMember("model", "human-at-terminal", a);
    result.AddMember("stopReason", "endTurn", a);
    return result;
}

// Form mode: the fields asked and checked one by one (elicitation_form.cpp). URL mode: the URL is
// shown, and opened only when the person says so.
ElicitationResponse elicit_on_terminal(const ElicitationRequest& request) {
    std::lock_guard lock(console_mutex());
    if (unasked_at_prompt(request.server, request.mode == "url" ? "a URL to open" : "a form")) {
        ElicitationResponse cancelled;
        cancelled.action = "cancel";
        cancelled.content.SetObject();
        return cancelled;
    }
    if (request.mode == "url") return ask_url(request, read_console_line, std::cerr, open_in_browser);
    return ask_form(request, read_console_line, std::cerr);
}

}  // namespace

void prompt_owns_console(bool owns) {
    std::lock_guard lock(console_mutex());
    g_prompt_owns_console = owns;
}

bool stdin_is_tty() { return ::isatty(STDIN_FILENO) == 1; }
bool stderr_is_tty() { return ::isatty(STDERR_FILENO) == 1; }

ClientCallbacks make_cli_callbacks(bool interactive) {
    ClientCallbacks cb;
    if (interactive) {
        cb.sampling = sample_on_terminal;
        cb.elicitation = elicit_on_terminal;
    }
    // `mcph subscribe` waits for these; an update with no watch running is dropped.
    cb.on_resource_updated = note_resource_updated;
    cb.on_log = [](const std::string& server, const std::string& level, const std::string& logger,
                   const JsonValue& data) {
        std::lock_guard lock(console_mutex());
        // Every part is the server's: escaped, one line per message (a log line cannot forge others).
        const std::string text = data.IsString() ? std::string(data.GetString(), data.GetStringLength()) : to_json(data);
        std::cerr << "[" << terminal_safe(server, LineBreaks::Escape)
                  << (logger.empty() ? "" : "/" + terminal_safe(logger, LineBreaks::Escape)) << " "
                  << terminal_safe(level, LineBreaks::Escape) << "] " << terminal_safe(text, LineBreaks::Escape) << "\n";
    };
    return cb;
}

std::function<std::vector<Root>(const std::string& server)> fixed_roots(const std::vector<std::filesystem::path>& dirs) {
    std::vector<Root> roots;
    for (const auto& dir : dirs) {
        Root root = file_root(dir);  // `--root a --root ./a`: one root (both canonical already)
        if (std::none_of(roots.begin(), roots.end(), [&](const Root& r) { return r.uri == root.uri; })) roots.push_back(std::move(root));
    }
    return [roots](const std::string&) { return roots; };
}

std::function<void(const Progress&)> progress_printer(const std::string& label) {
    if (!stderr_is_tty()) return {};
    return [label = terminal_safe(label, LineBreaks::Escape)](const Progress& p) {
        std::lock_guard lock(console_mutex());
        std::cerr << "\r\033[K" << label << ": " << p.progress;
        if (p.total) std::cerr << "/" << *p.total;
        if (!p.message.empty()) std::cerr << " " << terminal_safe(p.message, LineBreaks::Escape);
        std::cerr << std::flush;
    };
}

}  // namespace mcph::cli
