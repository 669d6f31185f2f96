#include "plugins/host_services.hpp"

#include "secrets/key_lock.hpp"
#include "url/redact.hpp"

#include <mcph/plugin_helper.hpp>

#include <cstring>
#include <memory>

namespace mcph::plugins {
namespace {

using mcph::plugin::fill_error;
using mcph::plugin::view;

HostServices* self(void* host_data) { return static_cast<HostServices*>(host_data); }

// Services are entered from plugin threads: nothing the application's bindings throw may unwind
// into the plugin's C frames. A fallible service answers MCPH_ERR_INTERNAL with the reason.
template <class Fn>
mcph_status shielded(mcph_error* err, Fn&& fn) noexcept {
    try {
        return fn();
    } catch (const std::exception& e) {
        fill_error(err, MCPH_ERR_INTERNAL, std::string("internal error in the host: ") + e.what());
    } catch (...) {
        fill_error(err, MCPH_ERR_INTERNAL, "internal error in the host");
    }
    return MCPH_ERR_INTERNAL;
}

void service_log(void* host_data, mcph_log_level level, mcph_str source, mcph_str message) {
    shielded(nullptr, [&] {
        auto& log = self(host_data)->bindings().log;
        // A plugin's log line may quote a URL with a key in it: redacted before anyone sees it.
        if (log) log(static_cast<LogLevel>(level), view(source), url::redact_urls_in_text(view(message)));
        return MCPH_OK;
    });
}

mcph_status secret_get_unshielded(void* host_data, mcph_str key, const mcph_string_sink* out, mcph_error* err) {
    auto* store = self(host_data)->bindings().secrets.get();
    if (!store || !out) {
        fill_error(err, MCPH_ERR_UNSUPPORTED, "no secret store");
        return MCPH_ERR_UNSUPPORTED;
    }
    std::optional<std::string> value;
    try {
        value = store->get(std::string(view(key)));
    } catch (const std::exception& e) {  // an unsafe or corrupt store: refused, and the plugin says why
        fill_error(err, MCPH_ERR_IO, e.what());
        return MCPH_ERR_IO;
    }
    if (!value) {
        fill_error(err, MCPH_ERR_NOT_FOUND, "no such secret");
        return MCPH_ERR_NOT_FOUND;
    }
    out->set(out->user_data, mcph::plugin::str(*value));
    return MCPH_OK;
}

mcph_status secret_set_unshielded(void* host_data, mcph_str key, mcph_str value, mcph_error* err) {
    auto* store = self(host_data)->bindings().secrets.get();
    if (!store) {
        fill_error(err, MCPH_ERR_UNSUPPORTED, "no secret store");
        return MCPH_ERR_UNSUPPORTED;
    }
    try {
        store->set(std::string(view(key)), std::string(view(value)));
    } catch (const std::exception& e) {
        fill_error(err, MCPH_ERR_IO, e.what());
        return MCPH_ERR_IO;
    }
    return MCPH_OK;
}

mcph_status secret_delete_unshielded(void* host_data, mcph_str key, mcph_error* err) {
    auto* store = self(host_data)->bindings().secrets.get();
    if (!store) {
        fill_error(err, MCPH_ERR_UNSUPPORTED, "no secret store");
        return MCPH_ERR_UNSUPPORTED;
    }
    try {
        store->erase(std::string(view(key)));
    } catch (const std::exception& e) {
        fill_error(err, MCPH_ERR_IO, e.what());
        return MCPH_ERR_IO;
    }
    return MCPH_OK;
}

mcph_status secret_lock_unshielded(void* host_data, mcph_str key, uint32_t timeout_ms, void** handle, mcph_error* err) {
    const auto folder = self(host_data)->bindings().lock_folder();
    if (folder.empty() || !handle) {
        fill_error(err, MCPH_ERR_UNSUPPORTED, "this secret store is private to the process: no cross-process lock");
        return MCPH_ERR_UNSUPPORTED;
    }
    *handle = nullptr;
    try {
        *handle = secrets::KeyLock::acquire(folder, std::string(view(key)), std::chrono::milliseconds(timeout_ms)).release();
    } catch (const Error& e) {
        const mcph_status st = e.kind() == ErrorKind::Timeout ? MCPH_ERR_TIMEOUT : MCPH_ERR_IO;
        fill_error(err, st, e.what());
        return st;
    } catch (const std::exception& e) {  // never unwinds into the plugin's C frames
        fill_error(err, MCPH_ERR_INTERNAL, e.what());
        return MCPH_ERR_INTERNAL;
    }
    return MCPH_OK;
}

// The secret store may be the application's own code (HostOptions): it may throw anything.
mcph_status service_secret_get(void* host_data, mcph_str key, const mcph_string_sink* out, mcph_error* err) {
    return shielded(err, [&] { return secret_get_unshielded(host_data, key, out, err); });
}
mcph_status service_secret_set(void* host_data, mcph_str key, mcph_str value, mcph_error* err) {
    return shielded(err, [&] { return secret_set_unshielded(host_data, key, value, err); });
}
mcph_status service_secret_delete(void* host_data, mcph_str key, mcph_error* err) {
    return shielded(err, [&] { return secret_delete_unshielded(host_data, key, err); });
}
mcph_status service_secret_lock(void* host_data, mcph_str key, uint32_t timeout_ms, void** handle, mcph_error* err) {
    return shielded(err, [&] { return secret_lock_unshielded(host_data, key, timeout_ms, handle, err); });
}

void service_secret_unlock(void* /*host_data*/, void* handle) {
    delete static_cast<secrets::KeyLock*>(handle);  // the destructor cannot throw: it closes a descriptor
}

mcph_status open_url_unshielded(void* host_data, mcph_str url, mcph_error* err) {
    auto& open = self(host_data)->bindings().open_url;
    if (!open) {
        fill_error(err, MCPH_ERR_CANCELLED, "this application does not open URLs (no open_url handler)");
        return MCPH_ERR_CANCELLED;
    }
    if (!open(std::string(view(url)))) {
        fill_error(err, MCPH_ERR_CANCELLED, "the application declined to open the URL");
        return MCPH_ERR_CANCELLED;
    }
    return MCPH_OK;
}

// The application's URL opener is its own code: it may throw.
mcph_status service_open_url(void* host_data, mcph_str url, mcph_error* err) {
    return shielded(err, [&] { return open_url_unshielded(host_data, url, err); });
}

void service_post(void* host_data, void (*fn)(void*), void* user_data) {
    shielded(nullptr, [&] {
        auto& post = self(host_data)->bindings().post;
        if (post && fn) post([fn, user_data] { fn(user_data); });
        return MCPH_OK;
    });
}

mcph_status service_check_fetch_url(void* /*host_data*/, mcph_str url, mcph_str server_url, mcph_error* err) {
    return shielded(err, [&] {
        std::string reason = check_fetch_url(std::string(view(url)), std::string(view(server_url)));
        if (reason.empty()) return MCPH_OK;
        fill_error(err, MCPH_ERR_INVALID_ARGUMENT, reason);
        return MCPH_ERR_INVALID_ARGUMENT;
    });
}

}  // namespace

std::optional<std::string> MemorySecretStore::get(const std::string& key) {
    std::lock_guard lock(mutex_);
    auto it = values_.find(key);
    if (it == values_.end()) return std::nullopt;
    return it->second;
}

void MemorySecretStore::set(const std::string& key, const std::string& value) {
    std::lock_guard lock(mutex_);
    values_[key] = value;
}

void MemorySecretStore::erase(const std::string& key) {
    std::lock_guard lock(mutex_);
    values_.erase(key);
}

HostServices::HostServices(HostServiceBindings bindings) : bindings_(std::move(bindings)) {
    std::memset(&table_, 0, sizeof table_);
    table_.struct_size = sizeof table_;
    table_.abi_major = MCPH_ABI_MAJOR;
    table_.abi_minor = MCPH_ABI_MINOR;
    table_.host_data = this;
    table_.log = service_log;
    table_.secret_get = service_secret_get;
    table_.secret_set = service_secret_set;
    table_.secret_delete = service_secret_delete;
    table_.open_url = service_open_url;
    table_.post = service_post;
    table_.check_fetch_url = service_check_fetch_url;
    table_.secret_lock = service_secret_lock;
    table_.secret_unlock = service_secret_unlock;
}

}  // namespace mcph::plugins
