#include "workload_assertion.hpp"

#include "encoding.hpp"
#include "errors.hpp"

#include <mcph/bounded_json.hpp>

#include <rapidjson/document.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace mcph::oauth {

namespace {

std::string trim(std::string s) {
    const char* ws = " \t\r\n";
    size_t b = s.find_first_not_of(ws);
    if (b == std::string::npos) return {};
    return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

[[noreturn]] void fail(const std::string& where, const std::string& why) {
    throw OAuthError(FailureKind::config_invalid, "workload assertion from " + where + ": " + why);
}

std::string read_file(const std::string& path, const std::string& where) {
    std::error_code ec;
    // Not a FIFO or a device: opening one could block, or read without end.
    if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
        fail(where, "is not a regular file");
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(where, std::string("cannot be read (") + std::strerror(errno) + ")");
    std::string out;
    char buf[4096];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
        out.append(buf, static_cast<size_t>(in.gcount()));
        if (out.size() > AssertionSource::kMaxBytes) fail(where, "larger than 64 KiB");
    }
    return out;
}

// The command's stdout, bounded in size and time. Written here rather than with Boost.Process:
// we need a hard deadline that kills the child, a size cap on what we keep, no shell, and
// stderr discarded (a token helper may print the token there too) — four lines each with
// posix_spawn, and Boost.Process v1's wait_for is unreliable on the Debian version.
std::string run_command(const std::vector<std::string>& argv_in, std::chrono::milliseconds timeout,
                        const std::string& where) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) fail(where, std::string("pipe: ") + std::strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    std::vector<char*> argv;
    for (const auto& a : argv_in) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = -1;
    int rc = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    ::close(fds[1]);
    if (rc != 0) {
        ::close(fds[0]);
        fail(where, std::string("cannot be started (") + std::strerror(rc) + ")");
    }
    std::string out;
    bool too_big = false, timed_out = false;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            timed_out = true;
            break;
        }
        pollfd p{fds[0], POLLIN, 0};
        int n = ::poll(&p, 1, static_cast<int>(left.count()));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) continue;  // the deadline check above ends it
        char buf[4096];
        ssize_t got = ::read(fds[0], buf, sizeof buf);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;  // EOF: the command closed its stdout
        out.append(buf, static_cast<size_t>(got));
        if (out.size() > AssertionSource::kMaxBytes) {
            too_big = true;
            break;
        }
    }
    ::close(fds[0]);
    // A command that closed its stdout may still not exit: the same deadline bounds the wait.
    int status = 0;
    while (!timed_out && !too_big) {
        pid_t w = ::waitpid(pid, &status, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR)) break;
        if (std::chrono::steady_clock::now() >= deadline) timed_out = true;
        else ::usleep(10000);
    }
    if (timed_out || too_big) {
        ::kill(pid, SIGKILL);
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
    }
    if (timed_out) fail(where, "did not finish within " + std::to_string(timeout.count()) + " ms (assertionTimeoutMs)");
    if (too_big) fail(where, "printed more than 64 KiB");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail(where, WIFEXITED(status) ? "exited with status " + std::to_string(WEXITSTATUS(status))
                                      : "was killed by signal " + std::to_string(WTERMSIG(status)));
    return out;
}

}  // namespace

std::string AssertionSource::where() const {
    if (!config_.file.empty()) return "file " + config_.file;
    if (!config_.env.empty()) return "environment variable " + config_.env;
    return config_.command.empty() ? "nowhere" : "command " + config_.command[0];
}

std::string AssertionSource::read() const {
    const std::string w = where();
    std::string raw;
    if (!config_.file.empty()) {
        raw = read_file(config_.file, w);
    } else if (!config_.env.empty()) {
        const char* v = std::getenv(config_.env.c_str());
        if (!v) fail(w, "is not set");
        raw = v;
        if (raw.size() > kMaxBytes) fail(w, "larger than 64 KiB");
    } else if (!config_.command.empty()) {
        raw = run_command(config_.command, config_.timeout, w);
    } else {
        fail(w, "no assertionFile, assertionEnv or assertionCommand is configured");
    }
    std::string jwt = trim(std::move(raw));
    if (jwt.empty()) fail(w, "is empty");
    if (jwt.find_first_of(" \t\r\n") != std::string::npos) fail(w, "is not a single JWT");
    return jwt;
}

std::optional<long long> jwt_expiry(const std::string& jwt) {
    size_t a = jwt.find('.');
    size_t b = a == std::string::npos ? a : jwt.find('.', a + 1);
    if (b == std::string::npos) return std::nullopt;
    auto payload = base64url_decode(std::string_view(jwt).substr(a + 1, b - a - 1));
    if (!payload) return std::nullopt;
    rapidjson::Document doc;
    if (!json_bounds::parse(doc, *payload) || !doc.IsObject()) return std::nullopt;
    auto it = doc.FindMember("exp");
    if (it == doc.MemberEnd() || !it->value.IsNumber()) return std::nullopt;
    return it->value.IsInt64() ? it->value.GetInt64() : static_cast<long long>(it->value.GetDouble());
}

}  // namespace mcph::oauth
