#include "governance_support.hpp"

#include "../json_literal.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

extern char** environ;

namespace mcph::test {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

fs::path cli_path() { return MCPH_TEST_CLI; }

double monotonic_ms() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) * 1000.0 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// ---- files and environment ------------------------------------------------------------------------

TempDir::TempDir(std::string_view stem) : path_(temp_path(stem)) {
    std::error_code ec;
    fs::create_directories(path_, ec);
    if (ec) ADD_FAILURE() << "cannot create " << path_ << ": " << ec.message();
    path_ = fs::canonical(path_, ec);  // the host resolves symlinks in cwd: compare like with like
}

TempDir::~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
}

void write_file(const fs::path& path, std::string_view content) {
    std::error_code ec;
    if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.close();
    if (!out) ADD_FAILURE() << "cannot write " << path;
}

ScopedEnv::~ScopedEnv() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
        if (it->second)
            ::setenv(it->first.c_str(), it->second->c_str(), 1);
        else
            ::unsetenv(it->first.c_str());
    }
}

void ScopedEnv::remember(const std::string& name) {
    const char* old = std::getenv(name.c_str());
    saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
}

void ScopedEnv::set(const std::string& name, const std::string& value) {
    remember(name);
    ::setenv(name.c_str(), value.c_str(), 1);
}

void ScopedEnv::unset(const std::string& name) {
    remember(name);
    ::unsetenv(name.c_str());
}

const std::vector<std::string>& governance_env_vars() {
    static const std::vector<std::string> vars = {
        "MCPH_PLUGIN_PATH",          "MCPH_CONFIG_HOME",          "MCPH_MANAGED_DIR",
        "XDG_CONFIG_HOME",           "MCPH_RECONNECT_ATTEMPTS",   "MCPH_RECONNECT_INITIAL_MS",
        "MCPH_RECONNECT_MAX_MS",     "MCPH_RECONNECT_STABLE_MS",  "MCPH_LOCAL_CONNECT_BATCH",
        "MCPH_REMOTE_CONNECT_BATCH", "MCPH_SHELL_PREFIX",         "MCPH_LOG_LEVEL",
    };
    return vars;
}

// ---- trace ----------------------------------------------------------------------------------------

std::vector<TraceEvent> read_trace(const fs::path& trace) {
    std::vector<TraceEvent> out;
    for (const auto& line : read_lines(trace)) {
        std::istringstream in(line);
        TraceEvent e;
        long long pid = 0;
        if (in >> e.kind >> pid >> e.t_ms) {
            e.pid = static_cast<pid_t>(pid);
            out.push_back(e);
        }
    }
    return out;
}

std::vector<TraceEvent> trace_events(const std::vector<TraceEvent>& all, std::string_view kind) {
    std::vector<TraceEvent> out;
    for (const auto& e : all)
        if (e.kind == kind) out.push_back(e);
    return out;
}

int max_concurrent_handshakes(const std::vector<TraceEvent>& events) {
    std::vector<std::pair<long long, int>> edges;  // (time, +1 start / -1 ready)
    for (const auto& e : events) edges.emplace_back(e.t_ms, e.kind == "start" ? +1 : -1);
    std::sort(edges.begin(), edges.end());  // at equal times -1 sorts first: ready before start
    int now = 0, most = 0;
    for (const auto& [t, d] : edges) {
        now += d;
        most = std::max(most, now);
    }
    return most;
}

