#include "transport/in_process_transport.hpp"

#include <mcph/error.hpp>
#include <mcph/in_process_server.hpp>

namespace mcph {

// The key function of the public interface: its vtable and typeinfo live here, in libmcph.
InProcessServer::~InProcessServer() = default;

}  // namespace mcph

namespace mcph::transport {

InProcessTransport::InProcessTransport(std::shared_ptr<InProcessServer> server, TransportListener* listener)
    : server_(std::move(server)), link_(std::make_shared<Link>()) {
    link_->listener = listener;
    std::weak_ptr<Link> weak = link_;
    reply_ = [weak](std::string_view message) {
        auto link = weak.lock();
        if (!link) return;
        std::lock_guard lock(link->mutex);
        if (link->open) link->listener->on_transport_message(message);
    };
}

InProcessTransport::~InProcessTransport() { close(); }

void InProcessTransport::start() {
    if (!server_) throw Error(ErrorKind::Connection, "no in-process server is registered under this name");
}

void InProcessTransport::send(std::string_view message, const MessageFacts* /*facts*/) {
    {
        std::lock_guard lock(link_->mutex);
        if (!link_->open) throw Error(ErrorKind::Connection, "in-process connection is closed");
    }
    try {
        server_->on_client_message(message, reply_);
    } catch (const std::exception& e) {
        throw Error(ErrorKind::Connection, std::string("in-process server failed: ") + e.what());
    }
}

void InProcessTransport::close() {
    {
        std::lock_guard lock(link_->mutex);  // waits for a delivery in progress
        if (!link_->open) return;
        link_->open = false;
    }
    if (server_) server_->on_client_closed();
}

}  // namespace mcph::transport
