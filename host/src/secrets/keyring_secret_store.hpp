// The Secret Service store (freedesktop.org Secret Service over D-Bus: gnome-keyring, KeePassXC,
// KWallet's bridge…) through libsecret (Debian libsecret-1-dev): each secret is one item of the
// default collection, found by our schema and its "key" attribute (the store key, already a hash
// that does not name the server). Nothing is written to disk by mcph.
//
// Bounded: every D-Bus round trip runs with a GCancellable that a watchdog cancels after the
// store's timeout, so a hung bus or keyring daemon (or one that pops up an unlock prompt nobody
// answers) ends in mcph::Error(Timeout) naming the bound instead of hanging the host.
#pragma once

#include "plugins/host_services.hpp"

#include <chrono>
#include <mutex>
#include <optional>
#include <string>

namespace mcph::secrets {

// Why the keyring cannot be used right now, or nullopt when it can: a session bus is reachable,
// a Secret Service owns org.freedesktop.secrets on it, and its default collection exists and is
// unlocked. Never starts a daemon (no D-Bus activation, no X11 autolaunch) and never prompts.
// The reason is one line for people: "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is unset)",
// "the default keyring is locked", "the D-Bus session bus did not answer within 2000 ms"…
struct KeyringProblem {
    // NoLibrary: libsecret-1.so.0 (opened on demand) is not installed or too old.
    enum class Kind { NoSessionBus, NoLibrary, BusUnreachable, TimedOut, NoSecretService, NoDefaultKeyring, Locked };
    Kind kind;
    std::string text;
};
std::optional<KeyringProblem> keyring_unavailable_reason(std::chrono::milliseconds timeout);

class KeyringSecretStore : public plugins::SecretStore {
public:
    explicit KeyringSecretStore(std::chrono::milliseconds timeout = std::chrono::milliseconds(10000));

    // Each throws mcph::Error: Timeout naming the bound, Connection with libsecret's reason.
    std::optional<std::string> get(const std::string& key) override;
    void set(const std::string& key, const std::string& value) override;
    void erase(const std::string& key) override;

private:
    std::chrono::milliseconds timeout_;
    std::mutex mutex_;  // one D-Bus round trip at a time: the store is not a hot path
};

// Stands in for a keyring the user asked for (MCPH_SECRET_STORE=keyring) that is not usable:
// every operation fails naming why, rather than silently writing tokens to a file.
class UnavailableSecretStore : public plugins::SecretStore {
public:
    explicit UnavailableSecretStore(std::string reason) : reason_(std::move(reason)) {}
    std::optional<std::string> get(const std::string& key) override;
    void set(const std::string& key, const std::string& value) override;
    void erase(const std::string& key) override;

private:
    [[noreturn]] void fail() const;
    std::string reason_;
};

}  // namespace mcph::secrets
