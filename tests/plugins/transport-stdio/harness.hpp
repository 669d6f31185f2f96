// Test harness: loads the built stdio plugin with dlopen() and drives its C vtable, recording
// every callback the way a host would see it.
#pragma once

#include "../plugin_under_test.hpp"
#include "../resource_probe.hpp"

#include <mcph/plugin_api.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stdio_test {

using namespace std::chrono_literals;

// The plugin, loaded once per process (init called, transport vtable fetched).
struct Plugin : mcph_test::TransportPlugin {  // ../plugin_under_test.hpp
    std::vector<std::string> logs();  // lines logged through host services
};
Plugin& plugin();

// JSON helpers for building configs.
using mcph_test::json_string;  // ../plugin_under_test.hpp
std::string json_array(const std::vector<std::string>& items);

struct Config {
    explicit Config(std::string command_, std::vector<std::string> args_ = {},
                    std::map<std::string, std::string> env_ = {}, std::optional<std::string> cwd_ = std::nullopt,
                    std::string extra_ = {})
        : command(std::move(command_)), args(std::move(args_)), env(std::move(env_)), cwd(std::move(cwd_)),
          extra(std::move(extra_)) {}
    std::string command;
    std::vector<std::string> args;
    std::map<std::string, std::string> env;
    std::optional<std::string> cwd;
    std::string extra;  // raw JSON members appended, e.g. "\"shutdownGraceMs\":200"
    std::string json() const;
};
Config sh(const std::string& script, std::string extra = "");           // /bin/sh -c script
Config script(const std::string& name, std::vector<std::string> args, std::string extra = "");  // scripts/<name>

// A typed failure as the recorder copied it (ABI 1.1 on_closed_ex / on_failure).
struct RecordedFailure {
    mcph_failure_category category = MCPH_FAILURE_OTHER;
    int os_error = 0;
    std::string message;
    std::string stderr_tail;
};

// Records the host side of one transport. Thread-safe. `typed`: the callbacks of a host of ABI
// 1.1 (on_closed_ex, on_failure); otherwise exactly those of a 1.0 host, so the plugin's
// fallbacks are what is seen.
class Recorder {
public:
    explicit Recorder(bool typed = false);
    const mcph_transport_callbacks* callbacks() const { return &callbacks_; }

    // Runs inside on_message, on the plugin's reader thread (e.g. to call send from there).
    std::function<void(std::string_view)> on_message_hook;

    bool wait_messages(size_t count, std::chrono::milliseconds timeout = 10s);
    bool wait_closed(std::chrono::milliseconds timeout = 10s);
    std::vector<std::string> messages();
    std::vector<std::string> diagnostics();
    size_t message_count();
    int closed_count();
    mcph_close_reason close_reason();
    std::string close_detail();       // typed: the failure's message
    RecordedFailure close_failure();  // typed only
    std::vector<RecordedFailure> failures();  // on_failure, typed only

    void mark_closed_returned() { close_returned_.store(true); }
    int late_callbacks() const { return late_callbacks_.load(); }
    int in_callback() const { return in_callback_.load(); }

private:
    static void on_message(void* self, mcph_str message);
    static void on_closed(void* self, mcph_close_reason reason, mcph_str detail);
    static void on_diagnostic(void* self, mcph_log_level level, mcph_str message);
    static void on_closed_ex(void* self, mcph_close_reason reason, const mcph_failure* failure);
    static void on_failure(void* self, const mcph_failure* failure);
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
    std::atomic<bool> close_returned_{false};
    std::atomic<int> late_callbacks_{0};
    std::atomic<int> in_callback_{0};
};

// One transport under test (start, send, set_option, pump, error: mcph_test::PluginTransport);
// closed, then destroyed, with the object.
class Transport : public mcph_test::Recording<Recorder>, public mcph_test::PluginTransport {
public:
    explicit Transport(const Config& config, bool typed = false) : Transport(config.json(), typed) {}
    explicit Transport(const std::string& config_json, bool typed = false);
    ~Transport() { close(); }

    void close();  // marks the recorder so any later callback is counted as a bug
};

// Process introspection.
long rss_kib();                  // VmRSS of this process
size_t open_fd_count();          // entries in /proc/self/fd
size_t thread_count();           // entries in /proc/self/task
using mcph_test::threads_named;  // ../resource_probe.hpp
using mcph_test::DescriptorsTaken;
bool process_gone(long pid);     // no such process, or a zombie
bool has_children();             // any child process of ours left (running or zombie)


}  // namespace stdio_test
