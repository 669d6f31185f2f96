// Helpers of the URL attack tests: a loopback TCP listener that records whether anything connected
// to it (checked with a bounded poll once the attacked command is done), and the per-test config
// tree for running the real `mcph` binary.
#pragma once

#include "governance_support.hpp"
#include "loopback_listener.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace mcph::test {

// A listening socket on 127.0.0.1 (an ephemeral port) that never accepts on its own: a connection
// that reached it waits in the backlog, so connected() can tell afterwards.
class LoopbackListener {
public:
    LoopbackListener();
    ~LoopbackListener();
    LoopbackListener(const LoopbackListener&) = delete;
    LoopbackListener& operator=(const LoopbackListener&) = delete;
    int port() const { return port_; }
    // Did a connection arrive? Waits at most `bound` for one (accepting and closing it).
    bool connected(std::chrono::milliseconds bound = std::chrono::milliseconds(300));

private:
    int fd_ = -1;
    int port_ = 0;
};

// A loopback listener that accepts and at once closes every connection, on a thread of its own,
// counting them: a server that is tried fails fast instead of hanging in its handshake.
class ClosingListener {
public:
    ClosingListener() = default;
    ClosingListener(const ClosingListener&) = delete;
    ClosingListener& operator=(const ClosingListener&) = delete;
    int port() const { return acceptor_.port(); }
    int connections() const { return connections_.load(); }
    // The count once one has arrived or `bound` has passed: after the attacked command exited, a
    // connection it made may still sit in the backlog for a moment.
    int connections_within(std::chrono::milliseconds bound) const;

private:
    std::atomic<int> connections_{0};
    LoopbackAcceptor acceptor_{[this](int client) {  // last: its thread uses connections_
        ++connections_;
        ::close(client);
    }};
};

// A loopback HTTP responder answering every request with "302 Found, Location: <location>", on a
// thread of its own, counting the requests it answered.
class RedirectResponder {
public:
    explicit RedirectResponder(std::string location);
    RedirectResponder(const RedirectResponder&) = delete;
    RedirectResponder& operator=(const RedirectResponder&) = delete;
    int port() const { return server_.port(); }
    int requests() const { return requests_.load(); }

private:
    std::string location_;
    std::atomic<int> requests_{0};
    ThreadedHttpServer server_;  // last: its threads use the members above
};

// MCPH_CONFIG_HOME, MCPH_MANAGED_DIR, HOME and a repository under one temp dir.
struct CliTree {
    TempDir dir{"mcph-url"};
    std::filesystem::path repo = dir / "repo";
    std::filesystem::path config_home = dir / "config";
    std::filesystem::path managed = dir / "managed";
    std::filesystem::path home = dir / "home";

    CliTree();
    CliLocations locations() const;
    // `mcph args...` in the repository with the tree's locations and one reconnect attempt.
    CliResult run(const std::vector<std::string>& args, std::chrono::milliseconds timeout = std::chrono::seconds(15));
};

}  // namespace mcph::test
