// Remote peers for the integration tests: a child process in its own process group, listening on
// a free loopback port, killed (with everything it started) when the handle goes away.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <sys/types.h>

namespace mcph::test {

// A port that was free on 127.0.0.1 a moment ago (bind to port 0, read it, close).
int free_loopback_port();
// Does 127.0.0.1:port accept a TCP connection? Polls until it does or `timeout` passes.
bool wait_for_port(int port, std::chrono::milliseconds timeout);

class PeerProcess {
public:
    PeerProcess() = default;
    ~PeerProcess() { stop(); }
    PeerProcess(const PeerProcess&) = delete;
    PeerProcess& operator=(const PeerProcess&) = delete;

    // Starts argv[0] (a path) with `env` added to this process's environment, in a new process
    // group, stdin a pipe this object holds open, stdout+stderr appended to `log`.
    // Returns false (with `error`) when it cannot start.
    bool start(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
               const std::filesystem::path& log, std::string& error);
    bool running();  // reaps it when it exited
    pid_t pid() const { return pid_; }
    // Closes its stdin, SIGTERM to its group, waits up to `grace`, then SIGKILL to its group and to
    // every descendant seen (including those that moved to their own groups). Idempotent.
    void stop(std::chrono::milliseconds grace = std::chrono::milliseconds(3000));

private:
    pid_t pid_ = -1;
    int stdin_fd_ = -1;
};

// Starts a listening peer: picks a free port, runs `argv_for(port)` with `env_for(port)`, waits
// (bounded by `timeout`) until the port accepts connections; retries with another port up to
// `attempts` times when the peer exits early (a lost race for the port). Returns the port, or
// 0 with `error` (including the tail of the log).
int start_listening_peer(PeerProcess& peer, const std::function<std::vector<std::string>(int)>& argv_for,
                         const std::function<std::map<std::string, std::string>(int)>& env_for,
                         const std::filesystem::path& log, std::chrono::milliseconds timeout, std::string& error,
                         int attempts = 3);

}  // namespace mcph::test
