// The host side for the integration tests: a host-services table with an in-memory secret
// store, a recording log, a permissive loopback fetch policy and a scriptable open_url; plus a
// thin wrapper that dlopen()s the plugin and drives one mcph_auth through its C vtable.
#pragma once

#include <mcph/plugin_api.h>

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace oauth_test {

enum class Opener {
    follow,   // GET the URL and follow redirects (the headless opener the conformance host uses)
    nothing,  // "opened" but the user never comes back
    refuse,   // the application declines (MCPH_ERR_CANCELLED)
    tamper,   // deliver the callback with a different state
};

// The v1.2 secret_lock service of the table.
enum class LockMode {
    absent,    // not offered (null entry points), as a 1.0 host
    grant,     // granted at once (after running `on_lock`)
    time_out,  // MCPH_ERR_TIMEOUT every time: another process never lets go
};

class TestHost {
public:
    TestHost();
    const mcph_host_services* services() const { return &services_; }

    Opener opener = Opener::follow;
    // Refuse the "scheme://<address>:<port>/" URLs the plugin asks about from its open-socket
    // callback (the connected-address check), as the host does for a non-local server.
    std::atomic<bool> refuse_connected_addresses{false};
    // Set before the first use. `on_lock` runs inside a granted secret_lock, before it returns:
    // what another process did just before releasing the lock to us.
    LockMode lock_mode = LockMode::absent;
    std::function<void()> on_lock;
    std::atomic<int> lock_calls{0};
    void put_secret(const std::string& key, const std::string& value);
    std::map<std::string, std::string> secrets();
    std::vector<std::string> logs();
    std::vector<std::string> opened();
    std::vector<std::string> checked_urls();

private:
    static void log(void* self, mcph_log_level level, mcph_str source, mcph_str message);
    static mcph_status secret_get(void* self, mcph_str key, const mcph_string_sink* out, mcph_error* err);
    static mcph_status secret_set(void* self, mcph_str key, mcph_str value, mcph_error* err);
    static mcph_status secret_delete(void* self, mcph_str key, mcph_error* err);
    static mcph_status open_url(void* self, mcph_str url, mcph_error* err);
    static void post(void* self, void (*fn)(void*), void* user_data);
    static mcph_status check_fetch_url(void* self, mcph_str url, mcph_str server_url, mcph_error* err);
    static mcph_status secret_lock(void* self, mcph_str key, uint32_t timeout_ms, void** handle, mcph_error* err);
    static void secret_unlock(void* self, void* handle);

    mcph_host_services services_;
    std::mutex mutex_;
    std::map<std::string, std::string> secrets_;
    std::vector<std::string> logs_;
    std::vector<std::string> opened_;
    std::vector<std::string> checked_;
};

// "http://127.0.0.1:8080/" — the form of the plugin's connected-address checks.
bool is_address_url(const std::string& url);

const mcph_auth_vtable_v1* auth_vtable();  // loads the plugin once

struct Result {
    mcph_status status = MCPH_OK;
    std::string message;
};

class AuthObject {
public:
    AuthObject(TestHost& host, const std::string& server_url, const std::string& config_json,
               const std::string& name = "test-server");
    ~AuthObject();
    AuthObject(const AuthObject&) = delete;
    AuthObject& operator=(const AuthObject&) = delete;

    Result create_result() const { return created_; }
    Result headers(std::vector<std::pair<std::string, std::string>>* out);
    std::string authorization();  // the Authorization header value, "" if none
    Result challenge(int status, const std::string& www_authenticate);
    Result login();
    Result logout();
    std::string describe();
    mcph_auth* raw() const { return auth_; }  // for driving the v1.2 entry points directly
    void cancel();                            // the v1.2 auth `cancel`

private:
    mcph_auth* auth_ = nullptr;
    Result created_;
};

// The 401 challenge of a protected resource: Bearer resource_metadata="<prm_url>"<extra>.
inline std::string bearer_header(const std::string& prm_url, const std::string& extra = "") {
    return "Bearer resource_metadata=\"" + prm_url + "\"" + extra;
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Everything the plugin said for a result: the message, describe() and every log line — where a
// secret must never appear.
std::string all_output(TestHost& host, AuthObject& auth, const Result& r);

}  // namespace oauth_test
