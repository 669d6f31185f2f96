// The plugin's single exported symbol: mcph_plugin_entry, serving config types "ws" and "ws-ide".
//
// Written out rather than with MCPH_DEFINE_PLUGIN because we need `shutdown`: libwebsockets keeps
// our log hook in a process-wide variable, which must not point into this library once the host
// unloads it.
#include "lws_log.hpp"
#include "ws_transport.hpp"

#include <mcph/plugin_helper.hpp>

#include <cstring>

namespace {

mcph_status init(const mcph_host_services* host, mcph_error*) {
    mcph::ws::install_lws_log(host);
    return MCPH_OK;
}

void shutdown() {
    mcph::ws::stop_idle_watch_if_unused();
    mcph::ws::uninstall_lws_log();
}

const char* const kConfigTypes[] = {"ws", "ws-ide", nullptr};
// The same types, readable without loading the plugin (the host loads it when a server needs one).
MCPH_PLUGIN_MANIFEST("{\"manifest\":1,\"transports\":[\"ws\",\"ws-ide\"]}")

// No traits: a WebSocket carries no session id the server could forget while we keep the
// connection — the MCP session is the connection, so its end is on_closed, never
// MCPH_CLOSE_SESSION_EXPIRED — and the transport speaks whichever era the host negotiates.
const auto kVtable = mcph::plugin::make_transport_vtable<mcph::ws::WsTransport>(kConfigTypes, 0);

const void* get_interface(const char* id) {
    return (id && std::strcmp(id, MCPH_TRANSPORT_INTERFACE_V1) == 0) ? static_cast<const void*>(&kVtable) : nullptr;
}

}  // namespace

extern "C" MCPH_PLUGIN_EXPORT const mcph_plugin* mcph_plugin_entry(void) {
    static const mcph_plugin descriptor = {sizeof(mcph_plugin),
                                           MCPH_ABI_MAJOR,
                                           MCPH_ABI_MINOR,
                                           "transport-ws",
                                           "0.1.0",
                                           "MCP over WebSocket (libwebsockets): one JSON-RPC message per text frame",
                                           init,
                                           get_interface,
                                           shutdown};
    return &descriptor;
}
