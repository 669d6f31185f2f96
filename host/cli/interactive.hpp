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

// `mcph shell`'s prompt takes the terminal (true) and gives it back to the command it read
// (false). Taking it waits for a server's question being asked (a form, a sampling reply) to end
// (a cancelled command's Ctrl-C ends it too); while the prompt has it, a question that arrives is
// not asked but cancelled, with a line above the prompt: it would read the line typed there.
void prompt_owns_console(bool owns);

// --root: every server is offered these directories (absolute, canonical) whatever its config says.
std::function<std::vector<Root>(const std::string& server)> fixed_roots(const std::vector<std::filesystem::path>& dirs);

// A progress line on stderr ("\r..."), only on a TTY; empty function otherwise.
std::function<void(const Progress&)> progress_printer(const std::string& label);

}  // namespace mcph::cli
