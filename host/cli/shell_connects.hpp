// Connecting in `mcph shell` at a terminal: a server that hangs must not hold the person for its
// whole connect timeout, neither before the first prompt nor in a command that connects (`tools`,
// `call`, `reconnect`...). Each connect step runs on a thread of its own while the shell waits for
// it; after kConnectNoticeDelay the shell names the servers it waits for, and Ctrl-C stops the
// wait: the prompt comes back at once while those servers go on connecting, and the outcome of
// each (connected, failed and why, needs sign-in) is printed above the prompt when it comes.
// Leaving the shell ends the attempts still running instead of waiting them out.
#pragma once

#include <mcph/error.hpp>
#include <mcph/host.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace mcph::cli {

inline constexpr std::chrono::milliseconds kConnectNoticeDelay{1000};

// "a, b, c": server names for a message, escaped for the terminal.
std::string server_list(const std::vector<std::string>& names);
// "it goes on connecting, and its outcome is printed here when it comes" (or the plural).
std::string still_connecting_note(std::size_t servers);
// Of `among` (empty: every configured server), those whose connection is pending, in that order.
std::vector<std::string> pending_servers(Host& host, const std::vector<std::string>& among = {});

// The outcomes of connect attempts, from the host's state changes (any host thread). Nothing is
// printed for a server until a wait for it was stopped: a wait that ends reports by itself.
class ConnectAnnouncer {
public:
    // HostOptions::on_state_change.
    void on_state_change(const std::string& server, const ConnectionState& state);
    // A wait was stopped: from now on the outcome of each of `servers` that has none yet is printed
    // when it comes. Returns those, in name order.
    std::vector<std::string> announce_later(const std::vector<std::string>& servers);
    void stop();  // the shell ends: nothing more is printed

private:
    std::mutex mutex_;
    std::map<std::string, bool> ended_;  // server -> its latest state ended an attempt
    bool stopped_ = false;
    std::set<std::string> waiting_;  // to be printed when their attempt ends
};

// Ctrl-C stopped a command's wait for its connect step (ErrorKind::Cancelled; the shell says what
// and goes on). what(): which servers go on connecting.
class ConnectWaitStopped : public Error {
public:
    explicit ConnectWaitStopped(const std::vector<std::string>& servers);
};

// The shell's connect steps and the threads of those it stopped waiting for.
class ShellConnects {
public:
    ShellConnects(Host& host, std::shared_ptr<ConnectAnnouncer> announcer, bool terminal);
    // Ends the attempts still running (their connections are shut down as `disconnect` does: a
    // handshake in progress fails at once, one not begun finds its connection closed), then joins
    // their threads: nothing outlives the host.
    ~ShellConnects();
    ShellConnects(const ShellConnects&) = delete;
    ShellConnects& operator=(const ShellConnects&) = delete;

    struct Waited {
        bool stopped = false;                   // Ctrl-C: the step goes on without us
        std::vector<std::string> still_connecting;  // then: the servers whose outcome will be printed
    };
    // Runs `step` (it may throw; the error is rethrown here) and waits for it. At a terminal it
    // runs on a thread of its own, and Ctrl-C stops the wait. `step` must own what it uses, the
    // host aside: it may outlive the caller's frame. `servers`: those it connects (empty: all),
    // the ones named while waiting and reported later.
    Waited run(std::function<void()> step, const std::vector<std::string>& servers = {});
    // For Options::run_connect: run(), and ConnectWaitStopped when the wait was stopped.
    void run_for_command(std::function<void()> step, const std::vector<std::string>& servers);

private:
    struct Job;
    void join_finished();  // the threads of stopped waits whose step has ended since

    Host& host_;
    std::shared_ptr<ConnectAnnouncer> announcer_;
    const bool terminal_;
    std::vector<std::pair<std::thread, std::shared_ptr<Job>>> left_running_;  // main thread only
};

}  // namespace mcph::cli
