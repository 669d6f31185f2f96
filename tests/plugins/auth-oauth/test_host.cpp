#include "test_host.hpp"

#include <mcph/plugin_helper.hpp>

#include <curl/curl.h>
#include <dlfcn.h>

#include <cstring>
#include <stdexcept>

namespace oauth_test {

using mcph::plugin::fill_error;
using mcph::plugin::str;
using mcph::plugin::view;

TestHost::TestHost() {
    std::memset(&services_, 0, sizeof services_);
    services_.struct_size = sizeof services_;
    services_.abi_major = MCPH_ABI_MAJOR;
    services_.abi_minor = MCPH_ABI_MINOR;
    services_.host_data = this;
    services_.log = &TestHost::log;
    services_.secret_get = &TestHost::secret_get;
    services_.secret_set = &TestHost::secret_set;
    services_.secret_delete = &TestHost::secret_delete;
    services_.open_url = &TestHost::open_url;
    services_.post = &TestHost::post;
    services_.check_fetch_url = &TestHost::check_fetch_url;
    services_.secret_lock = &TestHost::secret_lock;
    services_.secret_unlock = &TestHost::secret_unlock;
}

void TestHost::put_secret(const std::string& key, const std::string& value) {
    std::lock_guard<std::mutex> g(mutex_);
    secrets_[key] = value;
}

mcph_status TestHost::secret_lock(void* self, mcph_str, uint32_t, void** handle, mcph_error* err) {
    auto* h = static_cast<TestHost*>(self);
    ++h->lock_calls;
    switch (h->lock_mode) {
        case LockMode::absent:
            fill_error(err, MCPH_ERR_UNSUPPORTED, "no lock service");
            return MCPH_ERR_UNSUPPORTED;
        case LockMode::time_out:
            fill_error(err, MCPH_ERR_TIMEOUT, "the lock is held by another process");
            return MCPH_ERR_TIMEOUT;
        case LockMode::grant:
            if (h->on_lock) h->on_lock();
            *handle = h;
            return MCPH_OK;
    }
    return MCPH_ERR_UNSUPPORTED;
}

void TestHost::secret_unlock(void*, void*) {}

std::map<std::string, std::string> TestHost::secrets() {
    std::lock_guard<std::mutex> g(mutex_);
    return secrets_;
}
std::vector<std::string> TestHost::logs() {
    std::lock_guard<std::mutex> g(mutex_);
    return logs_;
}
std::vector<std::string> TestHost::opened() {
    std::lock_guard<std::mutex> g(mutex_);
    return opened_;
}
std::vector<std::string> TestHost::checked_urls() {
    std::lock_guard<std::mutex> g(mutex_);
    return checked_;
}

void TestHost::log(void* self, mcph_log_level, mcph_str source, mcph_str message) {
    auto* h = static_cast<TestHost*>(self);
    std::lock_guard<std::mutex> g(h->mutex_);
    h->logs_.push_back(std::string(view(source)) + ": " + std::string(view(message)));
}

mcph_status TestHost::secret_get(void* self, mcph_str key, const mcph_string_sink* out, mcph_error* err) {
    auto* h = static_cast<TestHost*>(self);
    std::lock_guard<std::mutex> g(h->mutex_);
    auto it = h->secrets_.find(std::string(view(key)));
    if (it == h->secrets_.end()) {
        fill_error(err, MCPH_ERR_NOT_FOUND, "no such secret");
        return MCPH_ERR_NOT_FOUND;
    }
    out->set(out->user_data, str(it->second));
    return MCPH_OK;
}

mcph_status TestHost::secret_set(void* self, mcph_str key, mcph_str value, mcph_error*) {
    auto* h = static_cast<TestHost*>(self);
    std::lock_guard<std::mutex> g(h->mutex_);
    h->secrets_[std::string(view(key))] = std::string(view(value));
    return MCPH_OK;
}

mcph_status TestHost::secret_delete(void* self, mcph_str key, mcph_error*) {
    auto* h = static_cast<TestHost*>(self);
    std::lock_guard<std::mutex> g(h->mutex_);
    return h->secrets_.erase(std::string(view(key))) ? MCPH_OK : MCPH_ERR_NOT_FOUND;
}

namespace {
size_t discard(char*, size_t size, size_t n, void*) { return size * n; }

// GET `url`; with follow=false returns the Location of a redirect.
std::string fetch(const std::string& url, bool follow) {
    CURL* e = curl_easy_init();
    curl_easy_setopt(e, CURLOPT_URL, url.c_str());
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, follow ? 1L : 0L);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(e, CURLOPT_TIMEOUT, 10L);
    curl_easy_perform(e);
    char* loc = nullptr;
    std::string out;
    if (curl_easy_getinfo(e, CURLINFO_REDIRECT_URL, &loc) == CURLE_OK && loc) out = loc;
    curl_easy_cleanup(e);
    return out;
}
}  // namespace

