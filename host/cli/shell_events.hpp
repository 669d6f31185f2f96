// Lines that arrive while `mcph shell` waits for input — server log lines, "tools of X changed",
// the --debug wire trace — printed above the prompt without corrupting the line being typed.
// While the line editor waits, lines are queued (bounded) and the editor is woken to print them
// and redraw its line; otherwise (a command running, no shell at all) they go to stderr at once.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace mcph::cli {

// Queued lines at most while the editor waits; beyond it the oldest go, and one line says how
// many were dropped (a server flooding notifications cannot grow memory without bound).
inline constexpr std::size_t kMaxQueuedConsoleLines = 1000;

// One whole line (no trailing newline), already escaped for the terminal. Any thread.
void print_console_line(const std::string& line);

// The line editor: from attach (with the descriptor it polls, written one byte per queued line
// batch) to detach, lines queue instead of being printed.
void console_attach(int wake_fd);
void console_detach();
// The queued lines, and "(N lines dropped)" when the bound was hit; the queue is emptied.
std::vector<std::string> console_take();

}  // namespace mcph::cli
