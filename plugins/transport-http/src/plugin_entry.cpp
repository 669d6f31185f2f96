// The plugin's single exported symbol: mcph_plugin_entry, serving config type "http".
#include "curl_handles.hpp"
#include "engine.hpp"
#include "http_transport.hpp"

#include <mcph/plugin_helper.hpp>

namespace {

mcph_status init(const mcph_host_services*, mcph_error*) {
    mcph::http::global_init_once();  // before any thread of ours exists
    return MCPH_OK;
}

// Every transport of this host is gone: the idle watch's thread ends unless another host in the
// process still has a transport armed there (the library may be unmapped after the last shutdown).
void shutdown() { mcph::http::stop_idle_watch_if_unused(); }

const char* const kConfigTypes[] = {"http", nullptr};
// The same types, readable without loading the plugin (the host loads it when a server needs one).
MCPH_PLUGIN_MANIFEST("{\"manifest\":1,\"transports\":[\"http\"]}")

// Streamable HTTP: a legacy-era session can expire (404), message facts travel as headers, and
// closing one request's response stream cancels it (2026-07-28).
const auto kVtable = mcph::plugin::make_transport_vtable<mcph::http::HttpTransport>(
    kConfigTypes, MCPH_TRAIT_SESSION_CAN_EXPIRE | MCPH_TRAIT_HTTP_HEADERS | MCPH_TRAIT_PER_REQUEST_CANCEL);

}  // namespace

MCPH_DEFINE_PLUGIN_WITH_SHUTDOWN("transport-http", "0.1.0", "MCP servers over Streamable HTTP (libcurl)", init,
                                 shutdown, MCPH_TRANSPORT_INTERFACE_V1, &kVtable)
