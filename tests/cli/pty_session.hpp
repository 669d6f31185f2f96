// A program driven through a pseudo-terminal, as a person at a terminal drives it: keys are
// typed (Ctrl-C as "\x03" reaches it as SIGINT through the line discipline), the screen's bytes
// are read, every wait is bounded. For `mcph shell` (tests/cli/shell_test.cpp).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcph::test {

class PtySession {
public:
    // Runs `mcph args...` (the built CLI, environment as run_cli builds it) on a new 24x200 pty.
    PtySession(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
               const std::filesystem::path& cwd);
    ~PtySession();  // kills the process group if it still runs
    PtySession(const PtySession&) = delete;
    PtySession& operator=(const PtySession&) = delete;

    void type(std::string_view keys);
    // Waits until what the program wrote from offset `from` on contains `needle`; the offset just
    // past the match, or nullopt after `timeout` (or when the program ended first).
    std::optional<std::size_t> wait_for(std::string_view needle, std::size_t from = 0,
                                        std::chrono::milliseconds timeout = std::chrono::seconds(10));
    // Waits for the exit; its status, or nullopt (then killed) after `timeout`.
    std::optional<int> wait_exit(std::chrono::milliseconds timeout = std::chrono::seconds(10));
    // Waits (bounded) until the program's main thread sleeps in write(2) on its stdout or stderr
    // (/proc/PID/syscall), as it does on a terminal stopped with Ctrl-S; false on timeout.
    bool wait_blocked_writing(std::chrono::milliseconds timeout = std::chrono::seconds(10));
    std::size_t size() const { return out_.size(); }
    const std::string& output() const { return out_; }

private:
    bool read_some(std::chrono::milliseconds wait);  // false: the program closed the terminal

    pid_t pid_ = -1;
    int master_ = -1;
    bool closed_ = false;
    std::optional<int> status_;
    std::string out_;
};

}  // namespace mcph::test
