// Test harness: loads the built ws plugin with dlopen() and drives its C vtable, recording every
// callback the way a host would see it (including the auth hooks).
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

namespace ws_test {

using namespace std::chrono_literals;
using Headers = std::vector<std::pair<std::string, std::string>>;

using Plugin = mcph_test::TransportPlugin;  // ../plugin_under_test.hpp
Plugin& plugin();

using mcph_test::json_string;  // ../plugin_under_test.hpp
// {"type":"ws","name":"test","url":<url>, <extra>}
std::string ws_config(const std::string& url, const std::string& extra = "", const std::string& type = "ws");

// Records the host side of one transport. Thread-safe. `typed`: the callbacks of a host of ABI
// 1.1 (on_closed_ex, on_failure) as well; otherwise exactly those of a 1.0 host.
class Recorder {
public:
    explicit Recorder(bool typed = false);
    const mcph_transport_callbacks* callbacks() const { return &callbacks_; }

    std::function<void(std::string_view)> on_message_hook;  // runs inside on_message
    // Auth hook: headers returned by get_request_headers, and the answer to a challenge.
    void set_auth_headers(Headers h);
    void set_challenge_answer(bool refreshed, Headers after = {});

    bool wait_messages(size_t count, std::chrono::milliseconds timeout = 10s);
    bool wait_closed(std::chrono::milliseconds timeout = 10s);
    std::vector<std::string> messages();
    std::vector<std::string> diagnostics();
    int closed_count();
    mcph_close_reason close_reason();
    std::string close_detail();                       // typed: the failure's message
    mcph_failure_category close_category();           // typed only
    std::vector<mcph_failure_category> failures();    // on_failure, typed only
    int challenges();
    int last_challenge_status();
    std::string last_challenge_header();
    std::string last_challenge_resource();
    int header_requests();

    void mark_closed_returned() { close_returned_.store(true); }
    int late_callbacks() const { return late_callbacks_.load(); }
    int concurrent_callbacks() const { return overlap_.load(); }

private:
    static void on_message(void* self, mcph_str message);
    static void on_closed(void* self, mcph_close_reason reason, mcph_str detail);
    static void on_diagnostic(void* self, mcph_log_level level, mcph_str message);
    static void on_closed_ex(void* self, mcph_close_reason reason, const mcph_failure* failure);
    static void on_failure(void* self, const mcph_failure* failure);
    static mcph_status get_request_headers(void* self, const mcph_header_sink* sink, mcph_error* err);
    static mcph_status on_auth_challenge(void* self, int status, mcph_str www, mcph_str resource, mcph_error* err);
    void note_callback();

    mcph_transport_callbacks callbacks_;
    std::mutex mutex_;
    std::condition_variable cv_;
    std::vector<std::string> messages_;
    std::vector<std::string> diagnostics_;
    int closed_count_ = 0;
    mcph_close_reason reason_ = MCPH_CLOSE_CLEAN;
    std::string detail_;
    mcph_failure_category close_category_ = MCPH_FAILURE_OTHER;
    std::vector<mcph_failure_category> failures_;
    Headers auth_headers_;
    bool challenge_refreshes_ = false;
    Headers headers_after_challenge_;
    int challenges_ = 0;
    int challenge_status_ = 0;
    std::string challenge_header_;
    std::string challenge_resource_;
    int header_requests_ = 0;
    std::atomic<bool> close_returned_{false};
    std::atomic<int> late_callbacks_{0};
    std::atomic<int> in_message_{0};
    std::atomic<int> overlap_{0};
};

// One transport under test (start, send, set_option, pump, error: mcph_test::PluginTransport);
// closed, then destroyed, with the object.
class Transport : public mcph_test::Recording<Recorder>, public mcph_test::PluginTransport {
public:
    explicit Transport(const std::string& config_json, bool typed = false);
    ~Transport() { close(); }

    void close();  // marks the recorder so any later callback is counted as a bug
};

size_t thread_count();  // entries in /proc/self/task
// Milliseconds since `start` on the steady clock.
long ms_since(std::chrono::steady_clock::time_point start);
// A loopback port nothing listens on: an ephemeral one bound, then released.
int free_port();

}  // namespace ws_test
