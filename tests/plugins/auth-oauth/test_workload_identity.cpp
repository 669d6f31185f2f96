// Workload identity federation (RFC 7523 jwt-bearer grant): the built plugin against the scripted
// AS, with the workload's JWT in a real file, environment variable or command.
#include "encoding.hpp"
#include "fake_as.hpp"
#include "test_host.hpp"
#include "token_store.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace oauth_test;
namespace fs = std::filesystem;

namespace {

constexpr const char* kGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer";

// An unsigned JWT with this `exp` and a marker that must never be printed.
std::string workload_jwt(long long exp, const std::string& marker) {
    using mcph::oauth::base64url_encode;
    return base64url_encode(R"({"alg":"RS256","typ":"JWT"})") + "." +
           base64url_encode(R"({"iss":"https://k8s.example","sub":"system:serviceaccount:ns:sa","exp":)" +
                            std::to_string(exp) + R"(,"jti":")" + marker + "\"}") +
           ".c2lnbmF0dXJl" + marker;
}
long long in(long long seconds) { return mcph::oauth::now_seconds() + seconds; }

struct TempDir {
    fs::path path;
    TempDir() {
        std::string tmpl = (fs::temp_directory_path() / "mcph-wif-XXXXXX").string();
        path = ::mkdtemp(tmpl.data());
    }
    ~TempDir() { fs::remove_all(path); }
    fs::path write(const std::string& name, const std::string& text, fs::perms perms = fs::perms::owner_read | fs::perms::owner_write) const {
        std::ofstream(path / name) << text;
        fs::permissions(path / name, perms);
        return path / name;
    }
};

std::string json_string(const std::string& s) { return "\"" + s + "\""; }

// Everything the plugin said: the result, describe() and the log.
void expect_never_printed(const std::string& all, const std::string& marker) {
    EXPECT_FALSE(contains(all, marker)) << "the workload assertion leaked:\n" << all;
}

}  // namespace

TEST(WorkloadIdentity, AssertionFromFileIsPresentedWithTheJwtBearerGrant) {
    FakeAs as;
    TestHost host;
    TempDir dir;
    const std::string jwt = workload_jwt(in(600), "MARKER-FILE");
    fs::path file = dir.write("token", jwt + "\n");  // a projected token file ends with a newline
    AuthObject auth(host, as.mcp_url(), R"({"assertionFile":)" + json_string(file.string()) + "}");
    ASSERT_EQ(auth.create_result().status, MCPH_OK) << auth.create_result().message;
    Result r = auth.challenge(401, bearer_header(as.prm_url()));
    ASSERT_EQ(r.status, MCPH_OK) << r.message;
    EXPECT_EQ(as.jwt_bearers.load(), 1);
    auto f = as.last_token_form();
    EXPECT_EQ(f["grant_type"], kGrant);
    EXPECT_EQ(f["assertion"], jwt);
    EXPECT_EQ(f["resource"], as.mcp_url());
    EXPECT_EQ(f.count("client_id"), 0u);  // no clientId configured: RFC 7523 §3.1
    EXPECT_EQ(as.registrations.load(), 0);
    EXPECT_EQ(as.authorizations.load(), 0);
    EXPECT_TRUE(host.opened().empty());  // no browser
    EXPECT_EQ(auth.authorization(), "Bearer " + as.issued_tokens().back());
    EXPECT_TRUE(contains(auth.describe(), "\"grant\":\"jwt_bearer\"")) << auth.describe();
    expect_never_printed(all_output(host, auth, r), "MARKER-FILE");
}

TEST(WorkloadIdentity, AssertionFromEnvironmentWithAConfiguredClient) {
    FakeAs as;
    TestHost host;
    const std::string jwt = workload_jwt(in(600), "MARKER-ENV");
    ::setenv("MCPH_TEST_WORKLOAD_JWT", jwt.c_str(), 1);
    AuthObject auth(host, as.mcp_url(), R"({"grant":"jwt_bearer","clientId":"wl","assertionEnv":"MCPH_TEST_WORKLOAD_JWT"})");
    Result r = auth.challenge(401, bearer_header(as.prm_url()));
    ::unsetenv("MCPH_TEST_WORKLOAD_JWT");
    ASSERT_EQ(r.status, MCPH_OK) << r.message;
    EXPECT_EQ(as.last_token_form()["assertion"], jwt);
    EXPECT_EQ(as.last_token_form()["client_id"], "wl");
    expect_never_printed(all_output(host, auth, r), "MARKER-ENV");
}

