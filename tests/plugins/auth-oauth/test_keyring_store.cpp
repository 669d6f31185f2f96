// The Secret Service store against a real gnome-keyring-daemon, started by the test inside its
// own dbus-run-session (issue #12 "A real keyring"; what it must show, item 5). Every step is a
// separate process — mcph-secrets-driver (the host's store selection and services, with the
// plugin dlopen()ed for the OAuth step) and the real `mcph status` — so "read back from a second
// process" is literal. Unlocked: tokens go to the keyring, not to the credentials file; an
// expired token is refreshed through the plugin and the rotated one lands in the keyring; no
// token shows in any log, status or error text. Locked, and absent: the file store is used and
// the reason is said; a forced keyring fails naming it.
#include "rotating_as.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <sys/wait.h>

namespace {

using namespace oauth_test;
using namespace std::chrono_literals;

bool on_path(const char* binary) {
    const std::string cmd = std::string("command -v ") + binary + " >/dev/null 2>&1";
    return std::system(cmd.c_str()) == 0;
}

// "name=value" lines of the script's stdout.
std::map<std::string, std::string> fields(const std::string& out) {
    std::map<std::string, std::string> f;
    std::istringstream in(out);
    std::string line;
    while (std::getline(in, line))
        if (auto eq = line.find('='); eq != std::string::npos) f[line.substr(0, eq)] = line.substr(eq + 1);
    return f;
}

class KeyringStore : public ::testing::Test {
protected:
    void SetUp() override {
        for (const char* binary : {"dbus-run-session", "gnome-keyring-daemon"})
            if (!on_path(binary)) GTEST_SKIP() << binary << " is not installed (scripts/setup.sh installs it)";
        ASSERT_FALSE(tmp_.path.empty());
        for (const char* d : {"run", "data", "home", "config"}) {
            fs::create_directories(tmp_.path / d);
            fs::permissions(tmp_.path / d, fs::perms::owner_all);
        }
    }

    // Runs `script` in a fresh session bus with the test's private HOME, keyring folder, runtime
    // folder and mcph config home. `timeout` bounds it (and the daemons die with their bus): 50 s,
    // inside the test's 60 s, a bound against a hang, not a speed check: a script starts ten
    // sanitizer-built processes, and 20 s was once not enough under ThreadSanitizer on a loaded machine.
    std::string in_session(const std::string& script) {
        const fs::path driver = MCPH_SECRETS_DRIVER;
        std::string env = "-u MCPH_SECRET_STORE -u DBUS_SESSION_BUS_ADDRESS HOME=" + shell_quote((tmp_.path / "home").string()) +
                          " XDG_DATA_HOME=" + shell_quote((tmp_.path / "data").string()) +
                          " XDG_RUNTIME_DIR=" + shell_quote((tmp_.path / "run").string()) +
                          " MCPH_CONFIG_HOME=" + shell_quote((tmp_.path / "config").string()) +
                          " MCPH_CREDENTIALS_FILE=" + shell_quote(credentials().string()) +
                          " D=" + shell_quote(driver.string()) +
                          " M=" + shell_quote((driver.parent_path() / "mcph").string()) +
                          " T=" + shell_quote(tmp_.path.string());
        const std::string prelude = R"sh(
wait_service() {  # until the daemon owns org.freedesktop.secrets (bounded: 5 s)
  i=0
  while [ $i -lt 100 ]; do
    case "$("$D" which 2>&1)" in *"no Secret Service"*) sleep 0.05; i=$((i+1));; *) return 0;; esac
  done
  echo "wait_service=timeout"
}
)sh";
        const std::string command = "env " + env + " timeout 50 dbus-run-session -- sh -c " + shell_quote(prelude + script) +
                                    " 2>" + shell_quote((tmp_.path / "session.err").string());
        FILE* p = ::popen(command.c_str(), "r");
        if (!p) return {};
        std::string out = read_all(p);
        ::pclose(p);
        return out;
    }
    fs::path credentials() const { return tmp_.path / "config" / "credentials.json"; }
    std::string text(const std::string& name) const { return file_text(tmp_.path / name); }

    ScratchFolder tmp_;
};

