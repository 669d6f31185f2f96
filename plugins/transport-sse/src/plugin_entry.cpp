// The plugin's single exported symbol: mcph_plugin_entry, serving config types "sse" and "sse-ide".
#include "sse_transport.hpp"

#include <mcph/plugin_helper.hpp>

namespace {

// Every transport of this host is gone: the idle watch's thread ends unless another host in the
// process still has a transport armed there (the library may be unmapped after the last shutdown).
void shutdown() { mcph::sse::stop_idle_watch_if_unused(); }

const char* const kConfigTypes[] = {"sse", "sse-ide", nullptr};
// The same types, readable without loading the plugin (the host loads it when a server needs one).
MCPH_PLUGIN_MANIFEST("{\"manifest\":1,\"transports\":[\"sse\",\"sse-ide\"]}")

// LEGACY_ONLY: this is the 2024-11-05 "HTTP with SSE" transport, nothing else. Not
// SESSION_CAN_EXPIRE: the session lives exactly as long as the event stream, so losing it is the
// stream's end (on_closed ERROR, and the host reconnects); this plugin never reports
// MCPH_CLOSE_SESSION_EXPIRED, so there is no expired session to start afresh within a connection.
const auto kVtable = mcph::plugin::make_transport_vtable<mcph::sse::SseTransport>(kConfigTypes, MCPH_TRAIT_LEGACY_ONLY);

}  // namespace

MCPH_DEFINE_PLUGIN_WITH_SHUTDOWN("transport-sse", "0.1.0",
                                 "MCP legacy HTTP with SSE transport (2024-11-05), over libcurl", nullptr, shutdown,
                                 MCPH_TRANSPORT_INTERFACE_V1, &kVtable)
