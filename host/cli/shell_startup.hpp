// `mcph shell` at a terminal: every server connects before the first prompt, as in a script, but a
// server that hangs does not keep the person at a blank screen for its whole connect timeout.
// After kStartupNoticeDelay the shell names the servers it still waits for; Ctrl-C then shows the
// prompt at once while they go on connecting on their own thread, and the outcome of each one
// (connected, failed and why, needs sign-in) is printed above the prompt when it comes.
#pragma once

#include <mcph/host.hpp>

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace mcph::cli {

inline constexpr std::chrono::milliseconds kStartupNoticeDelay{1000};

// The outcomes of the start-up attempts, from the host's state changes (any host thread). Until
// the wait is given up nothing is printed: the shell's own summary line counts them.
class StartupAnnouncer {
public:
    // HostOptions::on_state_change.
    void on_state_change(const std::string& server, const ConnectionState& state);
    // Ctrl-C: from now on the outcome of each of `attempted` that has none yet is printed when it
    // comes. Returns those still connecting, in name order.
    std::vector<std::string> give_up_waiting(const std::vector<std::string>& attempted);
    void stop();  // the shell ends: nothing more is printed

private:
    std::mutex mutex_;
    std::map<std::string, bool> ended_;  // server -> its latest state ended the attempt
    bool announcing_ = false;
    std::set<std::string> waiting_;  // still connecting when the wait was given up
};

// connect_all() on a thread of its own, so the shell can stop waiting for it.
class StartupConnect {
public:
    StartupConnect(Host& host, std::shared_ptr<StartupAnnouncer> announcer);
    // Ends the attempts still running (their connections are shut down, as `disconnect` does) and
    // joins the thread: the host must outlive nothing it started.
    ~StartupConnect();
    StartupConnect(const StartupConnect&) = delete;
    StartupConnect& operator=(const StartupConnect&) = delete;

    // Waits until every attempt ended, or until Ctrl-C was pressed: then the prompt is shown while
    // the attempts go on, and the servers still connecting are returned (empty: all ended). Says
    // which servers it waits for after kStartupNoticeDelay.
    std::vector<std::string> wait_at_terminal();
    void wait();  // no terminal (a script): until every attempt ended

private:
    std::vector<std::string> still_connecting() const;

    Host& host_;
    std::shared_ptr<StartupAnnouncer> announcer_;
    std::vector<std::string> attempted_;
    std::mutex mutex_;
    std::condition_variable done_cv_;
    bool done_ = false;
    std::thread thread_;
};

}  // namespace mcph::cli
