// The modern envelope: what every 2026-era request carries in params._meta — the protocol
// version, the client's capabilities and identity, and per request the log level and the
// OpenTelemetry trace context the embedder supplied.
#pragma once

#include <mcph/json.hpp>
#include <mcph/types.hpp>

#include <string>

namespace mcph::session {

inline constexpr const char* kMetaProtocolVersion = "io.modelcontextprotocol/protocolVersion";
inline constexpr const char* kMetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities";
inline constexpr const char* kMetaClientInfo = "io.modelcontextprotocol/clientInfo";
inline constexpr const char* kMetaServerInfo = "io.modelcontextprotocol/serverInfo";
inline constexpr const char* kMetaLogLevel = "io.modelcontextprotocol/logLevel";
inline constexpr const char* kMetaSubscriptionId = "io.modelcontextprotocol/subscriptionId";

// The capabilities this client declares, in both eras (initialize params, or every modern
// request's _meta). `extensions` is the extensions map ({} when none).
Json client_capabilities(const JsonValue& extensions);

// {"name","version"[,"title"]}
Json implementation_json(const Implementation& info);

struct RequestMeta {
    std::string protocol_version;
    const JsonValue* capabilities = nullptr;
    const JsonValue* client_info = nullptr;
    std::string log_level;    // empty: the server sends no notifications/message for this request
    std::string traceparent;  // W3C trace context, passed through when the embedder supplies it
    std::string tracestate;
    std::string baggage;
};

// Adds the envelope to `params` (a null params becomes an object); keys the caller already put in
// params._meta (a progressToken, its own metadata) are kept.
void add_request_meta(Json& params, const RequestMeta& meta);

// The envelope as text: exactly the `_meta` object add_request_meta would put in an empty params,
// serialised. A session keeps it and the engine writes it as params._meta
// (jsonrpc::RequestSettings::meta_json), so a request does not deep-copy the capabilities into its
// params and write them out again each time (issue #16: ~20% of a modern call's client work).
std::string serialized_request_meta(const RequestMeta& meta);

}  // namespace mcph::session
