// The v1.2 auth `cancel`: the host closes a server while one of its threads is inside the browser
// step of a sign-in. cancel() from another thread ends that call (and a call waiting for the same
// object) at once with MCPH_ERR_CANCELLED instead of after authTimeoutMs; the next call is not
// affected and reaches the browser again.
#include "fake_as.hpp"
#include "test_host.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

using namespace oauth_test;
using namespace std::chrono_literals;

namespace {

// Waits (bounded) until the host has been asked to open `n` URLs.
bool wait_for_opened(TestHost& host, size_t n, std::chrono::milliseconds limit = 10s) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (host.opened().size() < n) {
        if (std::chrono::steady_clock::now() > until) return false;
        std::this_thread::sleep_for(10ms);
    }
    return true;
}

// The browser wait would last 15 s: anything near that is the timeout, not the cancel.
constexpr const char* kSlowSignIn = R"({"authTimeoutMs":15000})";

TEST(OAuthCancel, CancelEndsTheBrowserWaitAndTheNextLoginWorks) {
    FakeAs as;
    TestHost host;
    host.opener = Opener::nothing;  // the user never comes back from the browser
    AuthObject auth(host, as.mcp_url(), kSlowSignIn);
    ASSERT_EQ(auth.create_result().status, MCPH_OK);

    auto first = std::async(std::launch::async, [&] { return auth.login(); });
    ASSERT_TRUE(wait_for_opened(host, 1));  // inside the browser wait now
    const auto cancelled_at = std::chrono::steady_clock::now();
    auth.cancel();
    ASSERT_EQ(first.wait_for(1s), std::future_status::ready) << "cancel did not end the browser wait";
    EXPECT_LT(std::chrono::steady_clock::now() - cancelled_at, 1s);
    Result r = first.get();
    EXPECT_EQ(r.status, MCPH_ERR_CANCELLED) << r.message;
    EXPECT_NE(r.message.find("cancelled"), std::string::npos) << r.message;
    EXPECT_EQ(as.code_exchanges.load(), 0);

    // Not sticky: the next sign-in reaches the browser again and completes.
    host.opener = Opener::follow;
    auto second = std::async(std::launch::async, [&] { return auth.login(); });
    ASSERT_EQ(second.wait_for(10s), std::future_status::ready);
    Result ok = second.get();
    EXPECT_EQ(ok.status, MCPH_OK) << ok.message;
    EXPECT_EQ(host.opened().size(), 2u);
    EXPECT_EQ(as.code_exchanges.load(), 1);
    EXPECT_FALSE(auth.authorization().empty());
}

// A challenge in the browser step and a second challenge waiting for the single-flight slot:
// one cancel ends both.
TEST(OAuthCancel, CancelEndsAChallengeInTheBrowserAndOneWaitingForIt) {
    FakeAs as;
    TestHost host;
    host.opener = Opener::nothing;
    AuthObject auth(host, as.mcp_url(), kSlowSignIn);

    auto in_browser = std::async(std::launch::async, [&] { return auth.challenge(401, bearer_header(as.prm_url())); });
    ASSERT_TRUE(wait_for_opened(host, 1));
    auto waiting = std::async(std::launch::async, [&] { return auth.challenge(401, bearer_header(as.prm_url())); });
    // Time for the second call to reach the slot wait. Had it not, it would take the slot after
    // the cancel and open the browser itself: the checks below fail, they do not pass.
    std::this_thread::sleep_for(300ms);
    const auto cancelled_at = std::chrono::steady_clock::now();
    auth.cancel();
    ASSERT_EQ(in_browser.wait_for(1s), std::future_status::ready);
    ASSERT_EQ(waiting.wait_for(1s), std::future_status::ready);
    EXPECT_LT(std::chrono::steady_clock::now() - cancelled_at, 1s);
    Result a = in_browser.get(), b = waiting.get();
    EXPECT_EQ(a.status, MCPH_ERR_CANCELLED) << a.message;
    EXPECT_EQ(b.status, MCPH_ERR_CANCELLED) << b.message;
    EXPECT_EQ(host.opened().size(), 1u);

    // The next challenge signs in normally.
    host.opener = Opener::follow;
    Result again = auth.challenge(401, bearer_header(as.prm_url()));
    EXPECT_EQ(again.status, MCPH_OK) << again.message;
    EXPECT_EQ(host.opened().size(), 2u);
}

// A cancel with nothing in progress changes nothing.
TEST(OAuthCancel, CancelBeforeAnyCallIsNotRemembered) {
    FakeAs as;
    TestHost host;
    AuthObject auth(host, as.mcp_url(), "{}");
    auth.cancel();
    Result r = auth.challenge(401, bearer_header(as.prm_url()));
    EXPECT_EQ(r.status, MCPH_OK) << r.message;
    EXPECT_EQ(host.opened().size(), 1u);
}

}  // namespace
