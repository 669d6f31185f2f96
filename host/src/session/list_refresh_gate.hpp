// ListRefreshGate — coalesces list_changed notifications of one list kind: at most one refresh
// runs, and any number of notifications arriving meanwhile cost one more refresh after it (the
// dirty flag), never one each; and two refreshes start at least a spacing apart, so a server
// sending list_changed without pause gets a few tools/list a second, however fast it answers them.
#pragma once

#include <chrono>
#include <mutex>

namespace mcph::session {

class ListRefreshGate {
public:
    using Clock = std::chrono::steady_clock;

    // A notification arrived. True: the caller starts the refresh (and later calls finish()).
    // False: one is running already; it will run once more when done.
    bool request();
    // The refresh finished. True: notifications came meanwhile, so refresh again (still holding
    // the gate); false: the gate is open again.
    bool finish();
    // The refresh will not happen (the session ended): open the gate, forget pending requests.
    void abandon();
    // How long the refresh about to start waits so that it starts `spacing` after the previous
    // one; records its start.
    Clock::duration start_delay(Clock::time_point now, Clock::duration spacing);

private:
    std::mutex mutex_;
    bool running_ = false;
    bool dirty_ = false;
    bool started_before_ = false;
    Clock::time_point last_start_{};
};

}  // namespace mcph::session
