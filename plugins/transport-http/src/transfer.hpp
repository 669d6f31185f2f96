// One HTTP exchange on its own easy handle: a POST carrying a message, the standalone GET
// stream, a GET resuming a POST's stream, or the closing DELETE. [I/O thread only]
#pragma once

#include "curl_handles.hpp"
#include "mailbox.hpp"
#include "sse_parser.hpp"

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mcph::http {

class Engine;
using Clock = std::chrono::steady_clock;

enum class TransferKind { Post, Listen, Resume, Delete };

inline const char* method_of(TransferKind kind) {
    switch (kind) {
        case TransferKind::Post: return "POST";
        case TransferKind::Delete: return "DELETE";
        default: return "GET";
    }
}

// How the response body is handled, decided once the status line and headers are in.
enum class BodyKind {
    Undecided,
    Empty,     // 202/204, or a DELETE: nothing to deliver
    Json,      // application/json: buffered (bounded), delivered on completion
    Sse,       // text/event-stream: parsed and delivered event by event as bytes arrive
    Rejected,  // an error status or an unexpected type: only the head is kept, for the message
};

// What to (re)start: enough to build the transfer again for an auth retry or a resumption.
struct TransferSpec {
    TransferKind kind = TransferKind::Post;
    std::string payload;                   // Post: the JSON-RPC message
    std::vector<std::string> request_ids;  // Post/Resume: requests whose responses may come this way
    std::string last_event_id;             // Listen/Resume: sent as Last-Event-ID when not empty
    std::chrono::milliseconds retry{1000}; // the stream's SSE reconnection time (`retry:`)
    std::chrono::milliseconds server_wait{0};  // Retry-After of the last refusal, if longer
    int attempt = 0;                       // consecutive reconnects without progress
    int resumptions = 0;                   // Resume: every resumption of this request so far
    int auth_retries = 0;                  // 401/403s that led to a retry (see handle_session_or_auth)
    Ticket ticket;                         // Post: the message's share of the mailbox bound
    // Post, from the host's message facts (not carried over to reconnects: GETs are legacy only).
    std::string host_id;                   // the host's spelling of the request's id (facts.id)
    HeaderPairs metadata;                  // Mcp-Method, Mcp-Name, Mcp-Param-*, encoded
    std::string protocol_version;          // this message's MCP-Protocol-Version, when the host said
    bool long_lived = false;               // subscriptions/listen: no idle deadline once streaming
    // Holds later POSTs once launched (Engine: handshake hold): it was still queued when the
    // option `initialized` came, or it is a held notification's auth retry.
    bool ends_handshake = false;

    static TransferSpec of(TransferKind kind) {
        TransferSpec s;
        s.kind = kind;
        return s;
    }
    static TransferSpec post(std::string payload, std::vector<std::string> request_ids, Ticket ticket) {
        TransferSpec s = of(TransferKind::Post);
        s.payload = std::move(payload);
        s.request_ids = std::move(request_ids);
        s.ticket = std::move(ticket);
        return s;
    }
    // The next reconnect of a stream: same ids, latest event id and retry delay, one more attempt.
    TransferSpec reconnect(TransferKind next_kind, std::vector<std::string> ids) const {
        TransferSpec s = of(next_kind);
        s.request_ids = std::move(ids);
        s.last_event_id = last_event_id;
        s.retry = retry;
        s.server_wait = server_wait;
        s.attempt = attempt + 1;
        s.resumptions = resumptions + (next_kind == TransferKind::Resume ? 1 : 0);
        return s;
    }
};

// One count in the engine's handshake hold (Engine::handshake_holds_), given back when released
// or destroyed, so a hold cannot outlive the transfer or the auth retry that carries it. Moved
// from a refused transfer to its retry, the count never drops to zero in between.
class HandshakeHold {
public:
    HandshakeHold() = default;
    explicit HandshakeHold(size_t& count) noexcept : count_(&count) { ++count; }
    HandshakeHold(HandshakeHold&& other) noexcept : count_(std::exchange(other.count_, nullptr)) {}
    HandshakeHold& operator=(HandshakeHold&& other) noexcept {
        if (this != &other) {
            release();
            count_ = std::exchange(other.count_, nullptr);
        }
        return *this;
    }
    ~HandshakeHold() { release(); }
    void release() noexcept {
        if (count_) --*count_;
        count_ = nullptr;
    }
    explicit operator bool() const noexcept { return count_ != nullptr; }

private:
    size_t* count_ = nullptr;
};

// Which connection budget a POST counts against (engine.hpp, "connection slots").
enum class Slot { None, Request, Other };

struct Transfer {
    Transfer() = default;
    Transfer(const Transfer&) = delete;
    Transfer& operator=(const Transfer&) = delete;
    ~Transfer();  // hands the easy handle back to the engine's pool (engine.cpp)

    Engine* engine = nullptr;
    TransferSpec spec;
    EasyHandle easy;
    HeaderList headers;
    bool carried_session = false;  // the request had Mcp-Session-Id (a 404 then means "expired")
    Slot slot = Slot::None;        // released by the destructor
    HandshakeHold handshake_hold;  // set while later POSTs wait for this one (Engine: handshake hold)

    BodyKind body = BodyKind::Undecided;
    long status = 0;
    std::string content_type;
    std::string content_encoding;      // non-identity Content-Encoding of a 2xx: a body we cannot read
    std::string buffer;                // Json: the body; Rejected: its head
    std::unique_ptr<SseParser> sse;
    Clock::time_point stream_opened{};  // Sse: when the event stream started
    std::string abort_reason;          // why our own callback cut the transfer, if it did
    std::string skipped_event;         // why the last unusable event of this stream was skipped
    Clock::time_point deadline = Clock::time_point::max();
    char error[CURL_ERROR_SIZE] = {};  // curl's detail for a failed transfer
};

}  // namespace mcph::http
