#include "http_transport.hpp"

#include "jsonrpc_shape.hpp"

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
    io_thread_ = std::thread([this] { engine_->run(); });
    started_ = true;
}

// Parsed here, on the caller's thread, once: the request ids tell the I/O thread which
// responses to expect, so a failed exchange can be answered with an error instead of hanging.
void HttpTransport::send(std::string_view message) {
    if (stopping_.load() || ended_.load()) throw Error(MCPH_ERR_CLOSED, "the transport is closed");
    if (message.size() > config_.max_message_bytes)
        throw Error(MCPH_ERR_INVALID_ARGUMENT, "the message is larger than maxMessageBytes");
    MessageShape shape = inspect_message(message);
    if (!shape.valid) throw Error(MCPH_ERR_INVALID_ARGUMENT, "the message is not a JSON object or array");
    post(Command{Command::Kind::Send, std::string(message), std::move(shape.request_ids),
                 std::move(shape.cancelled_ids), {}});
}

void HttpTransport::set_option(std::string_view key, std::string_view value) {
    if (key == "protocol-version") {
        if (!is_visible_ascii(value)) throw Error(MCPH_ERR_INVALID_ARGUMENT, "protocol-version must be a token");
        return post(Command{Command::Kind::ProtocolVersion, std::string(value), {}, {}, {}});
    }
    if (key == "initialized") return post(Command{Command::Kind::Initialized, {}, {}, {}, {}});
    throw Error(MCPH_ERR_UNSUPPORTED, "unknown option '" + std::string(key) + "'");
}

void HttpTransport::post(Command command) {
    if (!engine_->mailbox().push(std::move(command)))
        throw Error(MCPH_ERR_IO, "too many messages queued or in flight on the HTTP transport (at most " +
                                     std::to_string(engine_->mailbox().max_commands()) + " messages or " +
                                     std::to_string(engine_->mailbox().max_bytes()) +
                                     " bytes); the server does not keep up");
    engine_->wake();
}

// The engine sends DELETE for the session (bounded), removes every transfer and returns; after
// the join no callback can fire.
void HttpTransport::close() noexcept {
    if (closed_) return;
    closed_ = true;
    stopping_.store(true);
    engine_->wake();
    if (io_thread_.joinable()) io_thread_.join();
}

}  // namespace mcph::http
