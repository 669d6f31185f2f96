// Which secret store a host uses, and why. Auto (the default): the system keyring when one is
// reachable and unlocked (keyring_secret_store.hpp), else the 0600 file store with a one-line
// reason the user can see in the log and in `mcph status`. $MCPH_SECRET_STORE (auto | file |
// keyring) overrides Auto; an application that chose a store in HostOptions keeps its choice.
#pragma once

#include "plugins/host_services.hpp"

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace mcph::secrets {

enum class StoreChoice { Auto, File, Keyring, Memory };

struct SelectedStore {
    std::shared_ptr<plugins::SecretStore> store;
    std::string kind;    // "keyring" | "file" | "memory" — what status shows
    std::string detail;  // where it keeps secrets, and why the keyring was not used (never a secret)
    bool fell_back = false;            // Auto chose the file store because the keyring is unusable
    bool keyring_expected = false;     // …on a desktop session where a keyring was likely meant (a warning, not info)
    std::filesystem::path lock_folder; // for secret_lock; empty for the memory store
};

// $MCPH_SECRET_STORE, for an Auto choice. Throws mcph::Error(Usage) naming the variable and the
// accepted values when it holds anything else.
StoreChoice choice_from_environment(StoreChoice configured, const std::function<std::optional<std::string>(std::string_view)>& env);

// `probe_timeout` bounds the keyring probe (a hung D-Bus peer delays startup by at most that).
SelectedStore select_secret_store(StoreChoice choice, const std::filesystem::path& credentials_file,
                                  std::chrono::milliseconds probe_timeout = std::chrono::milliseconds(2000));

}  // namespace mcph::secrets
