#include "plugins/host_services.hpp"

#include <mcph/plugin_helper.hpp>

#include <curl/curl.h>

#include <arpa/inet.h>

#include <cstring>
#include <memory>

namespace mcph::plugins {
namespace {

using mcph::plugin::fill_error;
using mcph::plugin::view;

HostServices* self(void* host_data) { return static_cast<HostServices*>(host_data); }

struct ParsedUrl {
    std::string scheme;
    std::string host;
};

std::optional<ParsedUrl> parse_url(const std::string& url) {
    std::unique_ptr<CURLU, decltype(&curl_url_cleanup)> handle(curl_url(), curl_url_cleanup);
    if (!handle || curl_url_set(handle.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK) return std::nullopt;
    ParsedUrl out;
    char* part = nullptr;
    if (curl_url_get(handle.get(), CURLUPART_SCHEME, &part, 0) == CURLUE_OK) {
        out.scheme = part;
        curl_free(part);
    }
    if (curl_url_get(handle.get(), CURLUPART_HOST, &part, 0) == CURLUE_OK) {
        out.host = part;
        curl_free(part);
    }
    if (out.host.size() > 2 && out.host.front() == '[') out.host = out.host.substr(1, out.host.size() - 2);
    return out;
}

bool is_loopback_host(const std::string& host) {
    if (host == "localhost") return true;
    in_addr v4{};
    if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
    in6_addr v6{};
    if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
    return false;
}

bool is_private_host(const std::string& host) {
    in_addr v4{};
    if (inet_pton(AF_INET, host.c_str(), &v4) == 1) {
        const uint32_t a = ntohl(v4.s_addr);
        return (a >> 24) == 10 || (a >> 20) == 0xAC1 || (a >> 16) == 0xC0A8 || (a >> 16) == 0xA9FE || (a >> 24) == 0;
    }
    in6_addr v6{};
    if (inet_pton(AF_INET6, host.c_str(), &v6) == 1)
        return IN6_IS_ADDR_LINKLOCAL(&v6) || (v6.s6_addr[0] & 0xFE) == 0xFC;  // fc00::/7
    return false;
}

void service_log(void* host_data, mcph_log_level level, mcph_str source, mcph_str message) {
    auto& log = self(host_data)->bindings().log;
    if (log) log(static_cast<LogLevel>(level), view(source), view(message));
}

mcph_status service_secret_get(void* host_data, mcph_str key, const mcph_string_sink* out, mcph_error* err) {
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

mcph_status service_secret_set(void* host_data, mcph_str key, mcph_str value, mcph_error* err) {
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

mcph_status service_secret_delete(void* host_data, mcph_str key, mcph_error* err) {
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

mcph_status service_open_url(void* host_data, mcph_str url, mcph_error* err) {
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

void service_post(void* host_data, void (*fn)(void*), void* user_data) {
    auto& post = self(host_data)->bindings().post;
    if (post && fn) post([fn, user_data] { fn(user_data); });
}

mcph_status service_check_fetch_url(void* /*host_data*/, mcph_str url, mcph_str server_url, mcph_error* err) {
    std::string reason = check_fetch_url(std::string(view(url)), std::string(view(server_url)));
    if (reason.empty()) return MCPH_OK;
    fill_error(err, MCPH_ERR_INVALID_ARGUMENT, reason);
    return MCPH_ERR_INVALID_ARGUMENT;
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
}

std::string check_fetch_url(const std::string& url, const std::string& server_url) {
    auto target = parse_url(url);
    if (!target || target->host.empty()) return "not a valid absolute URL: " + url;
    const bool loopback = is_loopback_host(target->host);
    if (target->scheme != "https" && !(target->scheme == "http" && loopback))
        return "refusing " + target->scheme + " URL " + url + ": https is required except on loopback";
    if (is_private_host(target->host)) {
        auto server = parse_url(server_url);
        const bool server_local = server && (is_private_host(server->host) || is_loopback_host(server->host));
        if (!server_local) return "refusing private address " + target->host + " for a public server";
    }
    return {};
}

}  // namespace mcph::plugins
