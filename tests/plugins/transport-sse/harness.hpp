// Test harness: loads the built SSE plugin with dlopen() and drives its C vtable, recording every
// callback the way a host would see it, including the auth hooks.
#pragma once

#include <mcph/plugin_api.h>

#include "../plugin_under_test.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sse_test {

using namespace std::chrono_literals;

// The plugin, loaded once per process (init called, transport vtable fetched).
using Plugin = mcph_test::TransportPlugin;  // ../plugin_under_test.hpp
Plugin& plugin();

using mcph_test::json_string;  // ../plugin_under_test.hpp

// {"type":<type>,"name":"test","url":<url>, <extra>}
std::string config(const std::string& url, const std::string& extra = "", const std::string& type = "sse");

// A typed failure as the recorder copied it (ABI 1.1 on_closed_ex / on_failure / on_request_failed).
struct RecordedFailure {
    std::string request_id;  // on_request_failed only
    mcph_failure_category category = MCPH_FAILURE_OTHER;
    int os_error = 0;
    int http_status = 0;
    std::string message;
    std::string body;
};

// Records the host side of one transport. Thread-safe. `typed`: the callbacks of a host of ABI
// 1.1 as well (on_closed_ex, on_failure, on_request_failed); otherwise exactly those of a 1.0 host.
class Recorder {
public:
    explicit Recorder(bool typed = false);
    const mcph_transport_callbacks* callbacks() const { return &callbacks_; }

    // Runs inside on_message, on the plugin's I/O thread (e.g. to call send from there).
    std::function<void(std::string_view)> on_message_hook;

    // The auth hook: headers added before every request, and the answer to a 401/403.
    void set_auth_headers(std::vector<std::pair<std::string, std::string>> headers);
    void set_challenge_answer(bool retry);
    int challenges();
    int last_challenge_status();
    std::string last_challenge_header();
    int header_requests();
    // ABI v1.2 host (call before start): get_request_headers_ex. A POST's headers are answered
    // MCPH_PENDING while `pending_posts` is set; the test completes them with complete_pending().
    // The GET's (at start) are answered at once with the set_auth_headers() headers.
    void enable_async_auth();
    std::atomic<bool> pending_posts{false};
    bool wait_pending(size_t count, std::chrono::milliseconds timeout = 5s);
    bool complete_pending(mcph_status status, const std::vector<std::pair<std::string, std::string>>& headers = {});
    size_t cancel_all_pending();  // what the host does in close()

    bool wait_messages(size_t count, std::chrono::milliseconds timeout = 10s);
    bool wait_closed(std::chrono::milliseconds timeout = 10s);
    std::vector<std::string> messages();
    std::vector<std::string> diagnostics();
    int closed_count();
    mcph_close_reason close_reason();
    std::string close_detail();  // typed: the failure's message
    RecordedFailure close_failure();
    std::vector<RecordedFailure> failures();          // on_failure
    std::vector<RecordedFailure> request_failures();  // on_request_failed
    bool wait_request_failures(size_t count, std::chrono::milliseconds timeout = 10s);

    void mark_closed_returned() { close_returned_.store(true); }
    int late_callbacks() const { return late_callbacks_.load(); }

private:
    static void on_message(void* self, mcph_str message);
    static void on_closed(void* self, mcph_close_reason reason, mcph_str detail);
    static void on_diagnostic(void* self, mcph_log_level level, mcph_str message);
    static void on_closed_ex(void* self, mcph_close_reason reason, const mcph_failure* failure);
    static void on_failure(void* self, const mcph_failure* failure);
    static void on_request_failed(void* self, mcph_str request_id, const mcph_failure* failure);
    static mcph_status get_request_headers(void* self, const mcph_header_sink* sink, mcph_error* err);
    static mcph_status get_request_headers_ex(void* self, const mcph_auth_request* request, const mcph_header_sink* sink,
                                              const mcph_auth_completion* done, mcph_error* err);
    std::vector<mcph_auth_completion> pending_;
    static mcph_status on_auth_challenge(void* self, int status, mcph_str www_authenticate, mcph_str resource,
                                         mcph_error* err);
    void note_callback();

    mcph_transport_callbacks callbacks_;
    std::mutex mutex_;
    std::condition_variable cv_;
    std::vector<std::string> messages_;
    std::vector<std::string> diagnostics_;
    int closed_count_ = 0;
    mcph_close_reason reason_ = MCPH_CLOSE_CLEAN;
    std::string detail_;
    RecordedFailure close_failure_;
    std::vector<RecordedFailure> failures_;
    std::vector<RecordedFailure> request_failures_;
    std::vector<std::pair<std::string, std::string>> auth_headers_;
    bool challenge_answer_ = false;
    int challenges_ = 0;
    int last_challenge_status_ = 0;
    std::string last_challenge_header_;
    int header_requests_ = 0;
    std::atomic<bool> close_returned_{false};
    std::atomic<int> late_callbacks_{0};
};

// One transport under test (start, send, set_option, pump, error: mcph_test::PluginTransport);
// closed, then destroyed, with the object.
class Transport : public mcph_test::Recording<Recorder>, public mcph_test::PluginTransport {
public:
    explicit Transport(const std::string& config_json, bool typed = false);
    ~Transport() { close(); }

    void close();  // as the host does: pending auth cancelled first; later callbacks count as bugs
};

// Whether any of `lines` (diagnostics, messages) contains `needle`.
bool any_contains(const std::vector<std::string>& lines, const std::string& needle);

}  // namespace sse_test
