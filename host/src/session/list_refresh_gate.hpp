// ListRefreshGate — coalesces list_changed notifications of one list kind: at most one refresh
// runs, and any number of notifications arriving meanwhile cost one more refresh after it (the
// dirty flag), never one each. A server sending thousands of list_changed gets a handful of
// tools/list, not thousands queued. (SessionCore also spaces successive refreshes out in time.)
#pragma once

#include <mutex>

namespace mcph::session {

class ListRefreshGate {
public:
    // A notification arrived. True: the caller starts the refresh (and later calls finish()).
    // False: one is running already; it will run once more when done.
    bool request();
    // The refresh finished. True: notifications came meanwhile, so refresh again (still holding
    // the gate); false: the gate is open again.
    bool finish();
    // The refresh will not happen (the session ended): open the gate, forget pending requests.
    void abandon();

private:
    std::mutex mutex_;
    bool running_ = false;
    bool dirty_ = false;
};

}  // namespace mcph::session
