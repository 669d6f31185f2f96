// The mcph_host_services table handed to every plugin, bound to this host's logger, event loop,
// URL opener and secret store.
#pragma once

#include <mcph/host.hpp>
#include <mcph/plugin_api.h>

#include "plugins/fetch_policy.hpp"

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace mcph::plugins {

// Where plugins keep secrets (tokens). The in-memory store lives for the process; a persistent
// store plugs in behind the same interface.
class SecretStore {
public:
    virtual ~SecretStore() = default;
    virtual std::optional<std::string> get(const std::string& key) = 0;
    virtual void set(const std::string& key, const std::string& value) = 0;
    virtual void erase(const std::string& key) = 0;
};

class MemorySecretStore : public SecretStore {
public:
    std::optional<std::string> get(const std::string& key) override;
    void set(const std::string& key, const std::string& value) override;
    void erase(const std::string& key) override;

private:
    std::mutex mutex_;
    std::map<std::string, std::string> values_;
};

struct HostServiceBindings {
    std::function<void(LogLevel, std::string_view, std::string_view)> log;
    std::function<bool(const std::string&)> open_url;
    std::function<void(std::function<void()>)> post;
    std::shared_ptr<SecretStore> secrets;
    // Where secret_lock keeps its lock files (secrets/key_lock.hpp): a folder every process using
    // the same store shares. Asked on each lock, since it depends on the store, which the host
    // chooses on first use (secrets/lazy_secret_store.hpp). Unset, or an empty path: secret_lock
    // answers MCPH_ERR_UNSUPPORTED (a memory store is private to the process, so there is nobody
    // to exclude).
    std::function<std::filesystem::path()> secret_lock_folder;

    std::filesystem::path lock_folder() const { return secret_lock_folder ? secret_lock_folder() : std::filesystem::path(); }
};

class HostServices {
public:
    explicit HostServices(HostServiceBindings bindings);
    HostServices(const HostServices&) = delete;
    HostServices& operator=(const HostServices&) = delete;

    const mcph_host_services* table() const { return &table_; }
    const HostServiceBindings& bindings() const { return bindings_; }

private:
    HostServiceBindings bindings_;
    mcph_host_services table_;
};

}  // namespace mcph::plugins
