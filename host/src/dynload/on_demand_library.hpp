// A system library opened the first time the host needs it, not when libmcph is loaded.
//
// Why: what a process maps costs start-up time and resident memory. libcurl alone brings GnuTLS,
// Kerberos, LDAP, libssh2 and more (~3.8 MB resident); libsecret brings GLib, GIO, GObject,
// libgcrypt, libmount and libselinux (~2.2 MB, a dozen libraries whose relocations and
// constructors every start paid). A host that only starts stdio servers and never touches a stored
// secret needs neither, and the dynamic linker cannot defer a DT_NEEDED library, so libmcph names
// them here instead.
#pragma once

#include <atomic>
#include <string>

namespace mcph::dynload {

class OnDemandLibrary {
public:
    // `soname`: the exact versioned name ("libcurl.so.4"), as a DT_NEEDED entry would have it;
    // `needed_by`: who depends on it, for the message when it is missing.
    explicit OnDemandLibrary(const char* soname, const char* needed_by = "libmcph") : soname_(soname), needed_by_(needed_by) {}
    OnDemandLibrary(const OnDemandLibrary&) = delete;
    OnDemandLibrary& operator=(const OnDemandLibrary&) = delete;

    // The address of `symbol`, opening the library on first use (thread-safe). Throws
    // mcph::Error(Plugin) naming the library and the loader's reason when it or the symbol is missing:
    // an installation problem, said as one instead of a crash.
    void* symbol(const char* name);

    const char* soname() const { return soname_; }
    // Whether this process has opened it through this object (for tests and diagnostics).
    bool opened() const { return opened_.load(std::memory_order_acquire); }

private:
    void* handle();

    const char* soname_;
    const char* needed_by_;
    void* handle_ = nullptr;
    std::atomic<bool> opened_{false};
};

// The one libcurl the host core uses (URL parsing, the reachability check, remote config fetches).
OnDemandLibrary& libcurl();
// libsecret (and through it GLib/GIO): only the keyring secret store uses it (secrets/).
OnDemandLibrary& libsecret();
// libcrypto: base64 decoding of skill files only (libcrypto_on_demand.cpp).
OnDemandLibrary& libcrypto();
// libicuuc (and its data): the Unicode properties of characters outside ASCII (libicu_on_demand.cpp).
OnDemandLibrary& libicuuc();
// libidn2 (and libunistring): A-labels of host names outside ASCII (libidn2_on_demand.cpp).
OnDemandLibrary& libidn2();

// Whether libcurl has been opened by the host core in this process (for tests and the status view).
bool libcurl_opened();

}  // namespace mcph::dynload
