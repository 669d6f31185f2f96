#include "trust_support.hpp"

#include "config/config_locations.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>

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
    static std::once_flag once;
    std::call_once(once, [] {
        if (!lookup(kScratchName))
            (void)std::system((std::string("useradd -M -N -s /usr/sbin/nologin ") + kScratchName + " >/dev/null 2>&1").c_str());
    });
    auto user = lookup(kScratchName);
    if (!user) ADD_FAILURE() << "useradd " << kScratchName << " failed";
    return user;
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
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd_, 16) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
        ADD_FAILURE() << "cannot listen on 127.0.0.1";
        return;
    }
    port_ = ntohs(addr.sin_port);
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

TrustTree::TrustTree() {
    fs::create_directories(repo / ".git");
    fs::create_directories(config_home);
    fs::create_directories(managed);
    fs::create_directories(home);
}

TrustTree::~TrustTree() {
    const auto left = reap_fake_servers(traces);
    EXPECT_TRUE(left.empty()) << left.size() << " fake server(s) outlived the CLI";
}

CliResult TrustTree::mcph(const std::vector<std::string>& args, const fs::path& cwd,
                          const std::map<std::string, std::string>& env) {
    std::map<std::string, std::string> all = {
        {"MCPH_CONFIG_HOME", config_home.string()},
        {"MCPH_MANAGED_DIR", managed.string()},
        {"HOME", home.string()},
    };
    for (const auto& [k, v] : env) all[k] = v;
    CliResult r = run_cli(args, all, cwd.empty() ? repo : cwd, 20s);
    last = r.describe();
    return r;
}

Json TrustTree::status(const fs::path& cwd, const std::map<std::string, std::string>& env) {
    const CliResult r = mcph({"status", "--json"}, cwd, env);
    EXPECT_EQ(r.exit_code, 0) << r.describe();
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

bool contains(std::string_view haystack, std::string_view needle) { return haystack.find(needle) != std::string_view::npos; }

}  // namespace mcph::test
