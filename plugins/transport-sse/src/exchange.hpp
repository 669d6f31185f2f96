// One HTTP exchange on its own easy handle: the long-lived GET event stream, or one POST carrying
// one message. [I/O thread only]
#pragma once

#include "curl_handles.hpp"
#include "outbox.hpp"
#include "sse_parser.hpp"

#include <mcph/plugin_api.h>

#include <memory>
#include <string>

namespace mcph::sse {

class SseEngine;

enum class ExchangeKind { Stream, Post };

// What the response body is, decided once the status line and headers are in.
enum class Body {
    Undecided,
    Events,    // Stream: 200 text/event-stream, parsed event by event as bytes arrive
    Rejected,  // Stream: an error status or another content type; only the head is kept
    Ignored,   // Post: the server answers on the stream; only the head is kept, for error messages
};

struct Exchange {
    Exchange() = default;
    Exchange(const Exchange&) = delete;
    Exchange& operator=(const Exchange&) = delete;
    ~Exchange() { status_line_in(); }

    // Post: counted in `*unanswered` (the engine's) until the status line came or the exchange
    // ends, whichever is first: the handshake hold cannot outlive the POSTs it waits for.
    void status_line_in() noexcept {
        if (unanswered) --*unanswered;
        unanswered = nullptr;
    }

    SseEngine* engine = nullptr;
    size_t* unanswered = nullptr;
    ExchangeKind kind = ExchangeKind::Post;
    std::string url;
    mcph::http::EasyHandle easy;
    mcph::http::HeaderList headers;

    Outgoing message;           // Post: what is sent; the easy handle points into message.payload
    int auth_retries = 0;  // Post: 401/403s that led to a retry (mcph::http::challenge_retry_budget)

    Body body = Body::Undecided;
    long status = 0;
    std::string content_type;
    std::string content_encoding;  // the stream's non-identity Content-Encoding: unreadable
    std::string head;  // the first bytes of a body we do not parse
    std::unique_ptr<mcph::http::SseParser> sse;
    std::string abort_reason;  // why our own callback cut the transfer, if it did
    mcph_failure_category abort_category = MCPH_FAILURE_OTHER;  // what kind of reason that is
    char error[CURL_ERROR_SIZE] = {};
};

}  // namespace mcph::sse
