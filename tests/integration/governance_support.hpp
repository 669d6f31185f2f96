// Helpers of the governance end-to-end tests (governance_test.cpp, governance_cli_test.cpp):
// temp directory trees, scoped environment variables, the fake server's --trace file, a recorder
// for HostOptions::on_state_change, and running the real `mcph` binary with a bound.
#pragma once

#include "test_support.hpp"

#include <mcph/connection_state.hpp>
#include <mcph/host.hpp>

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mcph::test {

std::filesystem::path cli_path();  // the built `mcph` binary

// CLOCK_MONOTONIC (== std::chrono::steady_clock on Linux) in fractional milliseconds: the clock of
// the fake server's --trace lines.
double monotonic_ms();

// A fresh directory under the temp dir, removed with everything in it on destruction.
class TempDir {
public:
    explicit TempDir(std::string_view stem);
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return path_; }
    std::filesystem::path operator/(const std::string& rel) const { return path_ / rel; }

private:
    std::filesystem::path path_;
};

// Writes `content` to `path`, creating parent directories. Fails the test when it cannot.
void write_file(const std::filesystem::path& path, std::string_view content);

// Sets / unsets process environment variables; restores the previous values on destruction.
class ScopedEnv {
public:
    ScopedEnv() = default;
    ~ScopedEnv();
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;
    void set(const std::string& name, const std::string& value);
    void unset(const std::string& name);

private:
    void remember(const std::string& name);
    std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// Variables that would change what the host or the CLI does behind a test's back.
const std::vector<std::string>& governance_env_vars();

// ---- fake-mcp-server --trace ----------------------------------------------------------------------

struct TraceEvent {
    std::string kind;  // "start" | "ready"
    pid_t pid = 0;
    long long t_ms = 0;  // CLOCK_MONOTONIC ms
};
std::vector<TraceEvent> read_trace(const std::filesystem::path& trace);
std::vector<TraceEvent> trace_events(const std::vector<TraceEvent>& all, std::string_view kind);

// The largest number of processes between their "start" and their "ready" at any instant (a
// "ready" at the same millisecond as a "start" counts as before it).
int max_concurrent_handshakes(const std::vector<TraceEvent>& events);

// Is `pid` a live (not zombie) fake-mcp-server process?
bool fake_server_alive(pid_t pid);
// Waits (bounded) until no pid of the traces is a live fake server; SIGKILLs the survivors.
// Returns the pids that had to be killed (empty when everything was cleaned up by the host).
std::vector<pid_t> reap_fake_servers(const std::vector<std::filesystem::path>& traces,
                                     std::chrono::milliseconds grace = std::chrono::milliseconds(3000));

// {"command": <fake-mcp-server>, "args": args, "shutdownGraceMs": 500}
Json fake_server_config(const std::vector<std::string>& args);
// The same as a JSON text, for config files.
std::string fake_server_config_text(const std::vector<std::string>& args);
// A JSON string literal (quoted, escaped): mcph_test::json_string (tests/json_literal.hpp).
std::string json_quote(std::string_view s);

// ---- on_state_change ------------------------------------------------------------------------------

struct StateEvent {
    std::string server;
    std::string state;      // "pending" | "connected" | "failed" | "needs-auth" | "disabled"
    int attempt = -1;       // pending only
    int max_attempts = -1;  // pending only
    std::string detail;     // pending: last_error; failed: error; needs-auth: reason; disabled: reason;
                            // connected: instructions
    double t_ms = 0;        // monotonic_ms() when the callback ran
};

std::string describe(const StateEvent& e);

// Thread-safe record of every state change the host reports.
class StateRecorder {
public:
    StateRecorder();
    // For HostOptions::on_state_change; shares the recorder's storage, so it may outlive it.
    std::function<void(const std::string&, const ConnectionState&)> sink() const;

    std::vector<StateEvent> events(const std::string& server) const;
    std::size_t size() const;  // all servers
    // The events of `server` recorded after the first `from` events (of all servers).
    std::vector<StateEvent> events_since(const std::string& server, std::size_t from) const;
    // Waits (bounded) until `predicate` holds for the events of `server`.
    bool wait_for(const std::string& server, const std::function<bool(const std::vector<StateEvent>&)>& predicate,
                  std::chrono::milliseconds timeout) const;
    std::string dump(const std::string& server) const;

private:
    struct State;
    std::shared_ptr<State> state_;
};

StateEvent summarize(const std::string& server, const ConnectionState& state);

// ---- the mcph CLI ---------------------------------------------------------------------------------

struct CliResult {
    int exit_code = -1;  // -1: killed (timeout) or did not start
    bool timed_out = false;
    // run_cli only: the CLI's peak resident set (wait4), in KiB. wait4 also counts what the child
    // was forked with, so this is at least the test process's own RSS at the fork: an upper bound.
    long max_rss_kb = -1;
    std::string out;
    std::string err;
    std::string command_line;
    std::string describe() const;  // for failure messages
};

// The argv and envp of `mcph args...` for execve: this process's environment minus
// governance_env_vars(), plus `env` (an empty value unsets). Built before fork, since the child
// may only make async-signal-safe calls.
class CliExec {
public:
    CliExec(const std::vector<std::string>& args, const std::map<std::string, std::string>& env);
    CliExec(const CliExec&) = delete;  // argv()/envp() point into the strings
    CliExec& operator=(const CliExec&) = delete;
    char* const* argv() { return argv_p_.data(); }
    char* const* envp() { return env_p_.data(); }
    const std::string& command_line() const { return command_line_; }

private:
    std::vector<std::string> argv_s_, env_s_;
    std::vector<char*> argv_p_, env_p_;
    std::string command_line_;
};

// The scratch locations a CLI test runs mcph in: a repository (a git root), the config home, the
// managed dir and HOME.
struct CliLocations {
    std::filesystem::path repo, config_home, managed, home;
    void create() const;                              // the four folders, and repo/.git
    std::map<std::string, std::string> env() const;   // MCPH_CONFIG_HOME, MCPH_MANAGED_DIR, HOME
};

// Runs `mcph args...` in `cwd` with this process's environment minus governance_env_vars(), plus
// `env` (an empty value unsets). stdout/stderr are captured; killed (with its process group) after
// `timeout`.
CliResult run_cli(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
                  const std::filesystem::path& cwd, std::chrono::milliseconds timeout = std::chrono::seconds(30));

// ---- JSON helpers ---------------------------------------------------------------------------------

// Parses or fails the test (ADD_FAILURE) and returns an empty object.
Json parse_or_fail(const std::string& text, const std::string& what);
std::string string_at(const JsonValue& object, const char* key);  // "" when absent / not a string
const JsonValue* member_at(const JsonValue& object, const char* key);
// The element of `array` whose "name" is `name`, or null.
const JsonValue* find_named(const JsonValue* array, std::string_view name);
std::vector<std::string> names_in(const JsonValue* array);

}  // namespace mcph::test
