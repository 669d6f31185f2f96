// An MCP server living inside the embedding application (config type "sdk"), reached without
// any I/O: the host hands each client message straight to it, and it answers through a callback.
#pragma once

#include <mcph/export.hpp>

#include <functional>
#include <string_view>

namespace mcph {

// Exported with an out-of-line destructor (the key function): one vtable and typeinfo, in libmcph.
class MCPH_API InProcessServer {
public:
    using Reply = std::function<void(std::string_view message)>;
    virtual ~InProcessServer();

    // One JSON-RPC message from the client (request, notification or response). Answer through
    // `to_client`, now or later, from any thread; it stays valid while the connection is open and
    // drops messages after it closes. Called on the thread that sent the message.
    virtual void on_client_message(std::string_view message, const Reply& to_client) = 0;
    // The client closed the connection.
    virtual void on_client_closed() {}
};

}  // namespace mcph
