#include "console_line.hpp"

#include "interactive.hpp"
#include "shell_editor.hpp"

#include <poll.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace mcph::cli {
namespace {

constexpr int kInterruptLookMs = 50;  // as often as a running call looks at the same flag

// Waits until the terminal has a line (canonical mode: readable means a whole line or end of
// input); false at Ctrl-C: one that arrives now, or one that already asked the running command to
// stop (the question belongs to that command).
bool wait_for_terminal_line() {
    const unsigned seen = LineEditor::interrupt_count();
    if (LineEditor::interrupted()) return false;
    for (;;) {
        pollfd p{STDIN_FILENO, POLLIN, 0};
        const int n = ::poll(&p, 1, kInterruptLookMs);
        if (LineEditor::interrupt_count() != seen) return false;
        if (n > 0) return true;
    }
}

}  // namespace

std::optional<std::string> read_console_line() {
    if (stdin_is_tty()) {
        std::clearerr(stdin);
        std::cin.clear();
        if (!wait_for_terminal_line()) return std::nullopt;
    }
    std::string line;
    if (!std::getline(std::cin, line)) return std::nullopt;
    return line;
}

}  // namespace mcph::cli
