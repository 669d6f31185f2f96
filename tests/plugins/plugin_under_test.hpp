// Loading a built transport plugin the way the host does — dlopen, the entry point, init with the
// host's services, the transport vtable — and the small helpers every transport harness needs
// around its C calls. Header-only, shared by the transport plugin tests (stdio, HTTP, SSE,
// WebSocket), which drive the plugin's C ABI in-process.
#pragma once

#include "../json_literal.hpp"

#include <mcph/plugin_api.h>

#include <dlfcn.h>

#include <cstdint>
#include <cstring>
#include <mutex>
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

// One transport made through a plugin's vtable; keeps the message of the last failed call. A
// harness's Transport derives from Recording<its Recorder> first (so the recorder whose callbacks
// the transport is created with is built before it and destroyed after it) and from this, and
// closes in its destructor in its own way (what its host does around the plugin's close); this
// destroys the transport after that.
template <class Recorder>
struct Recording {
    explicit Recording(bool typed) : recorder(typed) {}
    Recorder recorder;
};

class PluginTransport {
public:
    PluginTransport(const mcph_transport_vtable_v1* vtable, const mcph_host_services* services, std::string_view config_json,
                    const mcph_transport_callbacks* callbacks)
        : vtable_(vtable) {
        mcph_error err = make_error();
        create_status_ = vtable_->create(services, mcph_str_from(config_json.data(), config_json.size()), callbacks,
                                         &transport_, &err);
        if (create_status_ != MCPH_OK) note_error(err);
    }
    ~PluginTransport() {
        if (transport_) vtable_->destroy(transport_);
    }
    PluginTransport(const PluginTransport&) = delete;
    PluginTransport& operator=(const PluginTransport&) = delete;

    mcph_status create_status() const { return create_status_; }
    std::string error() const {  // message of the last failed call (start, send, set_option)
        std::lock_guard lock(error_mutex_);
        return error_;
    }

    mcph_status start() {
        mcph_error err = make_error();
        return noted(vtable_->start(transport_, &err), err);
    }
    mcph_status send(std::string_view message) {
        mcph_error err = make_error();
        return noted(vtable_->send(transport_, mcph_str_from(message.data(), message.size()), &err), err);
    }
    mcph_status set_option(std::string_view key, std::string_view value) {
        mcph_error err = make_error();
        return noted(vtable_->set_option(transport_, mcph_str_from(key.data(), key.size()),
                                         mcph_str_from(value.data(), value.size()), &err),
                     err);
    }
    // ABI 1.3 pump; callable from any test thread (does not touch error()).
    mcph_status pump(std::int32_t timeout_ms) {
        mcph_error err = make_error();
        return vtable_->pump(transport_, timeout_ms, &err);
    }

protected:
    mcph_transport* handle() const { return transport_; }
    const mcph_transport_vtable_v1* vtable() const { return vtable_; }
    void close_transport() {
        if (transport_) vtable_->close(transport_);
    }
    mcph_status noted(mcph_status status, const mcph_error& err) {
        if (status != MCPH_OK) note_error(err);
        return status;
    }

private:
    void note_error(const mcph_error& err) {
        std::lock_guard lock(error_mutex_);
        error_ = err.message;
    }

    const mcph_transport_vtable_v1* vtable_;
    mcph_transport* transport_ = nullptr;
    mcph_status create_status_ = MCPH_ERR_INTERNAL;
    mutable std::mutex error_mutex_;
    std::string error_;
};

inline std::string text(mcph_str s) { return s.len ? std::string(s.ptr, s.len) : std::string(); }

}  // namespace mcph_test
