#include "trust_support.hpp"

#include "config/config_locations.hpp"
#include "loopback_listener.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <thread>

namespace mcph::test {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

constexpr const char* kScratchName = "mcph-trust-scratch";

std::optional<ScratchUser> lookup(const char* name) {
    passwd* pw = ::getpwnam(name);
    if (!pw) return std::nullopt;
    return ScratchUser{pw->pw_uid, pw->pw_gid};
}

}  // namespace

std::optional<ScratchUser> scratch_user() {
    if (::geteuid() != 0) return std::nullopt;
    // Test processes run in parallel (ctest -j): a useradd may lose the race for /etc/passwd's lock
    // to another one creating the same user, so try again (bounded) until the user exists.
    for (int attempt = 0; attempt < 50; ++attempt) {
        if (auto user = lookup(kScratchName)) return user;
        (void)std::system((std::string("useradd -M -N -s /usr/sbin/nologin ") + kScratchName + " >/dev/null 2>&1").c_str());
        if (auto user = lookup(kScratchName)) return user;
        std::this_thread::sleep_for(100ms);
    }
    ADD_FAILURE() << "useradd " << kScratchName << " failed";
    return std::nullopt;
}

void chown_to(const fs::path& path, const ScratchUser& user) {
    ASSERT_EQ(::lchown(path.c_str(), user.uid, user.gid), 0) << "chown " << path;
}

std::string marker_server(const fs::path& marker, const std::vector<std::string>& fake_args) {
    std::string script = "echo ran >> '" + marker.string() + "'; exec '" + fake_server_path().string() + "'";
    for (const auto& a : fake_args) script += " '" + a + "'";
    return "{\"command\":\"/bin/sh\",\"args\":[\"-c\"," + json_quote(script) + "],\"shutdownGraceMs\":500}";
}

Listener::Listener() {
    fd_ = listen_on_loopback(port_, 16, SOCK_NONBLOCK);
    if (fd_ < 0) ADD_FAILURE() << "cannot listen on 127.0.0.1";
}

Listener::~Listener() {
    if (fd_ >= 0) ::close(fd_);
}

bool Listener::connected() {
    const int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) return false;
    ::close(c);
    return true;
}

CliResult run_cli_on_tty(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
                         const fs::path& cwd, const std::string& input, std::chrono::milliseconds timeout) {
    CliResult result;
    CliExec exec(args, env);  // built before fork (the child may only make async-signal-safe calls)
    result.command_line = exec.command_line() + "   (on a terminal, typing " + json_quote(input) + ")";
    const std::string cwd_s = cwd.string();

    int master = -1;
    const pid_t pid = ::forkpty(&master, nullptr, nullptr, nullptr);  // the child: a new session on the pty
    if (pid < 0) {
        ADD_FAILURE() << "forkpty failed";
        return result;
    }
    if (pid == 0) {
        if (::chdir(cwd_s.c_str()) != 0) ::_exit(126);
        ::execve(exec.argv()[0], exec.argv(), exec.envp());
        ::_exit(127);
    }
    if (!input.empty()) (void)!::write(master, input.data(), input.size());  // buffered by the line discipline
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    char buffer[4096];
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            result.timed_out = true;
            ::kill(pid, SIGKILL);
            break;
        }
        pollfd p{master, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
        const ssize_t n = ::read(master, buffer, sizeof buffer);
        if (n <= 0) break;  // EIO: the child closed the terminal (it exited)
        result.out.append(buffer, static_cast<size_t>(n));
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    ::close(master);
    if (!result.timed_out && WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    return result;
}

TrustTree::TrustTree() { locations().create(); }

CliLocations TrustTree::locations() const {
    return {.repo = repo, .config_home = config_home, .managed = managed, .home = home};
}

TrustTree::~TrustTree() {
    const auto left = reap_fake_servers(traces);
    EXPECT_TRUE(left.empty()) << left.size() << " fake server(s) outlived the CLI";
}

CliResult TrustTree::mcph(const std::vector<std::string>& args, const fs::path& cwd,
                          const std::map<std::string, std::string>& env) {
    std::map<std::string, std::string> all = locations().env();
    for (const auto& [k, v] : env) all[k] = v;
    CliResult r = run_cli(args, all, cwd.empty() ? repo : cwd, 20s);
    last = r.describe();
    return r;
}

CliResult TrustTree::mcph_on_tty(const std::vector<std::string>& args, const std::string& input, const fs::path& cwd,
                                 const std::map<std::string, std::string>& extra) {
    std::map<std::string, std::string> env = locations().env();
    for (const auto& [k, v] : extra) env[k] = v;
    CliResult r = run_cli_on_tty(args, env, cwd.empty() ? repo : cwd, input);
    last = r.describe();
    return r;
}

Json TrustTree::status(const fs::path& cwd, const std::map<std::string, std::string>& env) {
    const CliResult r = mcph({"status", "--json"}, cwd, env);
    // 3: a server failed, 4: one needs auth (status is a health check); the view is printed all the same.
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 3 || r.exit_code == 4) << r.describe();
    return parse_or_fail(r.out, "`mcph status --json`");
}

fs::path TrustTree::local_settings(const fs::path& project) const {
    return config::local_settings_file_for(config_home, fs::canonical(project));
}

std::string problems_about(const Json& status, const std::string& origin) {
    std::string out;
    const JsonValue* problems = member_at(status, "configProblems");
    if (!problems || !problems->IsArray()) return out;
    for (const JsonValue& p : problems->GetArray())
        if (origin.empty() || string_at(p, "origin") == origin) out += string_at(p, "reason") + "\n";
    return out;
}

}  // namespace mcph::test
