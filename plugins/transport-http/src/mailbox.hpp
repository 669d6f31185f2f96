// The hand-off from caller threads to the I/O thread: send() and set_option() push a command
// and wake the curl loop; the loop takes the whole batch at once. The only lock on the hot path,
// held for a vector push, never across I/O or a callback.
//
// The bound covers a message until its POST is over, not only until the loop takes it: the
// loop keeps POSTs waiting for a connection slot (engine.hpp), and a burst of answers to server
// requests must not pile up there without limit (issue #10 item 3). Each command carries a
// Ticket holding its share; the share is released when the last owner drops it.
#pragma once

#include "mcp_headers.hpp"

#include <mcph/plugin_helper.hpp>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace mcph::http {

class Mailbox;

// A message's share of the mailbox bound. Move-only; releases on destruction. [I/O thread]
class Ticket {
public:
    Ticket() = default;
    Ticket(Mailbox* box, size_t bytes) : box_(box), bytes_(bytes) {}
    Ticket(Ticket&& o) noexcept : box_(o.box_), bytes_(o.bytes_) { o.box_ = nullptr; }
    Ticket& operator=(Ticket&& o) noexcept;
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    ~Ticket() { release(); }

private:
    void release() noexcept;
    Mailbox* box_ = nullptr;
    size_t bytes_ = 0;
};

struct Command {
    // AuthHeaders / AuthRetry: the host answered a parked request's auth hook (ABI v1.2).
    enum class Kind { Send, ProtocolVersion, Initialized, Era, Cancel, AuthHeaders, AuthRetry };
    Kind kind = Kind::Send;
    std::string payload;                     // Send: the message; ProtocolVersion: the version;
                                             // Era: "modern"/"legacy"; Cancel: the host's request id
    std::vector<std::string> request_ids;    // Send: the requests inside the message
    std::vector<std::string> cancelled_ids;  // Send: requests a notifications/cancelled gives up on
    Ticket ticket;                           // set by push()
    // Send, from the host's message facts (send_ex); empty for a plain send:
    std::string host_id;                     // the request's id as the host spells it
    std::string protocol_version;            // MCP-Protocol-Version of this message
    HeaderPairs metadata;                    // Mcp-Method, Mcp-Name, Mcp-Param-*, already encoded
    bool long_lived = false;                 // subscriptions/listen: its stream stays open
    // AuthHeaders / AuthRetry:
    std::uint64_t parked = 0;                // which parked request the answer is for
    mcph::plugin::AuthAnswer auth;           // the host's answer

    static Command of(Kind kind, std::string payload = {}) {
        Command c;
        c.kind = kind;
        c.payload = std::move(payload);
        return c;
    }
};

class Mailbox {
public:
    // Messages queued or in flight, and their bytes. Hitting a bound means the server (or the
    // network) does not keep up with what the host sends: send() then fails instead of buffering.
    Mailbox(size_t max_commands, size_t max_bytes) : max_commands_(max_commands), max_bytes_(max_bytes) {}

    // [thread-safe] False when a bound would be exceeded (nothing was queued).
    bool push(Command command);
    // [thread-safe] Outside the bound: a cancel is what frees a full mailbox, so it must get in.
    // Small and issued by the host (once per request it gave up on), never by the server.
    void push_control(Command command);
    // [I/O thread] Everything queued so far, in order.
    std::vector<Command> take_all();
    // [thread-safe] Nothing is queued now (the loop thread's idle retirement looks).
    bool empty() const;

    size_t max_commands() const { return max_commands_; }
    size_t max_bytes() const { return max_bytes_; }

private:
    friend class Ticket;
    void release(size_t bytes) noexcept;

    mutable std::mutex mutex_;
    std::vector<Command> queue_;
    size_t commands_ = 0;  // pushed and not yet released
    size_t bytes_ = 0;
    size_t max_commands_;
    size_t max_bytes_;
};

}  // namespace mcph::http