// An expired assertion is not sent; it is read once more, and a platform that has rotated it in
// the meantime (here: a command that prints a newer token the second time) is used.
TEST(WorkloadIdentity, ExpiredAssertionIsReadAgainAndTheNewOneUsed) {
    FakeAs as;
    TestHost host;
    TempDir dir;
    const std::string fresh = workload_jwt(in(600), "MARKER-NEW");
    dir.write("old", workload_jwt(in(-60), "MARKER-OLD"));
    dir.write("new", fresh);
    fs::path script = dir.write("helper.sh",
                                "#!/bin/sh\nd=" + dir.path.string() +
                                    "\nif [ -e $d/read ]; then cat $d/new; else touch $d/read; cat $d/old; fi\n",
                                fs::perms::owner_all);
    AuthObject auth(host, as.mcp_url(), R"({"assertionCommand":[)" + json_string(script.string()) + "]}");
    Result r = auth.challenge(401, bearer_header(as.prm_url()));
    ASSERT_EQ(r.status, MCPH_OK) << r.message;
    ASSERT_EQ(as.assertions().size(), 1u);  // the expired one never reached the AS
    EXPECT_EQ(as.assertions()[0], fresh);
    std::string all = all_output(host, auth, r);
    expect_never_printed(all, "MARKER-NEW");
    expect_never_printed(all, "MARKER-OLD");
}

TEST(WorkloadIdentity, AssertionThatStaysExpiredIsAClearErrorWithoutARequest) {
    FakeAs as;
    TestHost host;
    TempDir dir;
    fs::path file = dir.write("token", workload_jwt(in(-120), "MARKER-EXPIRED"));
    AuthObject auth(host, as.mcp_url(), R"({"assertionFile":)" + json_string(file.string()) + "}");
    Result r = auth.challenge(401, bearer_header(as.prm_url()));
    EXPECT_NE(r.status, MCPH_OK);
    EXPECT_TRUE(contains(r.message, "expired")) << r.message;
    EXPECT_TRUE(contains(r.message, "file " + file.string())) << r.message;  // names the source
    EXPECT_EQ(as.jwt_bearers.load(), 0);
    EXPECT_EQ(auth.authorization(), "");
    expect_never_printed(all_output(host, auth, r), "MARKER-EXPIRED");
}

// invalid_grant: read again once; the same JWT again is not re-sent (no retry loop against the
// AS), the error says so.
TEST(WorkloadIdentity, RejectedAssertionIsNotSentTwice) {
    FakeAs as;
    TestHost host;
    TempDir dir;
    fs::path file = dir.write("token", workload_jwt(in(600), "MARKER-REJECTED"));
    as.fail_jwt_bearer(5, "invalid_grant");
    AuthObject auth(host, as.mcp_url(), R"({"assertionFile":)" + json_string(file.string()) + "}");
    Result r = auth.challenge(401, bearer_header(as.prm_url()));
    EXPECT_NE(r.status, MCPH_OK);
    EXPECT_EQ(as.jwt_bearers.load(), 1);
    EXPECT_TRUE(contains(r.message, "invalid_grant")) << r.message;
    EXPECT_TRUE(contains(r.message, "reading it again gave the same one")) << r.message;
    expect_never_printed(all_output(host, auth, r), "MARKER-REJECTED");
}

TEST(WorkloadIdentity, RejectedAssertionIsRetriedOnceWithARotatedOne) {
    FakeAs as;
    TestHost host;
    TempDir dir;
    dir.write("a", workload_jwt(in(600), "MARKER-A"));
    dir.write("b", workload_jwt(in(600), "MARKER-B"));
    fs::path script = dir.write("helper.sh",
                                "#!/bin/sh\nd=" + dir.path.string() +
                                    "\nif [ -e $d/read ]; then cat $d/b; else touch $d/read; cat $d/a; fi\n",
                                fs::perms::owner_all);
    as.fail_jwt_bearer(1, "invalid_grant");
    AuthObject auth(host, as.mcp_url(), R"({"assertionCommand":[)" + json_string(script.string()) + "]}");
    Result r = auth.challenge(401, bearer_header(as.prm_url()));
    ASSERT_EQ(r.status, MCPH_OK) << r.message;
    ASSERT_EQ(as.assertions().size(), 2u);
    EXPECT_TRUE(contains(as.assertions()[1], "MARKER-B"));
}

