/* Test plugin: a well-formed descriptor from a future, incompatible ABI (abi_major = 2).
 * Written in C to show the ABI header builds a plugin without any C++. The loader must refuse it
 * after reading name/version, without calling init or get_interface. */
#include <mcph/plugin_api.h>

static int g_init_calls = 0;

static mcph_status abi2_init(const mcph_host_services* host, mcph_error* err) {
    (void)host;
    (void)err;
    ++g_init_calls; /* never reached: the host must check abi_major first */
    return MCPH_OK;
}

static const void* abi2_get_interface(const char* interface_id) {
    (void)interface_id;
    return NULL;
}

static const mcph_plugin kDescriptor = {
    sizeof(mcph_plugin), 2u, 7u, "abi-two", "9.9.9", "a plugin built for ABI 2", abi2_init, abi2_get_interface, NULL};

const mcph_plugin* mcph_plugin_entry(void) { return &kDescriptor; }
