// The plugin's single exported symbol: mcph_plugin_entry, serving config type "stdio".
#include "signals.hpp"
#include "stdio_idle_watch.hpp"
#include "stdio_transport.hpp"

#include <mcph/plugin_helper.hpp>

namespace {

mcph_status init(const mcph_host_services*, mcph_error*) {
    mcph::stdio::ignore_sigpipe_once();  // why: see signals.hpp
    return MCPH_OK;
}

// Every transport of this host is gone: the idle watch's thread ends unless another host in the
// process still has a server armed there (the library may be unmapped after the last shutdown).
void shutdown() { mcph::stdio::idle_watch().stop_if_unused(); }

const char* const kConfigTypes[] = {"stdio", nullptr};
// The same types, readable without loading the plugin (the host loads it when a server needs one).
MCPH_PLUGIN_MANIFEST("{\"manifest\":1,\"transports\":[\"stdio\"]}")

// No traits: a child process has no session the server could forget (it ends with the process),
// and it speaks whichever era the host negotiates.
const auto kVtable = mcph::plugin::make_transport_vtable<mcph::stdio::StdioTransport>(kConfigTypes, 0);

}  // namespace

MCPH_DEFINE_PLUGIN_WITH_SHUTDOWN("transport-stdio", "0.1.0",
                                 "MCP servers as child processes (newline-delimited JSON-RPC on stdio)", init, shutdown,
                                 MCPH_TRANSPORT_INTERFACE_V1, &kVtable)
