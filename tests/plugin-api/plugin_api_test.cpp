// plugin_api.h as C++: the struct_size-first rule, and the same layout as the C compiler's
// (abi_c_check.c, compiled as -std=c99 -pedantic, reports its sizes and offsets).
#include <mcph/plugin_api.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <type_traits>

extern "C" {
size_t mcph_c_sizeof(int which);
size_t mcph_c_offsetof_struct_size(int which);
size_t mcph_c_offsetof_last_field(int which);
int mcph_c_str_from_roundtrip(void);
}

namespace {

// Keep in sync with abi_c_check.c.
enum { C_ERROR, C_HEADER_SINK, C_STRING_SINK, C_HOST_SERVICES, C_CALLBACKS, C_TRANSPORT_VTABLE, C_AUTH_VTABLE, C_PLUGIN,
       C_STR, C_AUTH_REQUEST, C_AUTH_COMPLETION };

static_assert(offsetof(mcph_error, struct_size) == 0);
static_assert(offsetof(mcph_header_sink, struct_size) == 0);
static_assert(offsetof(mcph_string_sink, struct_size) == 0);
static_assert(offsetof(mcph_host_services, struct_size) == 0);
static_assert(offsetof(mcph_transport_callbacks, struct_size) == 0);
static_assert(offsetof(mcph_transport_vtable_v1, struct_size) == 0);
static_assert(offsetof(mcph_auth_vtable_v1, struct_size) == 0);
static_assert(offsetof(mcph_plugin, struct_size) == 0);
// Plain C structs on both sides: nothing C++ may sneak into them.
static_assert(std::is_standard_layout_v<mcph_plugin> && std::is_trivially_copyable_v<mcph_plugin>);
static_assert(std::is_standard_layout_v<mcph_transport_vtable_v1> && std::is_trivially_copyable_v<mcph_transport_vtable_v1>);
static_assert(std::is_standard_layout_v<mcph_host_services> && std::is_trivially_copyable_v<mcph_host_services>);
static_assert(std::is_same_v<decltype(mcph_error::struct_size), uint32_t>);
static_assert(std::is_same_v<decltype(mcph_plugin::struct_size), uint32_t>);

struct Layout {
    const char* name;
    int which;
    std::size_t cxx_size;
    std::size_t cxx_struct_size_offset;
    std::size_t cxx_last_field_offset;
};

const Layout kLayouts[] = {
    {"mcph_error", C_ERROR, sizeof(mcph_error), offsetof(mcph_error, struct_size), offsetof(mcph_error, message)},
    {"mcph_header_sink", C_HEADER_SINK, sizeof(mcph_header_sink), offsetof(mcph_header_sink, struct_size),
     offsetof(mcph_header_sink, add)},
    {"mcph_string_sink", C_STRING_SINK, sizeof(mcph_string_sink), offsetof(mcph_string_sink, struct_size),
     offsetof(mcph_string_sink, set)},
    {"mcph_host_services", C_HOST_SERVICES, sizeof(mcph_host_services), offsetof(mcph_host_services, struct_size),
     offsetof(mcph_host_services, check_fetch_url)},
    {"mcph_transport_callbacks", C_CALLBACKS, sizeof(mcph_transport_callbacks),
     offsetof(mcph_transport_callbacks, struct_size), offsetof(mcph_transport_callbacks, on_auth_challenge)},
    {"mcph_transport_vtable_v1", C_TRANSPORT_VTABLE, sizeof(mcph_transport_vtable_v1),
     offsetof(mcph_transport_vtable_v1, struct_size), offsetof(mcph_transport_vtable_v1, destroy)},
    {"mcph_auth_vtable_v1", C_AUTH_VTABLE, sizeof(mcph_auth_vtable_v1), offsetof(mcph_auth_vtable_v1, struct_size),
     offsetof(mcph_auth_vtable_v1, destroy)},
    {"mcph_plugin", C_PLUGIN, sizeof(mcph_plugin), offsetof(mcph_plugin, struct_size), offsetof(mcph_plugin, shutdown)},
    {"mcph_auth_request", C_AUTH_REQUEST, sizeof(mcph_auth_request), offsetof(mcph_auth_request, struct_size),
     offsetof(mcph_auth_request, response_header_count)},
    {"mcph_auth_completion", C_AUTH_COMPLETION, sizeof(mcph_auth_completion),
     offsetof(mcph_auth_completion, struct_size), offsetof(mcph_auth_completion, complete)},
};

// 1.2 appended: every new field sits after the last 1.1 field of its struct, so a 1.1 reader,
// which stops at its struct_size, never sees them.
static_assert(offsetof(mcph_transport_callbacks, get_request_headers_ex) >
              offsetof(mcph_transport_callbacks, on_closed_ex));
static_assert(offsetof(mcph_transport_callbacks, on_auth_challenge_ex) >
              offsetof(mcph_transport_callbacks, get_request_headers_ex));
static_assert(offsetof(mcph_auth_vtable_v1, get_headers_ex) > offsetof(mcph_auth_vtable_v1, destroy));
static_assert(offsetof(mcph_auth_vtable_v1, cancel) > offsetof(mcph_auth_vtable_v1, handle_challenge_ex));
static_assert(offsetof(mcph_host_services, secret_lock) > offsetof(mcph_host_services, check_fetch_url));
static_assert(offsetof(mcph_host_services, secret_unlock) > offsetof(mcph_host_services, secret_lock));
// 1.3 appended `pump` after the last 1.1 field of the transport vtable.
static_assert(offsetof(mcph_transport_vtable_v1, pump) > offsetof(mcph_transport_vtable_v1, cancel));

TEST(PluginApiLayout, StructSizeComesFirstInEveryVersionedStruct) {
    for (const Layout& l : kLayouts) {
        SCOPED_TRACE(l.name);
        EXPECT_EQ(l.cxx_struct_size_offset, 0u);
        EXPECT_EQ(mcph_c_offsetof_struct_size(l.which), 0u);
    }
}

TEST(PluginApiLayout, CAndCxxAgreeOnSizesAndOffsets) {
    for (const Layout& l : kLayouts) {
        SCOPED_TRACE(l.name);
        EXPECT_EQ(mcph_c_sizeof(l.which), l.cxx_size);
        EXPECT_EQ(mcph_c_offsetof_last_field(l.which), l.cxx_last_field_offset);
    }
    EXPECT_EQ(mcph_c_sizeof(C_STR), sizeof(mcph_str));
    EXPECT_EQ(mcph_c_offsetof_last_field(C_STR), offsetof(mcph_str, len));
}

TEST(PluginApiLayout, EnumsAreIntSizedAndStable) {
    // Status codes cross the boundary by value; their numbers are part of the ABI.
    EXPECT_EQ(sizeof(mcph_status), sizeof(int));
    EXPECT_EQ(MCPH_OK, 0);
    EXPECT_EQ(MCPH_ERR_INVALID_ARGUMENT, 1);
    EXPECT_EQ(MCPH_ERR_INTERNAL, 8);
    EXPECT_EQ(MCPH_ERR_CANCELLED, 9);
    EXPECT_EQ(MCPH_PENDING, 10);
    EXPECT_EQ(MCPH_BUSY, 11);
    EXPECT_EQ(MCPH_AUTH_NONBLOCKING, 1u);
    EXPECT_EQ(MCPH_CLOSE_AUTH_REQUIRED, 3);
    EXPECT_EQ(MCPH_LOG_ERROR, 3);
}

TEST(PluginApiLayout, StrFromWorksInBothLanguages) {
    EXPECT_EQ(mcph_c_str_from_roundtrip(), 1);
    const char text[] = "abc";
    mcph_str s = mcph_str_from(text, 3);
    EXPECT_EQ(s.ptr, text);
    EXPECT_EQ(s.len, 3u);
}

TEST(PluginApiLayout, VersionMacros) {
    EXPECT_EQ(MCPH_ABI_MAJOR, 1u);
    EXPECT_EQ(MCPH_ABI_MINOR, 3u);
    EXPECT_STREQ(MCPH_ENTRY_SYMBOL, "mcph_plugin_entry");
    EXPECT_STREQ(MCPH_TRANSPORT_INTERFACE_V1, "mcph.transport/1");
    EXPECT_STREQ(MCPH_AUTH_INTERFACE_V1, "mcph.auth/1");
}

}  // namespace
