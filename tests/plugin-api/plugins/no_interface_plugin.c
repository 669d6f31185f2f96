/* Test plugin: valid ABI 1 descriptor whose get_interface knows no interface id at all. */
#include <mcph/plugin_api.h>

static const void* none_get_interface(const char* interface_id) {
    (void)interface_id;
    return NULL;
}

static const mcph_plugin kDescriptor = {sizeof(mcph_plugin), MCPH_ABI_MAJOR, MCPH_ABI_MINOR, "no-interface", "0.0.1",
                                        "offers nothing", NULL, none_get_interface, NULL};

const mcph_plugin* mcph_plugin_entry(void) { return &kDescriptor; }