bool fake_server_alive(pid_t pid) {
    if (pid <= 0) return false;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return false;
    const auto close = line.rfind(')');
    if (close == std::string::npos || close + 2 >= line.size()) return false;
    if (line[close + 2] == 'Z') return false;  // exited; only the parent's wait is missing
    std::ifstream cmd("/proc/" + std::to_string(pid) + "/cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(cmd)), std::istreambuf_iterator<char>());
    return cmdline.find("fake-mcp-server") != std::string::npos;
}

std::vector<pid_t> reap_fake_servers(const std::vector<fs::path>& traces, std::chrono::milliseconds grace) {
    std::set<pid_t> pids;
    for (const auto& trace : traces)
        for (const auto& e : read_trace(trace)) pids.insert(e.pid);
    auto survivors = [&] {
        std::vector<pid_t> alive;
        for (pid_t p : pids)
            if (fake_server_alive(p)) alive.push_back(p);
        return alive;
    };
    wait_until([&] { return survivors().empty(); }, grace);
    std::vector<pid_t> killed = survivors();
    for (pid_t p : killed) ::kill(p, SIGKILL);
    return killed;
}

std::string json_quote(std::string_view s) { return mcph_test::json_string(s); }

std::string fake_server_config_text(const std::vector<std::string>& args) {
    std::string text = "{\"command\":" + json_quote(fake_server_path().string()) + ",\"args\":[";
    for (std::size_t i = 0; i < args.size(); ++i) text += (i ? "," : "") + json_quote(args[i]);
    return text + "],\"shutdownGraceMs\":500}";
}

Json fake_server_config(const std::vector<std::string>& args) { return stdio_config(fake_server_path(), args); }

// ---- state recorder -------------------------------------------------------------------------------

StateEvent summarize(const std::string& server, const ConnectionState& state) {
    StateEvent e;
    e.server = server;
    e.t_ms = monotonic_ms();
    if (const auto* p = std::get_if<state::Pending>(&state)) {
        e.state = "pending";
        e.attempt = p->attempt;
        e.max_attempts = p->max_attempts;
        e.detail = p->last_error;
    } else if (const auto* c = std::get_if<state::Connected>(&state)) {
        e.state = "connected";
        e.detail = c->instructions;
    } else if (const auto* f = std::get_if<state::Failed>(&state)) {
        e.state = "failed";
        e.detail = f->error;
    } else if (const auto* n = std::get_if<state::NeedsAuth>(&state)) {
        e.state = "needs-auth";
        e.detail = n->reason;
    } else if (const auto* d = std::get_if<state::Disabled>(&state)) {
        e.state = "disabled";
        e.detail = d->reason;
    }
    return e;
}

std::string describe(const StateEvent& e) {
    std::ostringstream out;
    out << static_cast<long long>(e.t_ms) << "ms " << e.server << " " << e.state;
    if (e.state == "pending") out << "(" << e.attempt << "/" << e.max_attempts << ")";
    if (!e.detail.empty()) out << " [" << e.detail.substr(0, 160) << "]";
    return out.str();
}

struct StateRecorder::State {
    mutable std::mutex mutex;
    std::vector<StateEvent> events;
};

StateRecorder::StateRecorder() : state_(std::make_shared<State>()) {}

std::function<void(const std::string&, const ConnectionState&)> StateRecorder::sink() const {
    std::shared_ptr<State> state = state_;
    return [state](const std::string& server, const ConnectionState& s) {
        StateEvent e = summarize(server, s);
        std::lock_guard lock(state->mutex);
        state->events.push_back(std::move(e));
    };
}

std::vector<StateEvent> StateRecorder::events(const std::string& server) const { return events_since(server, 0); }

std::size_t StateRecorder::size() const {
    std::lock_guard lock(state_->mutex);
    return state_->events.size();
}

std::vector<StateEvent> StateRecorder::events_since(const std::string& server, std::size_t from) const {
    std::lock_guard lock(state_->mutex);
    std::vector<StateEvent> out;
    for (std::size_t i = from; i < state_->events.size(); ++i)
        if (state_->events[i].server == server) out.push_back(state_->events[i]);
    return out;
}

bool StateRecorder::wait_for(const std::string& server, const std::function<bool(const std::vector<StateEvent>&)>& predicate,
                             std::chrono::milliseconds timeout) const {
    return wait_until([&] { return predicate(events(server)); }, timeout);
}

std::string StateRecorder::dump(const std::string& server) const {
    std::string out = "state changes of '" + server + "':";
    for (const auto& e : events(server)) out += "\n  " + describe(e);
    return out;
}

// ---- CLI ------------------------------------------------------------------------------------------

std::string CliResult::describe() const {
    std::ostringstream text;
    text << "$ " << command_line << "\nexit code " << exit_code << (timed_out ? " (killed: timed out)" : "")
         << "\n--- stdout ---\n"
         << out.substr(0, 6000) << "\n--- stderr ---\n"
         << err.substr(0, 6000);
    return text.str();
}

void CliLocations::create() const {
    fs::create_directories(repo / ".git");
    fs::create_directories(config_home);
    fs::create_directories(managed);
    fs::create_directories(home);
}

std::map<std::string, std::string> CliLocations::env() const {
    return {{"MCPH_CONFIG_HOME", config_home.string()}, {"MCPH_MANAGED_DIR", managed.string()}, {"HOME", home.string()}};
}

CliExec::CliExec(const std::vector<std::string>& args, const std::map<std::string, std::string>& env) {
    argv_s_ = {cli_path().string()};
    argv_s_.insert(argv_s_.end(), args.begin(), args.end());
    for (const auto& a : argv_s_) command_line_ += (command_line_.empty() ? "" : " ") + a;
    std::map<std::string, std::string> vars;
    for (char** e = environ; e && *e; ++e) {
        const std::string kv = *e;
        const auto eq = kv.find('=');
        if (eq != std::string::npos) vars[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    for (const auto& name : governance_env_vars()) vars.erase(name);
    for (const auto& [k, v] : env) {
        if (v.empty())
            vars.erase(k);
        else
            vars[k] = v;
    }
    for (const auto& [k, v] : vars) env_s_.push_back(k + "=" + v);
    for (auto& s : argv_s_) argv_p_.push_back(s.data());
    argv_p_.push_back(nullptr);
    for (auto& s : env_s_) env_p_.push_back(s.data());
    env_p_.push_back(nullptr);
}

CliResult run_cli(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
                  const fs::path& cwd, std::chrono::milliseconds timeout) {
    CliResult result;
    CliExec exec(args, env);  // built before fork (the child may only make async-signal-safe calls)
    result.command_line = exec.command_line();

    const fs::path out_file = temp_path("cli-stdout");
    const fs::path err_file = temp_path("cli-stderr");
    const int out_fd = ::open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    const int err_fd = ::open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    const std::string cwd_s = cwd.string();
    const pid_t pid = (out_fd >= 0 && err_fd >= 0 && null_fd >= 0) ? ::fork() : -1;
    if (pid == 0) {
        ::setpgid(0, 0);
        if (::chdir(cwd_s.c_str()) != 0) ::_exit(126);
        ::dup2(null_fd, 0);
        ::dup2(out_fd, 1);
        ::dup2(err_fd, 2);
        ::execve(exec.argv()[0], exec.argv(), exec.envp());
        ::_exit(127);
    }
    if (pid > 0) {
        ::setpgid(pid, pid);  // also from the parent, so the group exists before any kill below
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        int status = 0;
        rusage usage{};
        for (;;) {
            const pid_t r = ::wait4(pid, &status, WNOHANG, &usage);
            if (r == pid) break;
            if (r < 0) {
                status = -1;
                break;
            }
            if (std::chrono::steady_clock::now() >= deadline) {
                result.timed_out = true;
                ::kill(-pid, SIGKILL);
                ::wait4(pid, &status, 0, &usage);
                break;
            }
            std::this_thread::sleep_for(10ms);
        }
        if (!result.timed_out && status != -1 && WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
        if (status != -1) result.max_rss_kb = usage.ru_maxrss;
    }
    for (int fd : {out_fd, err_fd, null_fd})
        if (fd >= 0) ::close(fd);
    result.out = read_file(out_file);
    result.err = read_file(err_file);
    std::error_code ec;
    fs::remove(out_file, ec);
    fs::remove(err_file, ec);
    if (pid < 0) result.err = "could not start " + result.command_line;
    return result;
}

// ---- JSON -----------------------------------------------------------------------------------------

Json parse_or_fail(const std::string& text, const std::string& what) {
    Json doc;
    doc.Parse(text.c_str(), text.size());
    if (doc.HasParseError() || !doc.IsObject()) {
        ADD_FAILURE() << what << " is not a JSON object:\n" << text.substr(0, 4000);
        doc.SetObject();
    }
    return doc;
}

const JsonValue* member_at(const JsonValue& object, const char* key) {
    if (!object.IsObject()) return nullptr;
    auto it = object.FindMember(key);
    return it == object.MemberEnd() ? nullptr : &it->value;
}

std::string string_at(const JsonValue& object, const char* key) {
    const JsonValue* v = member_at(object, key);
    return v && v->IsString() ? std::string(v->GetString(), v->GetStringLength()) : std::string();
}

const JsonValue* find_named(const JsonValue* array, std::string_view name) {
    if (!array || !array->IsArray()) return nullptr;
    for (const auto& item : array->GetArray())
        if (string_at(item, "name") == name) return &item;
    return nullptr;
}

std::vector<std::string> names_in(const JsonValue* array) {
    std::vector<std::string> out;
    if (!array || !array->IsArray()) return out;
    for (const auto& item : array->GetArray()) out.push_back(string_at(item, "name"));
    return out;
}

}  // namespace mcph::test
