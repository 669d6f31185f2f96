// Test harness: loads the built HTTP plugin with dlopen() and drives its C vtable, recording
// every callback the way a host would see it (including the auth hooks).
#pragma once

#include <mcph/plugin_api.h>

#include "../plugin_under_test.hpp"

#include <gtest/gtest.h>

#include <rapidjson/document.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace http_test {

using namespace std::chrono_literals;

using Plugin = mcph_test::TransportPlugin;  // ../plugin_under_test.hpp
Plugin& plugin();

// The fixture of tests that talk to the in-process server: loopback bypasses any proxy the
// environment names (libcurl would follow it), and the plugin is loaded.
class LoopbackTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        ::setenv("NO_PROXY", "127.0.0.1,localhost", 1);
        ::setenv("no_proxy", "127.0.0.1,localhost", 1);
    }
    void SetUp() override { ASSERT_NE(plugin().vtable, nullptr); }
};

using mcph_test::json_string;  // ../plugin_under_test.hpp
// {"jsonrpc":"2.0","id":<id>,"method":<method>}
std::string request(int id, const std::string& method = "tools/call");
// {"jsonrpc":"2.0","id":<id>,"result":{}}
std::string empty_result(int id);
// One SSE event carrying `data` (with an `id:` line when `id` is given).
std::string event(const std::string& data, const std::string& id = "");
// A message parsed (a parse error leaves the document in error, not an exception).
rapidjson::Document parse(const std::string& text);
// The error object answering request `id` in `d`, or null.
const rapidjson::Value* error_for(const rapidjson::Document& d, int id);
// The message of the error answering request `id` among `messages`, or "" when there is none.
std::string error_message_for(const std::vector<std::string>& messages, int id);
// {"type":"http","name":"test","url":<url>[,extra]}
std::string http_config(const std::string& url, const std::string& extra = "");

struct Challenge {
    int status;
    std::string www_authenticate;
    std::string resource_url;
};

// A typed failure as an ABI 1.1 host receives it (on_request_failed / on_failure / on_closed_ex).
struct TypedFailure {
    std::string request_id;  // on_request_failed only
    mcph_failure_category category = MCPH_FAILURE_OTHER;
    int os_error = 0;
    int http_status = 0;
    std::string message;
    std::string body;
};

// What a host knows about one message (ABI 1.1 send_ex), owning its text.
struct Facts {
    std::string id, method, name, protocol_version;
    std::vector<std::pair<std::string, std::string>> params;
    uint32_t flags = 0;
};

// One call of an ABI v1.2 auth hook, as the host saw it (owning its text).
struct AuthCall {
    bool challenge = false;
    std::string method, url;
    int http_status = 0;
    std::string www_authenticate;
    std::vector<std::pair<std::string, std::string>> response_headers;
    std::string header(const std::string& name) const;  // ASCII case-insensitive; "" when absent
};

// Records the host side of one transport. Thread-safe. A `typed` recorder is an ABI 1.1 host
// (typed failures instead of synthesized errors and on_closed); otherwise it is a 1.0 host.
class Recorder {
public:
    explicit Recorder(bool typed = false);
    const mcph_transport_callbacks* callbacks() const { return &callbacks_; }

    // Set before start(); run on the plugin's I/O thread.
    std::function<void(std::string_view)> on_message_hook;
    std::function<std::vector<std::pair<std::string, std::string>>()> headers_hook;  // may throw int status
    std::function<bool(const Challenge&)> challenge_hook;

    // ABI v1.2 host (call before start): get_request_headers_ex / on_auth_challenge_ex. A hook
    // returning nullopt makes the call answer MCPH_PENDING; the test completes it later with
    // complete_pending(). Unset hooks: headers none, challenges refused.
    void enable_async_auth();
    std::function<std::optional<std::vector<std::pair<std::string, std::string>>>(const AuthCall&)> async_headers_hook;
    std::function<std::optional<bool>(const AuthCall&)> async_challenge_hook;
    bool wait_pending(size_t count, std::chrono::milliseconds timeout = 5s);
    size_t pending_count();
    // Completes the oldest pending answer, from the calling thread. False when none is pending.
    bool complete_pending(mcph_status status, const std::vector<std::pair<std::string, std::string>>& headers = {});
    // What a host does in close(): every pending answer is completed with MCPH_ERR_CANCELLED.
    size_t cancel_all_pending();
    std::vector<AuthCall> auth_calls();

    bool wait_messages(size_t count, std::chrono::milliseconds timeout = 5s);
    bool wait_closed(std::chrono::milliseconds timeout = 5s);
    std::vector<std::string> messages();
    std::vector<std::string> diagnostics();
    std::vector<Challenge> challenges();
    int closed_count();
    mcph_close_reason close_reason();
    std::string close_detail();
    // Typed host only:
    bool wait_request_failures(size_t count, std::chrono::milliseconds timeout = 5s);
    std::vector<TypedFailure> request_failures();
    std::vector<TypedFailure> failures();  // on_failure
    TypedFailure close_failure();          // on_closed_ex

    void mark_closed_returned() { close_returned_.store(true); }
    int late_callbacks() const { return late_callbacks_.load(); }
    int concurrent_callbacks() const { return max_concurrent_.load(); }

private:
    static void on_message(void* self, mcph_str message);
    static void on_closed(void* self, mcph_close_reason reason, mcph_str detail);
    static void on_diagnostic(void* self, mcph_log_level level, mcph_str message);
    static mcph_status get_request_headers(void* self, const mcph_header_sink* sink, mcph_error* err);
    static mcph_status on_auth_challenge(void* self, int status, mcph_str www, mcph_str url, mcph_error* err);
    static void on_request_failed(void* self, mcph_str request_id, const mcph_failure* failure);
    static void on_failure(void* self, const mcph_failure* failure);
    static void on_closed_ex(void* self, mcph_close_reason reason, const mcph_failure* failure);
    static mcph_status get_request_headers_ex(void* self, const mcph_auth_request* request, const mcph_header_sink* sink,
                                              const mcph_auth_completion* done, mcph_error* err);
    static mcph_status on_auth_challenge_ex(void* self, const mcph_auth_request* request,
                                            const mcph_auth_completion* done, mcph_error* err);
    void note_callback();
    std::vector<AuthCall> auth_calls_;
    std::vector<mcph_auth_completion> pending_;

    mcph_transport_callbacks callbacks_;
    std::mutex mutex_;
    std::condition_variable cv_;
    std::vector<std::string> messages_;
    std::vector<std::string> diagnostics_;
    std::vector<Challenge> challenges_;
    int closed_count_ = 0;
    mcph_close_reason reason_ = MCPH_CLOSE_CLEAN;
    std::string detail_;
    std::vector<TypedFailure> request_failures_;
    std::vector<TypedFailure> failures_;
    TypedFailure close_failure_;
    std::atomic<bool> close_returned_{false};
    std::atomic<int> late_callbacks_{0};
    std::atomic<int> in_message_{0};
    std::atomic<int> max_concurrent_{0};
};

// One transport under test (start, send, set_option, pump, error: mcph_test::PluginTransport);
// closed, then destroyed, with the object.
class Transport : public mcph_test::Recording<Recorder>, public mcph_test::PluginTransport {
public:
    explicit Transport(const std::string& config_json, bool typed = false);
    ~Transport() { close(); }

    mcph_status send_ex(std::string_view message, const Facts& facts);
    mcph_status cancel(std::string_view request_id);
    void close();  // as the host does: pending auth cancelled first; later callbacks count as bugs
};

}  // namespace http_test
