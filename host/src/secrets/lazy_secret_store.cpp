#include "secrets/lazy_secret_store.hpp"

namespace mcph::secrets {

LazySecretStore::LazySecretStore(std::function<SelectedStore()> choose, std::function<void(const SelectedStore&)> on_chosen)
    : choose_(std::move(choose)), on_chosen_(std::move(on_chosen)) {}

const SelectedStore& LazySecretStore::chosen() {
    {
        std::lock_guard lock(mutex_);
        if (!chosen_) {
            // Under the lock: two first users must not probe twice nor see two different stores.
            // The probe is bounded (store_selection.hpp), so this waits at most that long.
            chosen_ = choose_();
        } else {
            return *chosen_;
        }
    }
    if (on_chosen_) on_chosen_(*chosen_);
    return *chosen_;
}

bool LazySecretStore::has_chosen() const {
    std::lock_guard lock(mutex_);
    return chosen_.has_value();
}

std::optional<std::string> LazySecretStore::get(const std::string& key) { return chosen().store->get(key); }
void LazySecretStore::set(const std::string& key, const std::string& value) { chosen().store->set(key, value); }
void LazySecretStore::erase(const std::string& key) { chosen().store->erase(key); }

}  // namespace mcph::secrets
