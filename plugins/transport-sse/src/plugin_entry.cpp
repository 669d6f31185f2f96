// The plugin's single exported symbol: mcph_plugin_entry, serving config types "sse" and "sse-ide".
#include "sse_transport.hpp"

#include <mcph/plugin_helper.hpp>

namespace {

const char* const kConfigTypes[] = {"sse", "sse-ide", nullptr};
const auto kVtable = mcph::plugin::make_transport_vtable<mcph::sse::SseTransport>(kConfigTypes);

}  // namespace

MCPH_DEFINE_PLUGIN("transport-sse", "0.1.0", "MCP legacy HTTP with SSE transport (2024-11-05), over libcurl",
                   nullptr, MCPH_TRANSPORT_INTERFACE_V1, &kVtable)
