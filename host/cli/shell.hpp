// `mcph shell`: an interactive session over one long-lived Host, so servers stay connected and
// the state they keep in memory survives between commands. The commands are the CLI's own, parsed
// with the same table (help included), plus `exit [N]` / `quit`.
//  - On a terminal: line editing, history (in the config home), tab completion of commands,
//    servers and tools; live server lines (log, list changes, --debug's trace) printed above the
//    prompt; Ctrl-C cancels a running call (notifications/cancelled) or clears the line; Ctrl-D ends.
//  - Without one (stdin a pipe or a file): one command per line, no prompt, results printed; at the
//    end of input it exits with the status of the last command (0 when none ran), as sh does.
#pragma once

#include "options.hpp"

namespace mcph::cli {

// Longest line read without a terminal; a longer one is refused (exit status 2), not grown.
inline constexpr std::size_t kMaxShellLineBytes = 1024 * 1024;
// The status of a command cancelled by Ctrl-C (128 + SIGINT, as a shell reports it).
inline constexpr int kExitCancelled = 130;

int run_shell(const Options& options);

}  // namespace mcph::cli
