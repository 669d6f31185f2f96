#include "dynload/on_demand_library.hpp"

#include <mcph/error.hpp>

#include <dlfcn.h>

#include <mutex>

namespace mcph::dynload {

void* OnDemandLibrary::handle() {
    static std::mutex m;  // one mutex for every on-demand library: opening is rare
    std::lock_guard lock(m);
    if (!handle_) {
        // RTLD_LOCAL: like a DT_NEEDED dependency of libmcph, nothing else binds to it through us.
        // If a plugin already loaded the same soname, this returns that copy.
        handle_ = ::dlopen(soname_, RTLD_NOW | RTLD_LOCAL);
        if (!handle_) {
            const char* why = ::dlerror();
            throw Error(ErrorKind::Plugin, std::string("cannot load ") + soname_ + " (install it: it is a dependency of " +
                                               needed_by_ + "): " + (why ? why : "unknown reason"));
        }
        opened_.store(true, std::memory_order_release);
    }
    return handle_;
}

void* OnDemandLibrary::symbol(const char* name) {
    void* h = handle();
    ::dlerror();
    void* address = ::dlsym(h, name);
    if (!address)
        throw Error(ErrorKind::Plugin, std::string(soname_) + " has no symbol " + name + " (an older version than this build needs)");
    return address;
}

OnDemandLibrary& libcurl() {
    static OnDemandLibrary library("libcurl.so.4");
    return library;
}

// Never closed: GLib registers types and threads that cannot be unloaded, and libcurl's global
// state lives until exit; both are opened at most once per process.
OnDemandLibrary& libsecret() {
    static OnDemandLibrary library("libsecret-1.so.0");
    return library;
}

OnDemandLibrary& libcrypto() {
    static OnDemandLibrary library("libcrypto.so.3");
    return library;
}

bool libcurl_opened() { return libcurl().opened(); }

}  // namespace mcph::dynload
