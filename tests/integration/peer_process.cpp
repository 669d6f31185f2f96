#include "peer_process.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

extern char** environ;

namespace mcph::test {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

sockaddr_in loopback(int port) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return addr;
}

bool accepts(int port) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    sockaddr_in addr = loopback(port);
    bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    ::close(fd);
    return ok;
}

// pid -> parent pid, for every process visible in /proc.
std::map<pid_t, pid_t> parents() {
    std::map<pid_t, pid_t> result;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/proc", ec)) {
        const std::string name = entry.path().filename().string();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream in(entry.path() / "stat");
        std::string stat;
        std::getline(in, stat);
        // pid (comm) state ppid ...; comm may contain spaces and parentheses: cut at the last ')'.
        const auto close = stat.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream rest(stat.substr(close + 1));
        std::string state;
        pid_t ppid = 0;
        if (rest >> state >> ppid) result[static_cast<pid_t>(std::stol(name))] = ppid;
    }
    return result;
}

void add_descendants(pid_t root, std::set<pid_t>& out) {
    const auto map = parents();
    std::vector<pid_t> todo = {root};
    while (!todo.empty()) {
        pid_t p = todo.back();
        todo.pop_back();
        for (const auto& [child, parent] : map)
            if (parent == p && out.insert(child).second) todo.push_back(child);
    }
}

std::string tail_of(const fs::path& log, std::size_t bytes = 2000) {
    std::ifstream in(log, std::ios::binary);
    std::ostringstream all;
    all << in.rdbuf();
    std::string s = all.str();
    return s.size() > bytes ? "..." + s.substr(s.size() - bytes) : s;
}

}  // namespace

int free_loopback_port() {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return 0;
    sockaddr_in addr = loopback(0);
    int port = 0;
    socklen_t len = sizeof addr;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
        port = ntohs(addr.sin_port);
    ::close(fd);
    return port;
}

bool wait_for_port(int port, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!accepts(port)) {
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(20ms);
    }
    return true;
}

bool PeerProcess::start(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                        const fs::path& log, std::string& error) {
    stop();
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
        error = std::string("pipe: ") + std::strerror(errno);
        return false;
    }
    int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0) {
        error = "cannot open " + log.string() + ": " + std::strerror(errno);
        ::close(pipe_fds[0]);
        ::close(pipe_fds[1]);
        return false;
    }
    // Everything the child needs, built before fork (only async-signal-safe calls after it).
    std::vector<std::string> env_strings;
    for (char** e = environ; *e; ++e) {
        std::string entry = *e;
        const std::string key = entry.substr(0, entry.find('='));
        if (!env.count(key)) env_strings.push_back(entry);
    }
    for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
    std::vector<char*> envp, args;
    for (auto& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<std::string> argv_copy = argv;
    for (auto& s : argv_copy) args.push_back(s.data());
    args.push_back(nullptr);

    pid_t pid = ::fork();
    if (pid < 0) {
        error = std::string("fork: ") + std::strerror(errno);
        ::close(pipe_fds[0]);
        ::close(pipe_fds[1]);
        ::close(log_fd);
        return false;
    }
    if (pid == 0) {
        ::setpgid(0, 0);
        ::dup2(pipe_fds[0], 0);
        ::dup2(log_fd, 1);
        ::dup2(log_fd, 2);
        ::execve(args[0], args.data(), envp.data());
        ::_exit(127);
    }
    ::setpgid(pid, pid);  // also from the parent, so the group exists before we might signal it
    ::close(pipe_fds[0]);
    ::close(log_fd);
    pid_ = pid;
    stdin_fd_ = pipe_fds[1];
    return true;
}

bool PeerProcess::running() {
    if (pid_ <= 0) return false;
    int status = 0;
    pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == 0) return true;
    if (r == pid_ || (r < 0 && errno == ECHILD)) {
        // Its group may still hold descendants: stop() sweeps them; keep pid_ for that.
        return false;
    }
    return true;
}

void PeerProcess::stop(std::chrono::milliseconds grace) {
    if (stdin_fd_ >= 0) {
        ::close(stdin_fd_);
        stdin_fd_ = -1;
    }
    if (pid_ <= 0) return;
    std::set<pid_t> family;
    add_descendants(pid_, family);
    ::kill(-pid_, SIGTERM);
    for (pid_t p : family) ::kill(p, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + grace;
    bool reaped = false;
    while (std::chrono::steady_clock::now() < deadline) {
        int status = 0;
        pid_t r = ::waitpid(pid_, &status, WNOHANG);
        if (r == pid_ || (r < 0 && errno == ECHILD)) {
            reaped = true;
            break;
        }
        add_descendants(pid_, family);
        std::this_thread::sleep_for(20ms);
    }
    // Whatever is left, of its group or of its descendants (which may have their own groups).
    ::kill(-pid_, SIGKILL);
    for (pid_t p : family) {
        ::kill(-p, SIGKILL);  // a descendant that leads its own group (e.g. detached children)
        ::kill(p, SIGKILL);
    }
    if (!reaped) {
        int status = 0;
        ::waitpid(pid_, &status, 0);  // SIGKILL cannot be ignored: this returns promptly
    }
    pid_ = -1;
}

int start_listening_peer(PeerProcess& peer, const std::function<std::vector<std::string>(int)>& argv_for,
                         const std::function<std::map<std::string, std::string>(int)>& env_for, const fs::path& log,
                         std::chrono::milliseconds timeout, std::string& error, int attempts) {
    for (int attempt = 1; attempt <= attempts; ++attempt) {
        const int port = free_loopback_port();
        if (port == 0) {
            error = "no free loopback port";
            return 0;
        }
        if (!peer.start(argv_for(port), env_for(port), log, error)) return 0;
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        bool exited = false;
        while (std::chrono::steady_clock::now() < deadline) {
            if (accepts(port)) return port;
            if (!peer.running()) {
                exited = true;
                break;
            }
            std::this_thread::sleep_for(50ms);
        }
        peer.stop();
        error = (exited ? "peer exited before listening on port " : "peer did not listen on port ") +
                std::to_string(port) + " within " + std::to_string(timeout.count()) + " ms (attempt " +
                std::to_string(attempt) + "); log " + log.string() + ":\n" + tail_of(log);
        if (!exited) return 0;  // a hang is not a port race: do not try again
    }
    return 0;
}

}  // namespace mcph::test