TEST_F(KeyringStore, UnlockedKeyringHoldsTokensAcrossProcessesAndNoTokenShows) {
    RotatingAs as(0ms, "Zq7xK2-");
    std::string seeded = mcph::oauth::serialize(expired_tokens(as));
    const std::string script = R"sh(
echo "before=$("$D" which)"
printf '%s' 'keyring-test-password' | gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null 2>&1 &
daemon=$!
wait_service
echo "which=$("$D" which)"
"$D" set "$KEY" "$SEED" >/dev/null
[ "$("$D" get "$KEY")" = "value	$SEED" ] && echo "readback=ok"
"$D" oauth "$P" "$URL" '{}' >"$T/oauth.out" 2>"$T/oauth.err"; echo "oauth=$?"
"$D" get "$KEY" >"$T/after.txt"
MCPH_LOG_LEVEL=debug "$M" status >"$T/status.out" 2>"$T/status.err"; echo "status=$?"
MCPH_LOG_LEVEL=debug "$M" status --json >"$T/status.json" 2>>"$T/status.err"
"$D" erase "$KEY" >/dev/null
echo "erased=$("$D" get "$KEY")"
kill $daemon
)sh";
    const std::string out = in_session("KEY=" + shell_quote(driver_tokens_key(as)) + " SEED=" + shell_quote(seeded) +
                                       " P=" + shell_quote(MCPH_OAUTH_PLUGIN) + " URL=" + shell_quote(as.mcp_url()) +
                                       "\n" + script);
    auto f = fields(out);
    const std::string diag = out + text("session.err") + text("oauth.err");
    EXPECT_TRUE(contains(f["before"], "no Secret Service")) << diag;  // the bus alone is not a keyring
    ASSERT_TRUE(contains(f["which"], "keyring")) << diag;
    EXPECT_EQ(f["readback"], "ok") << diag;
    EXPECT_EQ(f["oauth"], "0") << diag;
    EXPECT_EQ(text("oauth.out"), "authorization\tBearer Zq7xK2-at-1\n") << diag;
    {
        std::lock_guard<std::mutex> g(as.mutex_);
        EXPECT_EQ(as.refreshes, 1);
    }
    // The rotated tokens were saved to the keyring, and nothing to the file store.
    EXPECT_TRUE(contains(text("after.txt"), "Zq7xK2-rt-1")) << text("after.txt");
    EXPECT_FALSE(fs::exists(credentials()));
    EXPECT_EQ(f["erased"], "absent") << diag;
    // status says where tokens are kept.
    EXPECT_EQ(f["status"], "0") << text("status.err");
    EXPECT_TRUE(contains(text("status.out"), "credentials: keyring")) << text("status.out");
    EXPECT_TRUE(contains(text("status.json"), "\"secretStore\"")) << text("status.json");
    // No token in any log, status or error text.
    for (const char* name : {"oauth.err", "status.out", "status.err", "status.json", "session.err"})
        EXPECT_FALSE(contains(text(name), "Zq7xK2-")) << name << ":\n" << text(name);
}

TEST_F(KeyringStore, LockedKeyringFallsBackToTheFileWithTheReason) {
    // First session: create the login keyring (unlocked by its password), store one secret.
    const std::string create = R"sh(
printf '%s' 'keyring-test-password' | gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null 2>&1 &
daemon=$!
wait_service
"$D" set k v >/dev/null; echo "created=$?"
kill $daemon
)sh";
    ASSERT_EQ(fields(in_session(create))["created"], "0") << text("session.err");
    // Second session: the same keyring on disk, nobody unlocks it.
    const std::string locked = R"sh(
gnome-keyring-daemon --foreground --components=secrets </dev/null >/dev/null 2>&1 &
daemon=$!
wait_service
echo "which=$("$D" which)"
MCPH_SECRET_STORE=keyring "$D" set k2 secret-Zq7xK2 2>"$T/forced.err"; echo "forced=$?"
"$M" status >"$T/status.out" 2>"$T/status.err"; echo "status=$?"
"$D" set k3 v3 >/dev/null; echo "fallback-set=$?"
kill $daemon
)sh";
    auto f = fields(in_session(locked));
    EXPECT_TRUE(contains(f["which"], "file")) << f["which"];
    EXPECT_TRUE(contains(f["which"], "keyring not used: the default keyring is locked")) << f["which"];
    EXPECT_EQ(f["forced"], "1");
    EXPECT_TRUE(contains(text("forced.err"), "the default keyring is locked")) << text("forced.err");
    EXPECT_FALSE(contains(text("forced.err"), "secret-Zq7xK2"));
    EXPECT_EQ(f["status"], "0") << text("status.err");
    EXPECT_TRUE(contains(text("status.out"), "credentials: file")) << text("status.out");
    EXPECT_TRUE(contains(text("status.out"), "the default keyring is locked")) << text("status.out");
    // A session bus with a locked keyring: the user likely expected the keyring, so mcph warns.
    EXPECT_TRUE(contains(text("status.err"), "keyring not used: the default keyring is locked")) << text("status.err");
    EXPECT_EQ(f["fallback-set"], "0");
    EXPECT_TRUE(contains(file_text(credentials()), "v3"));  // the fallback really is the file
}

TEST_F(KeyringStore, BusWithoutAnyKeyringFallsBackQuietly) {
    const std::string script = R"sh(
echo "which=$("$D" which)"
"$M" status >"$T/status.out" 2>"$T/status.err"; echo "status=$?"
)sh";
    auto f = fields(in_session(script));
    EXPECT_TRUE(contains(f["which"], "keyring not used: no Secret Service")) << f["which"];
    EXPECT_EQ(f["status"], "0") << text("status.err");
    EXPECT_TRUE(contains(text("status.out"), "no Secret Service")) << text("status.out");
    // A bus without any Secret Service is a headless session: no warning on stderr.
    EXPECT_FALSE(contains(text("status.err"), "keyring")) << text("status.err");
}

}  // namespace
