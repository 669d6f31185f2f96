// McpHandler — JSON-RPC dispatch for one MCP session, independent of the transport.
//
// Two steps so a transport can look at a message before it is acted on (HTTP checks the session
// first): parse() classifies the text; handle() runs it and returns the Reply (zero or one response,
// plus any notifications to send before it). One handler per session; not thread-safe.
#pragma once

#include "json_rpc.hpp"
#include "options.hpp"
#include "reply.hpp"

#include <string>
#include <string_view>

namespace hello {

// Protocol versions this server speaks, either era (the MCP-Protocol-Version header check).
bool is_supported_protocol_version(std::string_view version);

// The 2026-07-28 ("modern") era: no initialize, no session; every request names its revision in
// params._meta["io.modelcontextprotocol/protocolVersion"] and is served on its own.
inline constexpr std::string_view kModernVersion = "2026-07-28";

// The UNSUPPORTED_PROTOCOL_VERSION (-32022) error for a request whose _meta names `requested`,
// with the data the client needs to pick again ({supported, requested}); HTTP sends it with 400.
std::string unsupported_version_message(const Value* id, std::string_view requested);

class McpHandler {
public:
    enum class Kind { Request, Notification, Response, Invalid };

    struct Message {
        Document doc;
        Kind kind = Kind::Invalid;
        std::string_view method;    // requests and notifications
        const Value* id = nullptr;  // requests (and responses)
        int error_code = 0;         // Invalid: -32700 or -32600
        std::string error;          // Invalid: why
        // params._meta["io.modelcontextprotocol/protocolVersion"], when the message carries one:
        // a modern-era message (served statelessly, results shaped for 2026-07-28).
        std::string_view envelope_version;
        bool modern() const { return !envelope_version.empty(); }
    };

    explicit McpHandler(const ServerOptions& options) : options_(options) {}

    static Message parse(std::string_view text);
    Reply handle(Message& message);
    Reply handle(std::string_view text) {
        Message m = parse(text);
        return handle(m);
    }

    // The version agreed by initialize; empty before a successful initialize.
    const std::string& protocol_version() const { return protocol_version_; }
    bool initialized() const { return initialized_; }

private:
    void initialize(const Value& params, Document& result);
    static void discover(Document& result);

    const ServerOptions& options_;
    std::string protocol_version_;
    bool initialized_ = false;  // notifications/initialized received
};

}  // namespace hello
