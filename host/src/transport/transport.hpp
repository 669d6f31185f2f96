// What a session needs from a transport, whether a loaded plugin (TransportChannel) or the
// in-process one (InProcessTransport).
#pragma once

#include <string_view>

namespace mcph::transport {

class Transport {
public:
    virtual ~Transport() = default;
    virtual void start() = 0;                                                // throws Error(Connection)
    virtual void send(std::string_view message) = 0;                         // throws Error(Connection)
    virtual void set_option(std::string_view key, std::string_view value) = 0;  // unknown keys ignored
    virtual void close() = 0;  // idempotent; no callbacks after it returns
};

}  // namespace mcph::transport
