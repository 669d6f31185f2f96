// Helpers of the trust attack tests (trust_*_test.cpp): a scripted repository tree under a temp
// dir with its own config home and managed dir, the real `mcph` binary run in it, a stdio server
// whose command leaves a marker file when it runs (proof, after the CLI has exited, that it did or
// did not), a loopback listener that records whether anybody connected, and a scratch second uid
// for the planted-file attacks (root only: the CI machine is root).
#pragma once

#include "governance_support.hpp"

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>
#include "contains.hpp"

namespace mcph::test {

// The uid/gid of a scratch user (created once with `useradd -M`), or nullopt when not root.
struct ScratchUser {
    uid_t uid;
    gid_t gid;
};
std::optional<ScratchUser> scratch_user();
// chown -h, failing the test when it cannot.
void chown_to(const std::filesystem::path& path, const ScratchUser& user);

// A stdio server config that runs `sh -c 'echo ran >> MARKER; exec fake-mcp-server ARGS'`.
std::string marker_server(const std::filesystem::path& marker, const std::vector<std::string>& fake_args = {});

// A TCP listener on 127.0.0.1 (backlog kept, nothing accepted until asked): connected() says whether
// a connection is waiting — checked after the CLI has exited, so no waiting is needed.
class Listener {
public:
    Listener();
    ~Listener();
    Listener(const Listener&) = delete;
    Listener& operator=(const Listener&) = delete;
    int port() const { return port_; }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/mcp"; }
    bool connected();  // a non-blocking accept

private:
    int fd_ = -1;
    int port_ = 0;
};

// Runs `mcph args...` on a pseudo-terminal (stdin, stdout and stderr all the pty, so the CLI sees a
// person at a terminal), typing `input` and collecting everything it prints into `out`; killed after
// `timeout`. The environment is the test's minus governance_env_vars(), plus `env`.
CliResult run_cli_on_tty(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
                         const std::filesystem::path& cwd, const std::string& input,
                         std::chrono::milliseconds timeout = std::chrono::seconds(20));

class TrustTree {
public:
    TrustTree();
    ~TrustTree();

    // mcph in `cwd` (default: the repository root) with the tree's locations (+ `env`; "" unsets).
    CliResult mcph(const std::vector<std::string>& args, const std::filesystem::path& cwd = {},
                   const std::map<std::string, std::string>& env = {});
    // The same on a terminal, answering its questions with `input`.
    CliResult mcph_on_tty(const std::vector<std::string>& args, const std::string& input, const std::filesystem::path& cwd = {},
                          const std::map<std::string, std::string>& env = {});
    // `mcph status --json`, parsed (exit code checked).
    Json status(const std::filesystem::path& cwd = {}, const std::map<std::string, std::string>& env = {});
    std::string last;  // the last run, described, for failure messages

    TempDir dir{"trust"};
    std::filesystem::path config_home = dir / "config-home";
    std::filesystem::path managed = dir / "managed";
    std::filesystem::path home = dir / "home";
    std::filesystem::path repo = dir / "repo";
    std::vector<std::filesystem::path> traces;
    CliLocations locations() const;
    // The local settings file in the config home for `project` (resolved like the host does).
    std::filesystem::path local_settings(const std::filesystem::path& project) const;
};

// The "reason"s of configProblems whose origin is `origin` (all of them when empty), joined.
std::string problems_about(const Json& status, const std::string& origin);

}  // namespace mcph::test
