#include "http_transport.hpp"

#include "mcp_headers.hpp"
#include "outgoing.hpp"

#include <stdexcept>

namespace mcph::http {

using mcph::plugin::Error;

HttpTransport::HttpTransport(mcph::plugin::TransportHost host, std::string_view config_json)
    : config_(parse_config(config_json)) {
    global_init_once();
    engine_ = std::make_unique<Engine>(host, config_, stopping_, ended_);
}

HttpTransport::~HttpTransport() { close(); }

void HttpTransport::start() {
    if (closed_) throw Error(MCPH_ERR_CLOSED, "the transport is closed");
    if (started_) throw Error(MCPH_ERR_INVALID_ARGUMENT, "the transport was already started");
    engine_->start_loop();
    started_ = true;
}

// Validated here, on the caller's thread: the request ids tell the I/O thread which responses to
// expect, so a failed exchange can be reported instead of hanging (outgoing.hpp: from the host's
// facts when it gave them, else from one scan of the body).
Command HttpTransport::send_command(std::string_view message, const mcph::plugin::MessageFacts* facts) {
    if (stopping_.load() || ended_.load()) throw Error(MCPH_ERR_CLOSED, "the transport is closed");
    return outgoing_command(message, facts, config_.max_message_bytes);
}

void HttpTransport::send(std::string_view message) { post(send_command(message, nullptr)); }

// The facts come from the host, which built the message: they are encoded here (the spec's
// Value Encoding), never trusted as header text.
void HttpTransport::send_ex(std::string_view message, const mcph::plugin::MessageFacts& facts) {
    Command c = send_command(message, &facts);
    if (!facts.protocol_version.empty() && !is_visible_ascii(facts.protocol_version))
        throw Error(MCPH_ERR_INVALID_ARGUMENT, "the message's protocol version must be a token");
    try {
        c.metadata = request_metadata_headers(facts.method, facts.name, facts.params);
    } catch (const std::invalid_argument& e) {
        throw Error(MCPH_ERR_INVALID_ARGUMENT, e.what());
    }
    c.protocol_version = std::string(facts.protocol_version);
    c.host_id = std::string(facts.id);
    c.long_lived = (facts.flags & MCPH_MESSAGE_LISTEN_STREAM) != 0;
    post(std::move(c));
}

void HttpTransport::cancel(std::string_view request_id) {
    if (request_id.empty() || stopping_.load() || ended_.load()) return;
    engine_->cancel(std::string(request_id));
}

void HttpTransport::set_option(std::string_view key, std::string_view value) {
    if (key == "protocol-version") {
        if (!is_visible_ascii(value)) throw Error(MCPH_ERR_INVALID_ARGUMENT, "protocol-version must be a token");
        return post(Command::of(Command::Kind::ProtocolVersion, std::string(value)));
    }
    if (key == "initialized") return post(Command::of(Command::Kind::Initialized));
    if (key == "era") {
        if (value != "modern" && value != "legacy")
            throw Error(MCPH_ERR_INVALID_ARGUMENT, "era must be 'modern' or 'legacy'");
        return post(Command::of(Command::Kind::Era, std::string(value)));
    }
    throw Error(MCPH_ERR_UNSUPPORTED, "unknown option '" + std::string(key) + "'");
}

void HttpTransport::post(Command command) {
    if (!engine_->mailbox().push(std::move(command)))
        throw Error(MCPH_ERR_IO, "too many messages queued or in flight on the HTTP transport (at most " +
                                     std::to_string(engine_->mailbox().max_commands()) + " messages or " +
                                     std::to_string(engine_->mailbox().max_bytes()) +
                                     " bytes); the server does not keep up");
    engine_->notify();
}

mcph_status HttpTransport::pump(std::int32_t timeout_ms) { return engine_->pump(timeout_ms); }

// The engine sends DELETE for the session (bounded), removes every transfer and returns; after
// the join no callback can fire.
void HttpTransport::close() noexcept {
    if (closed_) return;
    closed_ = true;
    stopping_.store(true);
    engine_->stop();       // a pump in progress returns; the loop thread ends once the pumper left
    engine_->join_loop();  // (a retired one comes back for the cleanup)
}

}  // namespace mcph::http
