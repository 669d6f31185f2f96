// The hand-off from caller threads to the I/O thread: send() and set_option() push a command
// and wake the curl loop; the loop takes the whole batch at once. The only lock on the hot path,
// held for a vector push, never across I/O or a callback.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

namespace mcph::http {

struct Command {
    enum class Kind { Send, ProtocolVersion, Initialized };
    Kind kind = Kind::Send;
    std::string payload;                   // Send: the message; ProtocolVersion: the version
    std::vector<std::string> request_ids;  // Send: the requests inside the message
};

class Mailbox {
public:
    // Bounds what may wait for the I/O thread; it normally drains within microseconds, so
    // hitting a bound means the loop is stuck (e.g. a host callback blocking it).
    Mailbox(size_t max_commands, size_t max_bytes) : max_commands_(max_commands), max_bytes_(max_bytes) {}

    // [thread-safe] False when a bound would be exceeded (nothing was queued).
    bool push(Command command);
    // [I/O thread] Everything queued so far, in order.
    std::vector<Command> take_all();

private:
    std::mutex mutex_;
    std::vector<Command> queue_;
    size_t bytes_ = 0;
    size_t max_commands_;
    size_t max_bytes_;
};

}  // namespace mcph::http
