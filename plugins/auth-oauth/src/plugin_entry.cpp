// The plugin's single exported symbol: mcph_plugin_entry, offering mcph.auth/1 as backend "oauth".
#include "oauth_auth.hpp"

#include <mcph/plugin_helper.hpp>

#include <curl/curl.h>

#include <mutex>

namespace {

mcph_status init(const mcph_host_services*, mcph_error*) {
    static std::once_flag once;  // before any thread of ours exists
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    return MCPH_OK;
}

const auto kVtable = mcph::plugin::make_auth_vtable<mcph::oauth::OAuthAuth>("oauth");
// The same backend, readable without loading the plugin (the host loads it when a server needs it).
MCPH_PLUGIN_MANIFEST("{\"manifest\":1,\"auth\":\"oauth\"}")


}  // namespace

MCPH_DEFINE_PLUGIN("auth-oauth", "0.1.0", "OAuth 2.1 for MCP servers (discovery, PKCE, DCR/CIMD, refresh)", init,
                   MCPH_AUTH_INTERFACE_V1, &kVtable)
