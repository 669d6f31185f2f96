// The host's secret store, chosen the first time it is used rather than when the Host is built.
//
// Why: choosing may probe the keyring over D-Bus (store_selection.hpp), which opens libsecret and
// GLib (dynload/) and, on a desktop, costs round trips to the bus and the Secret Service. Most
// runs never read or write a secret — a one-shot call on a server without auth, `mcph list` — so
// they should not pay for either. The first get/set/erase, secret_lock, or a status view that
// shows the store makes the choice; it is made once and then fixed for the host's life.
#pragma once

#include "plugins/host_services.hpp"
#include "secrets/store_selection.hpp"

#include <functional>
#include <mutex>
#include <optional>

namespace mcph::secrets {

class LazySecretStore : public plugins::SecretStore {
public:
    // `choose` makes the choice (select_secret_store with the host's settings); `on_chosen` is
    // told once, after it (the host logs where tokens go when the keyring was passed over).
    LazySecretStore(std::function<SelectedStore()> choose, std::function<void(const SelectedStore&)> on_chosen);

    std::optional<std::string> get(const std::string& key) override;
    void set(const std::string& key, const std::string& value) override;
    void erase(const std::string& key) override;

    // The choice, made now if it was not yet (thread-safe; a choice that threw is tried again on
    // the next use). The reference stays valid and unchanged for the store's life.
    const SelectedStore& chosen();
    bool has_chosen() const;

private:
    std::function<SelectedStore()> choose_;
    std::function<void(const SelectedStore&)> on_chosen_;
    mutable std::mutex mutex_;  // guards the choice only, never held across a store operation
    std::optional<SelectedStore> chosen_;
};

}  // namespace mcph::secrets