// Other refusals are not about the JWT: surfaced at once, no second request, no other grant.
TEST(WorkloadIdentity, InvalidScopeIsSurfacedWithoutRetry) {
    FakeAs as;
    TestHost host;
    TempDir dir;
    fs::path file = dir.write("token", workload_jwt(in(600), "MARKER-SCOPE"));
    as.fail_jwt_bearer(5, "invalid_scope");
    AuthObject auth(host, as.mcp_url(), R"({"assertionFile":)" + json_string(file.string()) + "}");
    Result r = auth.challenge(401, bearer_header(as.prm_url()));
    EXPECT_NE(r.status, MCPH_OK);
    EXPECT_TRUE(contains(r.message, "invalid_scope")) << r.message;
    EXPECT_EQ(as.jwt_bearers.load(), 1);
    EXPECT_EQ(as.authorizations.load() + as.code_exchanges.load() + as.client_credentials.load(), 0);
}

TEST(WorkloadIdentity, UnusableSourcesAreClearErrors) {
    FakeAs as;
    TestHost host;
    TempDir dir;
    struct Case {
        std::string config, expect;
    } cases[] = {
        {R"({"assertionEnv":"MCPH_TEST_NO_SUCH_VARIABLE"})", "environment variable MCPH_TEST_NO_SUCH_VARIABLE: is not set"},
        {R"({"assertionFile":)" + json_string((dir.path / "missing").string()) + "}", "cannot be read"},
        {R"({"assertionFile":)" + json_string(dir.write("empty", "\n").string()) + "}", "is empty"},
        {R"({"assertionCommand":["sh","-c","echo MARKER-STDERR >&2; exit 3"]})", "exited with status 3"},
        {R"({"assertionCommand":["head","-c","70000","/dev/zero"]})", "more than 64 KiB"},
        {R"({"assertionCommand":["/nonexistent/token-helper"]})", "command /nonexistent/token-helper"},
        {R"({"assertionFile":"/dev/zero"})", "is not a regular file"},
    };
    for (const auto& c : cases) {
        AuthObject auth(host, as.mcp_url(), c.config);
        ASSERT_EQ(auth.create_result().status, MCPH_OK) << c.config << ": " << auth.create_result().message;
        Result r = auth.challenge(401, bearer_header(as.prm_url()));
        EXPECT_NE(r.status, MCPH_OK) << c.config;
        EXPECT_TRUE(contains(r.message, c.expect)) << c.config << ": " << r.message;
        EXPECT_FALSE(contains(r.message, "MARKER-STDERR")) << r.message;
    }
    EXPECT_EQ(as.jwt_bearers.load(), 0);
}

// A helper that hangs — printing nothing, or closing stdout and never exiting — is ended at the
// deadline with a clear error.
TEST(WorkloadIdentity, HangingCommandIsBounded) {
    FakeAs as;
    TestHost host;
    for (const char* script : {"sleep 30", "exec >&-; sleep 30"}) {
        AuthObject auth(host, as.mcp_url(),
                        std::string(R"({"assertionTimeoutMs":1000,"assertionCommand":["sh","-c",")") + script + "\"]}");
        auto start = std::chrono::steady_clock::now();
        Result r = auth.challenge(401, bearer_header(as.prm_url()));
        auto took = std::chrono::steady_clock::now() - start;
        EXPECT_NE(r.status, MCPH_OK);
        EXPECT_TRUE(contains(r.message, "did not finish within 1000 ms")) << script << ": " << r.message;
        EXPECT_LT(took, std::chrono::seconds(5)) << script;
    }
    EXPECT_EQ(as.jwt_bearers.load(), 0);
}

TEST(WorkloadIdentity, BadConfigFailsAtCreate) {
    TestHost host;
    for (const char* config : {R"({"grant":"jwt_bearer"})", R"({"assertionFile":"/a","assertionEnv":"B"})",
                               R"({"assertionCommand":"cat /token"})", R"({"assertionCommand":[]})",
                               R"({"grant":"client_credentials","clientId":"x","clientSecret":"y","assertionEnv":"B"})"}) {
        AuthObject auth(host, "http://127.0.0.1:1/mcp", config);
        EXPECT_EQ(auth.create_result().status, MCPH_ERR_INVALID_ARGUMENT) << config;
        EXPECT_TRUE(contains(auth.create_result().message, "assertion") ||
                    contains(auth.create_result().message, "jwt_bearer"))
            << config << ": " << auth.create_result().message;
    }
}
