// One line typed at the console for a question the host asks while a command runs: a form field,
// an ${input:...} value, a sampling reply.
#pragma once

#include <optional>
#include <string>

namespace mcph::cli {

// The line without its newline; nullopt at end of input, and in `mcph shell` at Ctrl-C. The
// shell's SIGINT handler restarts interrupted reads (so a Ctrl-C never breaks a write to the
// terminal), which means a blocked read would not see the Ctrl-C: at a terminal this waits in
// short polls that look at the shell's Ctrl-C flag. A Ctrl-D that ended the previous answer does
// not end this one at a terminal.
std::optional<std::string> read_console_line();

}  // namespace mcph::cli
