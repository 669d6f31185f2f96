// Loading a built transport plugin the way the host does — dlopen, the entry point, init with the
// host's services, the transport vtable — and the small helpers every transport harness needs
// around its C calls. Header-only, shared by the transport plugin tests (stdio, HTTP, SSE,
// WebSocket), which drive the plugin's C ABI in-process.
#pragma once

#include <mcph/plugin_api.h>

#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

namespace mcph_test {

inline mcph_error make_error() {
    mcph_error e;
    std::memset(&e, 0, sizeof e);
    e.struct_size = sizeof e;
    return e;
}

// Host services of this ABI with only `log` set (the plugins need nothing else from a test host).
inline mcph_host_services services_with_log(void (*log)(void*, mcph_log_level, mcph_str, mcph_str)) {
    mcph_host_services s;
    std::memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    s.abi_major = MCPH_ABI_MAJOR;
    s.abi_minor = MCPH_ABI_MINOR;
    s.log = log;
    return s;
}

inline const mcph_host_services* quiet_services() {
    static const mcph_host_services s = services_with_log([](void*, mcph_log_level, mcph_str, mcph_str) {});
    return &s;
}

struct TransportPlugin {
    const mcph_plugin* descriptor = nullptr;
    const mcph_transport_vtable_v1* vtable = nullptr;
};

// Throws std::runtime_error naming the step that failed. The library is never dlclose'd: the test
// process ends with it loaded, as a host would.
inline TransportPlugin load_transport_plugin(const char* path, const mcph_host_services* services) {
    void* lib = ::dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) throw std::runtime_error(std::string("dlopen: ") + ::dlerror());
    auto entry = reinterpret_cast<mcph_plugin_entry_fn>(::dlsym(lib, MCPH_ENTRY_SYMBOL));
    if (!entry) throw std::runtime_error("no mcph_plugin_entry");
    TransportPlugin out;
    out.descriptor = entry();
    mcph_error err = make_error();
    if (out.descriptor->init && out.descriptor->init(services, &err) != MCPH_OK)
        throw std::runtime_error(std::string("init: ") + err.message);
    out.vtable = static_cast<const mcph_transport_vtable_v1*>(out.descriptor->get_interface(MCPH_TRANSPORT_INTERFACE_V1));
    if (!out.vtable) throw std::runtime_error("no mcph.transport/1");
    return out;
}

inline std::string text(mcph_str s) { return s.len ? std::string(s.ptr, s.len) : std::string(); }

// `s` as a JSON string literal, for the configs and messages the tests write by hand.
inline std::string json_string(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
                    out += buf;
                } else {
                    out += c;
                }
        }
    }
    return out + "\"";
}

}  // namespace mcph_test
