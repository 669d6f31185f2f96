#include "secrets/store_selection.hpp"

#include "secrets/file_secret_store.hpp"
#include "secrets/keyring_secret_store.hpp"

#include <mcph/error.hpp>

#include <cstdlib>
#include <sys/stat.h>
#include <unistd.h>

namespace mcph::secrets {
namespace {

namespace fs = std::filesystem;

// The keyring is shared by every process of the user's session, whatever config home each one
// uses: its locks live in the session's runtime folder when there is a private one, else beside
// the credentials file.
fs::path keyring_lock_folder(const fs::path& credentials_file) {
    const char* runtime = std::getenv("XDG_RUNTIME_DIR");
    struct stat st {};
    if (runtime && *runtime && ::stat(runtime, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::geteuid() &&
        (st.st_mode & 077) == 0)
        return fs::path(runtime) / "mcph" / "locks";
    return credentials_file.parent_path() / "locks";
}

SelectedStore file_store(const fs::path& credentials_file) {
    SelectedStore s;
    s.store = std::make_shared<FileSecretStore>(credentials_file);
    s.kind = "file";
    s.detail = credentials_file.string();
    s.lock_folder = credentials_file.parent_path() / "locks";
    return s;
}

SelectedStore keyring_store(const fs::path& credentials_file) {
    SelectedStore s;
    s.store = std::make_shared<KeyringSecretStore>();
    s.kind = "keyring";
    s.detail = "the Secret Service's default collection";
    s.lock_folder = keyring_lock_folder(credentials_file);
    return s;
}

}  // namespace

StoreChoice choice_from_environment(StoreChoice configured,
                                    const std::function<std::optional<std::string>(std::string_view)>& env) {
    if (configured != StoreChoice::Auto) return configured;
    auto value = env("MCPH_SECRET_STORE");
    if (!value || value->empty() || *value == "auto") return StoreChoice::Auto;
    if (*value == "file") return StoreChoice::File;
    if (*value == "keyring") return StoreChoice::Keyring;
    throw Error(ErrorKind::Usage, "MCPH_SECRET_STORE=" + *value + ": expected auto, file or keyring");
}

SelectedStore select_secret_store(StoreChoice choice, const fs::path& credentials_file,
                                  std::chrono::milliseconds probe_timeout) {
    switch (choice) {
    case StoreChoice::Memory: {
        SelectedStore s;
        s.store = std::make_shared<plugins::MemorySecretStore>();
        s.kind = "memory";
        s.detail = "this process only";
        return s;
    }
    case StoreChoice::File: {
        SelectedStore s = file_store(credentials_file);
        s.detail += " (chosen by configuration)";
        return s;
    }
    case StoreChoice::Keyring: {
        if (auto why = keyring_unavailable_reason(probe_timeout)) {
            SelectedStore s = keyring_store(credentials_file);
            s.store = std::make_shared<UnavailableSecretStore>(why->text);
            s.detail = "unavailable: " + why->text;
            return s;
        }
        return keyring_store(credentials_file);
    }
    case StoreChoice::Auto: break;
    }
    if (auto why = keyring_unavailable_reason(probe_timeout)) {
        SelectedStore s = file_store(credentials_file);
        s.detail += " (keyring not used: " + why->text + ")";
        s.fell_back = true;
        // No bus, or a bus without any Secret Service: a headless machine, where the file is normal.
        s.keyring_expected = why->kind != KeyringProblem::Kind::NoSessionBus && why->kind != KeyringProblem::Kind::NoSecretService;
        return s;
    }
    return keyring_store(credentials_file);
}

}  // namespace mcph::secrets
