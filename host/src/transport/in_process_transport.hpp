// The "sdk" transport: the session talks to an InProcessServer through direct calls. Messages
// are still JSON text (the server sees exactly what a remote one would), but nothing is copied
// through a pipe or socket and no thread is involved.
#pragma once

#include "transport/transport.hpp"
#include "transport/transport_channel.hpp"

#include <mcph/in_process_server.hpp>

#include <atomic>
#include <memory>
#include <mutex>

namespace mcph::transport {

class InProcessTransport : public Transport {
public:
    InProcessTransport(std::shared_ptr<InProcessServer> server, TransportListener* listener);
    ~InProcessTransport() override;

    void start() override;
    using Transport::send;
    void send(std::string_view message, const MessageFacts* facts) override;
    void set_option(std::string_view, std::string_view) override {}
    std::uint32_t traits() const override { return 0; }
    void close() override;

private:
    // Shared with every Reply handed to the server, so a late reply after close is dropped safely.
    struct Link {
        std::recursive_mutex mutex;  // serialises deliveries; recursive: the client may send from inside one
        TransportListener* listener;
        bool open = true;
    };

    std::shared_ptr<InProcessServer> server_;
    std::shared_ptr<Link> link_;
    InProcessServer::Reply reply_;
};

}  // namespace mcph::transport
