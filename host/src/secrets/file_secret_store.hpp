// The default secret store: one JSON file per user (credentials.json in the mcph config folder),
// mode 0600, replaced atomically (temp file, fsync, rename) under an advisory lock, so two mcph
// processes sharing it never see a torn file. A file that is readable by others or is not valid
// JSON is refused with a message saying how to fix it — never silently used or overwritten.
#pragma once

#include "plugins/host_services.hpp"

#include <filesystem>
#include <mutex>

namespace mcph::secrets {

// config_home_from() (config_locations.hpp: $MCPH_CONFIG_HOME, $XDG_CONFIG_HOME/mcph, else the
// home of $HOME or of the password database — never /tmp) plus "credentials.json". The file and its
// folder must belong to the current user and be writable by nobody else.
std::filesystem::path default_credentials_path();

class FileSecretStore : public plugins::SecretStore {
public:
    explicit FileSecretStore(std::filesystem::path file);

    // Each throws mcph::Error(Connection) naming the file when it is unsafe, corrupt or unwritable.
    std::optional<std::string> get(const std::string& key) override;
    void set(const std::string& key, const std::string& value) override;
    void erase(const std::string& key) override;

    const std::filesystem::path& path() const { return file_; }

private:
    std::filesystem::path file_;
    std::mutex mutex_;  // within the process; the lock file covers other processes
};

}  // namespace mcph::secrets
