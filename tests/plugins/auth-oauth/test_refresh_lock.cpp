// Two processes, one rotating refresh token (issue #12 "Refresh across processes"): two real
// processes (mcph-secrets-driver: the real host services, file store and secret_lock, with the
// built plugin dlopen()ed) start at once with the same stored, expired access token against an
// AS that rotates refresh tokens — the first use of a refresh token invalidates it — and answers
// each refresh after a delay long enough for both processes to be inside their refresh. Exactly
// one refresh reaches the AS; the other process waits on the lock, re-reads the store and adopts
// the winner's token. Without the lock both would refresh and one would get invalid_grant.
#include "rotating_as.hpp"

#include <gtest/gtest.h>

namespace {

using namespace oauth_test;
using namespace std::chrono_literals;

TEST(RefreshAcrossProcesses, OneRotatingRefreshTokenTwoProcessesOneRefreshBothSignedIn) {
    RotatingAs as(1500ms);  // both processes are inside refresh_shared while the first is served
    ScratchFolder tmp;
    ASSERT_FALSE(tmp.path.empty());
    const fs::path credentials = tmp.path / "mcph" / "credentials.json";

    write_credentials(credentials, driver_tokens_key(as), mcph::oauth::serialize(expired_tokens(as)));

    // `timeout` bounds each process well below the ctest cap even if the lock were never released.
    auto command = [&](int i) {
        return "MCPH_SECRET_STORE=file MCPH_CREDENTIALS_FILE=" + shell_quote(credentials.string()) + " timeout 15 " +
               shell_quote(MCPH_SECRETS_DRIVER) + " oauth " + shell_quote(MCPH_OAUTH_PLUGIN) + " " +
               shell_quote(as.mcp_url()) + " '{}' 2>" + shell_quote((tmp.path / ("stderr-" + std::to_string(i))).string());
    };
    FILE* a = ::popen(command(1).c_str(), "r");
    FILE* b = ::popen(command(2).c_str(), "r");
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    const std::string out_a = read_all(a), out_b = read_all(b);
    const int status_a = ::pclose(a), status_b = ::pclose(b);
    const std::string err_a = file_text(tmp.path / "stderr-1"), err_b = file_text(tmp.path / "stderr-2");

    EXPECT_EQ(status_a, 0) << err_a;
    EXPECT_EQ(status_b, 0) << err_b;
    {
        std::lock_guard<std::mutex> g(as.mutex_);
        EXPECT_EQ(as.refreshes, 1) << "one refresh reaches the AS\n" << err_a << err_b;
        EXPECT_EQ(as.rejected, 0);
    }
    // Both end signed in with the one token the AS issued; the loser says it adopted it.
    EXPECT_EQ(out_a, "authorization\tBearer at-1\n") << err_a;
    EXPECT_EQ(out_b, "authorization\tBearer at-1\n") << err_b;
    const bool a_adopted = err_a.find("using credentials refreshed by another process") != std::string::npos;
    const bool b_adopted = err_b.find("using credentials refreshed by another process") != std::string::npos;
    EXPECT_NE(a_adopted, b_adopted) << err_a << err_b;
    // The store holds the rotated refresh token, so the next refresh (any process) succeeds.
    const std::string stored = file_text(credentials);
    EXPECT_NE(stored.find("rt-1"), std::string::npos);
    EXPECT_EQ(stored.find("rt-0"), std::string::npos);
    // The lock lives beside the store, named by a hash: the key is not in any file name.
    bool saw_lock = false;
    for (const auto& e : fs::directory_iterator(credentials.parent_path() / "locks")) {
        saw_lock = true;
        EXPECT_EQ(e.path().filename().string().find("mcph.oauth"), std::string::npos);
    }
    EXPECT_TRUE(saw_lock);
}

}  // namespace

#include "fake_as.hpp"
#include "test_host.hpp"

namespace {

// A refresh that cannot take the cross-process lock in time (another process is refreshing) is a
// clear error naming the lock — never a reason to open the browser for a new sign-in.
TEST(RefreshLock, LockTimeoutIsAClearErrorNotABrowserSignIn) {
    oauth_test::FakeAs as;
    oauth_test::TestHost host;
    const std::string prm = "Bearer resource_metadata=\"" + as.prm_url() + "\"";
    {
        oauth_test::AuthObject first(host, as.mcp_url(), "{}");
        ASSERT_EQ(first.challenge(401, prm).status, MCPH_OK);
    }
    ASSERT_EQ(host.opened().size(), 1u);

    // A later process: its stored (refreshable) token is refused, and the lock never comes free.
    host.lock_mode = oauth_test::LockMode::time_out;
    oauth_test::AuthObject auth(host, as.mcp_url(), "{}");
    oauth_test::Result r = auth.challenge(401, prm);
    EXPECT_EQ(r.status, MCPH_ERR_TIMEOUT) << r.message;
    EXPECT_NE(r.message.find("refresh lock"), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("another process"), std::string::npos) << r.message;
    EXPECT_GE(host.lock_calls.load(), 1);
    EXPECT_EQ(host.opened().size(), 1u) << "a new sign-in was started";
    EXPECT_EQ(as.authorizations.load(), 1);
    EXPECT_EQ(as.refreshes.load(), 0);
    EXPECT_NE(auth.describe().find("\"kind\":\"lock_busy\""), std::string::npos) << auth.describe();
    // The stored credentials are left for the process holding the lock.
    EXPECT_FALSE(auth.authorization().empty());
}

}  // namespace
