/* plugin_api.h as ISO C99 (-std=c99 -pedantic -Wall -Wextra -Werror): it must compile, and every
 * versioned struct must start with struct_size. The layout numbers are exported to the C++ test,
 * which compares them with what the C++ compiler sees (the two must agree byte for byte). */
#include <mcph/plugin_api.h>

#include <stddef.h>

/* C99 has no _Static_assert: a negative array size fails the build instead. */
#define MCPH_C_STATIC_ASSERT(name, cond) typedef char mcph_c_static_assert_##name[(cond) ? 1 : -1]

MCPH_C_STATIC_ASSERT(error_first, offsetof(mcph_error, struct_size) == 0);
MCPH_C_STATIC_ASSERT(header_sink_first, offsetof(mcph_header_sink, struct_size) == 0);
MCPH_C_STATIC_ASSERT(string_sink_first, offsetof(mcph_string_sink, struct_size) == 0);
MCPH_C_STATIC_ASSERT(host_services_first, offsetof(mcph_host_services, struct_size) == 0);
MCPH_C_STATIC_ASSERT(callbacks_first, offsetof(mcph_transport_callbacks, struct_size) == 0);
MCPH_C_STATIC_ASSERT(transport_vtable_first, offsetof(mcph_transport_vtable_v1, struct_size) == 0);
MCPH_C_STATIC_ASSERT(auth_vtable_first, offsetof(mcph_auth_vtable_v1, struct_size) == 0);
MCPH_C_STATIC_ASSERT(plugin_first, offsetof(mcph_plugin, struct_size) == 0);

/* Keep in sync with the enum in plugin_api_test.cpp. */
enum { C_ERROR, C_HEADER_SINK, C_STRING_SINK, C_HOST_SERVICES, C_CALLBACKS, C_TRANSPORT_VTABLE, C_AUTH_VTABLE, C_PLUGIN,
       C_STR, C_AUTH_REQUEST, C_AUTH_COMPLETION, C_STRUCT_COUNT };

size_t mcph_c_sizeof(int which);
size_t mcph_c_offsetof_struct_size(int which);
size_t mcph_c_offsetof_last_field(int which);
int mcph_c_str_from_roundtrip(void);

size_t mcph_c_sizeof(int which) {
    switch (which) {
        case C_ERROR: return sizeof(mcph_error);
        case C_HEADER_SINK: return sizeof(mcph_header_sink);
        case C_STRING_SINK: return sizeof(mcph_string_sink);
        case C_HOST_SERVICES: return sizeof(mcph_host_services);
        case C_CALLBACKS: return sizeof(mcph_transport_callbacks);
        case C_TRANSPORT_VTABLE: return sizeof(mcph_transport_vtable_v1);
        case C_AUTH_VTABLE: return sizeof(mcph_auth_vtable_v1);
        case C_PLUGIN: return sizeof(mcph_plugin);
        case C_STR: return sizeof(mcph_str);
        case C_AUTH_REQUEST: return sizeof(mcph_auth_request);
        case C_AUTH_COMPLETION: return sizeof(mcph_auth_completion);
        default: return 0;
    }
}

size_t mcph_c_offsetof_struct_size(int which) {
    switch (which) {
        case C_ERROR: return offsetof(mcph_error, struct_size);
        case C_HEADER_SINK: return offsetof(mcph_header_sink, struct_size);
        case C_STRING_SINK: return offsetof(mcph_string_sink, struct_size);
        case C_HOST_SERVICES: return offsetof(mcph_host_services, struct_size);
        case C_CALLBACKS: return offsetof(mcph_transport_callbacks, struct_size);
        case C_TRANSPORT_VTABLE: return offsetof(mcph_transport_vtable_v1, struct_size);
        case C_AUTH_VTABLE: return offsetof(mcph_auth_vtable_v1, struct_size);
        case C_PLUGIN: return offsetof(mcph_plugin, struct_size);
        case C_AUTH_REQUEST: return offsetof(mcph_auth_request, struct_size);
        case C_AUTH_COMPLETION: return offsetof(mcph_auth_completion, struct_size);
        default: return (size_t)-1;
    }
}

/* The offset of each struct's last field: where appended (abi_minor) fields would start. */
size_t mcph_c_offsetof_last_field(int which) {
    switch (which) {
        case C_ERROR: return offsetof(mcph_error, message);
        case C_HEADER_SINK: return offsetof(mcph_header_sink, add);
        case C_STRING_SINK: return offsetof(mcph_string_sink, set);
        case C_HOST_SERVICES: return offsetof(mcph_host_services, check_fetch_url);
        case C_CALLBACKS: return offsetof(mcph_transport_callbacks, on_auth_challenge);
        case C_TRANSPORT_VTABLE: return offsetof(mcph_transport_vtable_v1, destroy);
        case C_AUTH_VTABLE: return offsetof(mcph_auth_vtable_v1, destroy);
        case C_PLUGIN: return offsetof(mcph_plugin, shutdown);
        case C_STR: return offsetof(mcph_str, len);
        case C_AUTH_REQUEST: return offsetof(mcph_auth_request, response_header_count);
        case C_AUTH_COMPLETION: return offsetof(mcph_auth_completion, complete);
        default: return (size_t)-1;
    }
}

/* The header's static inline helper, used from C. */
int mcph_c_str_from_roundtrip(void) {
    static const char text[] = "hello";
    mcph_str s = mcph_str_from(text, 5);
    return s.ptr == text && s.len == 5 ? 1 : 0;
}
