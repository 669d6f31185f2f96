#include "sse_transport.hpp"

#include "curl_handles.hpp"
#include "jsonrpc_shape.hpp"

namespace mcph::sse {

using mcph::plugin::Error;

SseTransport::SseTransport(mcph::plugin::TransportHost host, std::string_view config_json)
    : host_(host), config_(parse_config(config_json)) {
    mcph::http::global_init_once();
    engine_ = std::make_unique<SseEngine>(host, config_, handshake_, stopping_, ended_);
}

SseTransport::~SseTransport() { close(); }

// Returns once the server named its message endpoint: from then on send() works. Fails with the
// reason (HTTP status, content type, first bytes of the body, a refused endpoint, a timeout), and
// then no callback follows: the I/O thread has been joined.
void SseTransport::start() {
    if (closed_) throw Error(MCPH_ERR_CLOSED, "the transport is closed");
    if (started_) throw Error(MCPH_ERR_INVALID_ARGUMENT, "the transport was already started");
    started_ = true;
    host_.diagnostic(MCPH_LOG_INFO, "connecting: " + config_.describe());
    handshake_.arm(engine_->handshake_window());  // covers the thread's start, until its first arm
    engine_->start_loop();
    Handshake::Result result = handshake_.wait([this] { return engine_->handshake_timeout_message(); });
    if (result.status == MCPH_OK) return;
    stop_io();
    throw Error(result.status, result.message);
}

// Parsed here, on the caller's thread, once: the request ids let the I/O thread answer a failed
// POST with an error response instead of leaving the request hanging.
void SseTransport::send(std::string_view message) {
    if (stopping_.load() || ended_.load()) throw Error(MCPH_ERR_CLOSED, "the transport is closed");
    if (!engine_->open()) throw Error(MCPH_ERR_CLOSED, "the transport is not started");
    if (message.size() > config_.max_message_bytes)
        throw Error(MCPH_ERR_INVALID_ARGUMENT, "the message is larger than maxMessageBytes (" +
                                                   std::to_string(config_.max_message_bytes) + " bytes)");
    mcph::http::MessageShape shape = mcph::http::inspect_message(message);
    if (!shape.valid) throw Error(MCPH_ERR_INVALID_ARGUMENT, "the message is not a JSON object or array");
    if (!engine_->outbox().push(Outgoing{std::string(message), std::move(shape.request_ids)}))
        throw Error(MCPH_ERR_IO, "too many messages are waiting for the SSE transport's I/O thread");
    engine_->wake();
}

// The legacy transport carries no protocol version header and has no second stream to open;
// `initialized` only orders the messages after it behind the handshake's (the handshake hold).
void SseTransport::set_option(std::string_view key, std::string_view /*value*/) {
    if (key == "protocol-version") return;
    if (key == "initialized") {
        engine_->outbox().push_handshake_end();
        return engine_->wake();
    }
    throw Error(MCPH_ERR_UNSUPPORTED, "unknown option '" + std::string(key) + "'");
}

void SseTransport::close() noexcept {
    if (closed_) return;
    closed_ = true;
    stop_io();
}

// After this no callback can fire: every callback runs on a loop thread, and the last one was
// joined.
void SseTransport::stop_io() noexcept {
    stopping_.store(true);
    engine_->stop_loop();
}

}  // namespace mcph::sse
