// How the CLI answers server→client requests: interactively when a person is at a terminal,
// declining cleanly otherwise (a script must never hang waiting for input nobody will type).
#pragma once

#include <mcph/callbacks.hpp>
#include <mcph/types.hpp>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace mcph::cli {

bool stdin_is_tty();
bool stderr_is_tty();

// Sampling and elicitation prompts on the terminal when `interactive`; server log lines to stderr.
ClientCallbacks make_cli_callbacks(bool interactive);

// Returns once no question of a server (a form, a sampling reply) holds the terminal: the shell
// waits for this before its prompt, so a question left by a cancelled command ends first (its
// Ctrl-C cancels it too) instead of reading the line meant for the prompt.
void wait_until_console_free();

// --root: every server is offered these directories (absolute, canonical) whatever its config says.
std::function<std::vector<Root>(const std::string& server)> fixed_roots(const std::vector<std::filesystem::path>& dirs);

// A progress line on stderr ("\r..."), only on a TTY; empty function otherwise.
std::function<void(const Progress&)> progress_printer(const std::string& label);

}  // namespace mcph::cli
