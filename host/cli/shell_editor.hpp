// The line editor of `mcph shell` on a terminal: libedit (emacs keys), history kept in a file
// (bounded), tab completion from a callback, Ctrl-C clears the line, Ctrl-D on an empty line ends.
// Lines queued by print_console_line are printed above the prompt while it waits.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mcph::cli {

// History entries kept (in memory and in the file); a history file above kMaxHistoryFileBytes is
// not loaded (it is not the shell's own).
inline constexpr int kMaxHistoryEntries = 1000;
inline constexpr std::uintmax_t kMaxHistoryFileBytes = 1024 * 1024;

// The completion candidates for the word being typed: `first` when it is the line's first word
// (a command), else the words after it (servers, tools).
using Completer = std::function<std::vector<std::string>(bool first)>;

class LineEditor {
public:
    // `history_file` empty: no history file. Installs the SIGINT handler for the shell's life.
    LineEditor(std::filesystem::path history_file, Completer completer);
    ~LineEditor();  // saves the history (mode 0600: lines may hold arguments)
    LineEditor(const LineEditor&) = delete;
    LineEditor& operator=(const LineEditor&) = delete;

    // One line without its newline; nullopt at Ctrl-D on an empty line (or end of input).
    std::optional<std::string> read_line(const std::string& prompt);

    // A Ctrl-C arrived since the last call (while a command ran); clears the flag.
    static bool take_interrupt();
    // Whether a Ctrl-C arrived, without clearing it (polled by a running call).
    static bool interrupted();
    // How many Ctrl-Cs arrived in the process's life: a wait on another thread than the command's
    // (a server's form) sees a Ctrl-C even after the command took or cleared the flag.
    static unsigned interrupt_count();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace mcph::cli
