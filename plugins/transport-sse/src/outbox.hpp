// The hand-off from caller threads to the I/O thread: send() pushes a message and wakes the curl
// loop; the loop takes the whole batch at once. The only lock on the way out, held for a vector
// push, never across I/O or a callback.
//
// Bounded memory: a message counts against the bounds from push() until its POST finished
// (done()), so a host that sends faster than the server accepts gets MCPH_ERR_IO from send()
// instead of growing the process without limit.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

namespace mcph::sse {

struct Outgoing {
    std::string payload;                   // the JSON-RPC message, as the host gave it
    std::vector<std::string> request_ids;  // requests inside it (canonical JSON ids)
    // Not a message: the host's option `initialized`, in its place among the messages. What
    // follows waits until every POST before it has its status line (SseEngine, handshake hold).
    bool handshake_end = false;
};

class Outbox {
public:
    Outbox(size_t max_messages, size_t max_bytes) : max_messages_(max_messages), max_bytes_(max_bytes) {}

    // [thread-safe] False when a bound would be exceeded (nothing was queued).
    bool push(Outgoing message);
    // [thread-safe] Queues the handshake_end marker; outside the bounds (once per handshake).
    void push_handshake_end();
    // [I/O thread] Everything queued so far, in order.
    std::vector<Outgoing> take_all();
    // [thread-safe] Nothing queued (what was taken and is in flight does not count).
    bool empty();
    // [I/O thread] A message taken earlier is finished (sent, failed or dropped).
    void done(size_t payload_bytes);

private:
    std::mutex mutex_;
    std::vector<Outgoing> queue_;
    size_t messages_ = 0;  // queued + in flight
    size_t bytes_ = 0;     // queued + in flight
    size_t max_messages_;
    size_t max_bytes_;
};

}  // namespace mcph::sse
