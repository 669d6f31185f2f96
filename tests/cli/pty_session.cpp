#include "pty_session.hpp"

#include "governance_support.hpp"

#include <gtest/gtest.h>

#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <thread>

namespace mcph::test {

PtySession::PtySession(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
                       const std::filesystem::path& cwd) {
    std::vector<std::string> full = args;
    CliExec exec(full, env);  // before fork: the child makes only async-signal-safe calls
    const std::string cwd_s = cwd.string();
    winsize size{};
    size.ws_row = 24;
    size.ws_col = 200;
    pid_ = ::forkpty(&master_, nullptr, nullptr, &size);
    if (pid_ < 0) {
        ADD_FAILURE() << "forkpty failed";
        return;
    }
    if (pid_ == 0) {
        if (::chdir(cwd_s.c_str()) != 0) ::_exit(126);
        ::execve(exec.argv()[0], exec.argv(), exec.envp());
        ::_exit(127);
    }
}

PtySession::~PtySession() {
    if (pid_ > 0 && !status_) {
        ::kill(pid_, SIGKILL);
        int st = 0;
        ::waitpid(pid_, &st, 0);
    }
    if (master_ >= 0) ::close(master_);
}

void PtySession::type(std::string_view keys) {
    if (master_ >= 0) (void)!::write(master_, keys.data(), keys.size());
}

bool PtySession::read_some(std::chrono::milliseconds wait) {
    if (closed_) return false;
    pollfd p{master_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(wait.count())) <= 0) return true;
    char buffer[4096];
    const ssize_t n = ::read(master_, buffer, sizeof buffer);
    if (n <= 0) {  // EIO: the program exited and the terminal closed
        closed_ = true;
        return false;
    }
    out_.append(buffer, static_cast<std::size_t>(n));
    return true;
}

std::optional<std::size_t> PtySession::wait_for(std::string_view needle, std::size_t from, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        if (from <= out_.size())
            if (auto at = out_.find(needle, from); at != std::string::npos) return at + needle.size();
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return std::nullopt;
        if (!read_some(std::min(left, std::chrono::milliseconds(100)))) {
            if (from <= out_.size() && out_.find(needle, from) != std::string::npos) continue;
            return std::nullopt;
        }
    }
}

bool PtySession::wait_blocked_writing(std::chrono::milliseconds timeout) {
    // The first fields of /proc/PID/syscall: the number of the call the thread sleeps in, then
    // its arguments in hex ("1 0x2 ..." is write on fd 2 on x86-64).
    const std::string write_call = std::to_string(SYS_write) + " ";
    const std::string path = "/proc/" + std::to_string(pid_) + "/syscall";
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        std::ifstream in(path);
        std::string line;
        std::getline(in, line);
        if (line.rfind(write_call + "0x1 ", 0) == 0 || line.rfind(write_call + "0x2 ", 0) == 0) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
}

std::optional<int> PtySession::wait_exit(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!status_) {
        int st = 0;
        const pid_t r = ::waitpid(pid_, &st, WNOHANG);
        if (r == pid_) {
            status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
            break;
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, &st, 0);
            status_ = -1;
            return std::nullopt;
        }
        read_some(std::chrono::milliseconds(50));  // keep draining: a full terminal would block it
    }
    while (read_some(std::chrono::milliseconds(0)) && !closed_) {
        pollfd p{master_, POLLIN, 0};
        if (::poll(&p, 1, 0) <= 0) break;
    }
    return status_;
}

}  // namespace mcph::test
