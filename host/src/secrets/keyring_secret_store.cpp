#include "secrets/keyring_secret_store.hpp"

#include "dynload/on_demand_library.hpp"

#include <mcph/error.hpp>

#include <libsecret/secret.h>

#include <condition_variable>
#include <cstdlib>
#include <sys/stat.h>
#include <thread>

namespace mcph::secrets {
namespace {

using std::chrono::milliseconds;

// libsecret and the GLib functions this file calls, resolved from libsecret-1.so.0 when the keyring
// is first asked about (dynload::libsecret()): libmcph has no DT_NEEDED entry for libsecret, so a
// host that never touches a stored secret never maps it, GLib, GIO and their dependencies. Only
// libsecret's headers are used (host/CMakeLists.txt); a direct call would not link. Several of
// these are variadic, hence pointers with the header's own types rather than forwarding
// definitions like dynload/libcurl_on_demand.cpp's.
struct SecretApi {
#define MCPH_SECRET_FN(fn) decltype(&::fn) fn = resolve<decltype(&::fn)>(#fn)
    template <class F>
    static F resolve(const char* name) {
        return reinterpret_cast<F>(dynload::libsecret().symbol(name));
    }
    MCPH_SECRET_FN(g_cancellable_new);
    MCPH_SECRET_FN(g_cancellable_cancel);
    MCPH_SECRET_FN(g_object_unref);
    MCPH_SECRET_FN(g_error_free);
    MCPH_SECRET_FN(g_bus_get_sync);
    MCPH_SECRET_FN(g_dbus_connection_call_sync);
    MCPH_SECRET_FN(g_variant_new);
    MCPH_SECRET_FN(g_variant_get);
    MCPH_SECRET_FN(g_variant_unref);
    MCPH_SECRET_FN(secret_service_get_sync);
    MCPH_SECRET_FN(secret_collection_for_alias_sync);
    MCPH_SECRET_FN(secret_collection_get_locked);
    MCPH_SECRET_FN(secret_password_lookup_sync);
    MCPH_SECRET_FN(secret_password_store_sync);
    MCPH_SECRET_FN(secret_password_clear_sync);
    MCPH_SECRET_FN(secret_password_free);
#undef MCPH_SECRET_FN
};

// Opens libsecret on first use (thread-safe); throws mcph::Error(Plugin) naming the library or
// the symbol when it is missing.
const SecretApi& api() {
    static const SecretApi table;
    return table;
}

// G_VARIANT_TYPE without the checked cast that would call into GLib: the type string is a literal.
const GVariantType* variant_type(const char* type_string) { return reinterpret_cast<const GVariantType*>(type_string); }

const SecretSchema* schema() {
    // SECRET_SCHEMA_NONE: items are matched by our attribute only, never by the schema name of
    // another application that happens to use a "key" attribute.
    static const SecretSchema s = {
        "io.github.mcph.Secret", SECRET_SCHEMA_NONE,
        {{"key", SECRET_SCHEMA_ATTRIBUTE_STRING}, {nullptr, SECRET_SCHEMA_ATTRIBUTE_STRING}},
        0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
    return &s;
}

// A GCancellable that cancels itself when the bound passes: libsecret's and GDBus's sync calls
// all take one, and cancelling is thread-safe.
class Deadline {
public:
    explicit Deadline(milliseconds timeout) : cancellable_(api().g_cancellable_new()) {
        watchdog_ = std::thread([this, timeout] {
            std::unique_lock lock(mutex_);
            if (!cv_.wait_for(lock, timeout, [this] { return done_; })) {
                expired_ = true;
                api().g_cancellable_cancel(cancellable_);
            }
        });
    }
    ~Deadline() {
        {
            std::lock_guard lock(mutex_);
            done_ = true;
        }
        cv_.notify_all();
        watchdog_.join();
        api().g_object_unref(cancellable_);
    }
    Deadline(const Deadline&) = delete;
    Deadline& operator=(const Deadline&) = delete;

    GCancellable* cancellable() const { return cancellable_; }
    bool expired() {
        std::lock_guard lock(mutex_);
        return expired_;
    }

private:
    GCancellable* cancellable_;
    std::mutex mutex_;
    std::condition_variable cv_;
    bool done_ = false;
    bool expired_ = false;
    std::thread watchdog_;
};

// Owns a GError and turns it into text.
struct ErrorBox {
    GError* error = nullptr;
    ~ErrorBox() {
        if (error) api().g_error_free(error);
    }
    std::string text() const { return error && error->message ? error->message : "unknown error"; }
};

std::string did_not_answer(const char* who, milliseconds timeout) {
    return std::string(who) + " did not answer within " + std::to_string(timeout.count()) + " ms";
}

[[noreturn]] void fail(Deadline& deadline, const ErrorBox& e, milliseconds timeout, const char* operation) {
    if (deadline.expired())
        throw Error(ErrorKind::Timeout, std::string("keyring: cannot ") + operation + ": " + did_not_answer("the Secret Service", timeout));
    throw Error(ErrorKind::Connection, std::string("keyring: cannot ") + operation + ": " + e.text());
}

// glib would otherwise fall back to X11 autolaunch (starting a bus daemon of its own): only an
// address the environment names, or the per-user bus socket systemd provides, counts.
bool session_bus_named() {
    const char* address = std::getenv("DBUS_SESSION_BUS_ADDRESS");
    if (address && *address) return true;
    const char* runtime = std::getenv("XDG_RUNTIME_DIR");
    if (!runtime || !*runtime) return false;
    struct stat st {};
    return ::stat((std::string(runtime) + "/bus").c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
}

struct Unref {
    void operator()(gpointer p) const {
        if (p) api().g_object_unref(p);
    }
};
template <class T>
using GPtr = std::unique_ptr<T, Unref>;

}  // namespace

std::optional<KeyringProblem> keyring_unavailable_reason(milliseconds timeout) {
    using K = KeyringProblem::Kind;
    if (!session_bus_named()) return KeyringProblem{K::NoSessionBus, "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is unset)"};
    try {
        api();
    } catch (const Error& e) {
        return KeyringProblem{K::NoLibrary, e.what()};
    }
    Deadline deadline(timeout);
    ErrorBox e;
    GPtr<GDBusConnection> bus(api().g_bus_get_sync(G_BUS_TYPE_SESSION, deadline.cancellable(), &e.error));
    if (!bus) {
        if (deadline.expired()) return KeyringProblem{K::TimedOut, did_not_answer("the D-Bus session bus", timeout)};
        return KeyringProblem{K::BusUnreachable, "cannot reach the D-Bus session bus: " + e.text()};
    }
    // Asked first, so that a bus without a keyring never D-Bus-activates one (which would prompt).
    const int call_timeout = static_cast<int>(timeout.count());
    GVariant* owned = api().g_dbus_connection_call_sync(
        bus.get(), "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
        api().g_variant_new("(s)", "org.freedesktop.secrets"), variant_type("(b)"), G_DBUS_CALL_FLAGS_NONE, call_timeout,
        deadline.cancellable(), &e.error);
    if (!owned) {
        if (deadline.expired()) return KeyringProblem{K::TimedOut, did_not_answer("the D-Bus session bus", timeout)};
        return KeyringProblem{K::BusUnreachable, "cannot ask the D-Bus session bus for a Secret Service: " + e.text()};
    }
    gboolean has_owner = FALSE;
    api().g_variant_get(owned, "(b)", &has_owner);
    api().g_variant_unref(owned);
    if (!has_owner) return KeyringProblem{K::NoSecretService, "no Secret Service (e.g. gnome-keyring-daemon) on the D-Bus session bus"};

    GPtr<SecretService> service(api().secret_service_get_sync(SECRET_SERVICE_NONE, deadline.cancellable(), &e.error));
    if (!service) {
        if (deadline.expired()) return KeyringProblem{K::TimedOut, did_not_answer("the Secret Service", timeout)};
        return KeyringProblem{K::NoSecretService, "cannot open the Secret Service: " + e.text()};
    }
    GPtr<SecretCollection> collection(api().secret_collection_for_alias_sync(
        service.get(), SECRET_COLLECTION_DEFAULT, SECRET_COLLECTION_NONE, deadline.cancellable(), &e.error));
    if (!collection) {
        if (deadline.expired()) return KeyringProblem{K::TimedOut, did_not_answer("the Secret Service", timeout)};
        if (e.error) return KeyringProblem{K::NoDefaultKeyring, "cannot find the default keyring: " + e.text()};
        return KeyringProblem{K::NoDefaultKeyring, "the Secret Service has no default keyring"};
    }
    if (api().secret_collection_get_locked(collection.get())) return KeyringProblem{K::Locked, "the default keyring is locked"};
    return std::nullopt;
}

KeyringSecretStore::KeyringSecretStore(milliseconds timeout) : timeout_(timeout) {}

std::optional<std::string> KeyringSecretStore::get(const std::string& key) {
    std::lock_guard guard(mutex_);
    Deadline deadline(timeout_);
    ErrorBox e;
    gchar* value = api().secret_password_lookup_sync(schema(), deadline.cancellable(), &e.error, "key", key.c_str(), nullptr);
    if (e.error) fail(deadline, e, timeout_, "read a secret");
    if (!value) return std::nullopt;
    std::string out(value);
    api().secret_password_free(value);  // wipes the copy libsecret made
    return out;
}

void KeyringSecretStore::set(const std::string& key, const std::string& value) {
    std::lock_guard guard(mutex_);
    Deadline deadline(timeout_);
    ErrorBox e;
    // The label is what a keyring manager shows: which application, never what for.
    if (!api().secret_password_store_sync(schema(), SECRET_COLLECTION_DEFAULT, "mcph credential", value.c_str(),
                                    deadline.cancellable(), &e.error, "key", key.c_str(), nullptr))
        fail(deadline, e, timeout_, "store a secret");
}

void KeyringSecretStore::erase(const std::string& key) {
    std::lock_guard guard(mutex_);
    Deadline deadline(timeout_);
    ErrorBox e;
    // FALSE without an error: there was nothing to remove, which is what erase wants.
    if (!api().secret_password_clear_sync(schema(), deadline.cancellable(), &e.error, "key", key.c_str(), nullptr) && e.error)
        fail(deadline, e, timeout_, "remove a secret");
}

void UnavailableSecretStore::fail() const {
    throw Error(ErrorKind::Connection, "the keyring was asked for (MCPH_SECRET_STORE=keyring) but cannot be used: " + reason_);
}
std::optional<std::string> UnavailableSecretStore::get(const std::string&) { fail(); }
void UnavailableSecretStore::set(const std::string&, const std::string&) { fail(); }
void UnavailableSecretStore::erase(const std::string&) { fail(); }

}  // namespace mcph::secrets