mcph_status TestHost::open_url(void* self, mcph_str url_str, mcph_error* err) {
    auto* h = static_cast<TestHost*>(self);
    std::string url(view(url_str));
    {
        std::lock_guard<std::mutex> g(h->mutex_);
        h->opened_.push_back(url);
    }
    switch (h->opener) {
        case Opener::follow:
            fetch(url, true);
            return MCPH_OK;
        case Opener::nothing:
            return MCPH_OK;
        case Opener::refuse:
            fill_error(err, MCPH_ERR_CANCELLED, "the user declined");
            return MCPH_ERR_CANCELLED;
        case Opener::tamper: {
            std::string callback = fetch(url, false);
            size_t at = callback.find("state=");
            if (at != std::string::npos) callback.insert(at + 6, "X");
            fetch(callback, false);
            return MCPH_OK;
        }
    }
    return MCPH_OK;
}

void TestHost::post(void*, void (*fn)(void*), void* user_data) { fn(user_data); }

// "http://127.0.0.1:8080/": what the plugin's open-socket callback asks about (no path).
bool is_address_url(const std::string& u) {
    const size_t host = u.find("://");
    if (host == std::string::npos || u.back() != '/') return false;
    const size_t slash = u.find('/', host + 3);
    const size_t colon = u.rfind(':', slash);
    return slash == u.size() - 1 && colon != std::string::npos && colon > host &&
           u.find_first_not_of("0123456789", colon + 1) == slash;
}

mcph_status TestHost::check_fetch_url(void* self, mcph_str url, mcph_str, mcph_error* err) {
    auto* h = static_cast<TestHost*>(self);
    std::string u(view(url));
    {
        std::lock_guard<std::mutex> g(h->mutex_);
        h->checked_.push_back(u);
    }
    if (h->refuse_connected_addresses && is_address_url(u)) {
        fill_error(err, MCPH_ERR_INVALID_ARGUMENT, "refusing loopback address (test policy)");
        return MCPH_ERR_INVALID_ARGUMENT;
    }
    if (u.rfind("http://127.0.0.1:", 0) == 0 || u.rfind("http://localhost:", 0) == 0) return MCPH_OK;
    fill_error(err, MCPH_ERR_INVALID_ARGUMENT, "not a loopback URL");
    return MCPH_ERR_INVALID_ARGUMENT;
}

const mcph_auth_vtable_v1* auth_vtable() {
    static const mcph_auth_vtable_v1* vt = [] {
        void* lib = dlopen(MCPH_OAUTH_PLUGIN, RTLD_NOW | RTLD_LOCAL);
        if (!lib) throw std::runtime_error(dlerror());
        auto entry = reinterpret_cast<mcph_plugin_entry_fn>(dlsym(lib, MCPH_ENTRY_SYMBOL));
        const mcph_plugin* p = entry();
        static TestHost init_host;
        mcph_error err = mcph::plugin::make_error();
        if (p->init && p->init(init_host.services(), &err) != MCPH_OK) throw std::runtime_error(err.message);
        return static_cast<const mcph_auth_vtable_v1*>(p->get_interface(MCPH_AUTH_INTERFACE_V1));
    }();
    return vt;
}

AuthObject::AuthObject(TestHost& host, const std::string& server_url, const std::string& config_json,
                       const std::string& name) {
    mcph_error err = mcph::plugin::make_error();
    created_.status = auth_vtable()->create(host.services(), str(name), str(server_url), str(config_json), &auth_, &err);
    created_.message = err.message;
}

AuthObject::~AuthObject() {
    if (auth_) auth_vtable()->destroy(auth_);
}

Result AuthObject::headers(std::vector<std::pair<std::string, std::string>>* out) {
    mcph_header_sink sink{sizeof(mcph_header_sink), out, [](void* ud, mcph_str n, mcph_str v) {
                              static_cast<std::vector<std::pair<std::string, std::string>>*>(ud)->emplace_back(
                                  std::string(view(n)), std::string(view(v)));
                          }};
    mcph_error err = mcph::plugin::make_error();
    Result r;
    r.status = auth_vtable()->get_headers(auth_, &sink, &err);
    r.message = err.message;
    return r;
}

std::string AuthObject::authorization() {
    std::vector<std::pair<std::string, std::string>> h;
    headers(&h);
    for (auto& [n, v] : h)
        if (n == "Authorization") return v;
    return {};
}

Result AuthObject::challenge(int status, const std::string& www) {
    mcph_error err = mcph::plugin::make_error();
    Result r;
    r.status = auth_vtable()->handle_challenge(auth_, status, str(www), &err);
    r.message = err.message;
    return r;
}

Result AuthObject::login() {
    mcph_error err = mcph::plugin::make_error();
    Result r;
    r.status = auth_vtable()->login(auth_, &err);
    r.message = err.message;
    return r;
}

Result AuthObject::logout() {
    mcph_error err = mcph::plugin::make_error();
    Result r;
    r.status = auth_vtable()->logout(auth_, &err);
    r.message = err.message;
    return r;
}

void AuthObject::cancel() { auth_vtable()->cancel(auth_); }

std::string AuthObject::describe() {
    std::string out;
    mcph_string_sink sink{sizeof(mcph_string_sink), &out,
                          [](void* ud, mcph_str v) { static_cast<std::string*>(ud)->assign(view(v)); }};
    mcph_error err = mcph::plugin::make_error();
    auth_vtable()->describe(auth_, &sink, &err);
    return out;
}

std::string all_output(TestHost& host, AuthObject& auth, const Result& r) {
    std::string all = r.message + "\n" + auth.describe();
    for (const auto& l : host.logs()) all += "\n" + l;
    return all;
}

}  // namespace oauth_test
