// wss://: peer verification is always on; a self-signed certificate is refused unless it is the
// configured caFile, and the certificate must name the host.
#include "fake_server.hpp"
#include "harness.hpp"

#include <gtest/gtest.h>

namespace ws_test {
namespace {

const std::string kMsg = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";

class WsTlsTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() { cert_ = new TestCertificate(); }
    static void TearDownTestSuite() {
        delete cert_;
        cert_ = nullptr;
    }
    void SetUp() override {
        if (!cert_->ok) GTEST_SKIP() << "the openssl CLI could not make a test certificate";
    }
    static FakeWsServer::Options tls() {
        FakeWsServer::Options o;
        o.cert_file = cert_->cert_file;
        o.key_file = cert_->key_file;
        return o;
    }
    static TestCertificate* cert_;
};
TestCertificate* WsTlsTest::cert_ = nullptr;

TEST_F(WsTlsTest, UntrustedSelfSignedCertificateIsRefused) {
    FakeWsServer server([](Session& s) { s.echo_until_closed(); }, tls());
    Transport t(ws_config("wss://localhost:" + std::to_string(server.port()) + "/mcp"));
    EXPECT_EQ(t.start(), MCPH_ERR_IO);
    EXPECT_NE(t.error().find("TLS certificate verification failed: self-signed certificate"), std::string::npos)
        << t.error();
    EXPECT_TRUE(server.handshakes().empty()) << "no upgrade request may reach an unverified peer";
}

TEST_F(WsTlsTest, CaFileMakesItTrusted) {
    FakeWsServer server([](Session& s) { s.echo_until_closed(); }, tls());
    Transport t(ws_config("wss://localhost:" + std::to_string(server.port()) + "/mcp",
                          "\"caFile\":" + json_string(cert_->cert_file)));
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();
    ASSERT_EQ(t.send(kMsg), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    EXPECT_EQ(t.recorder.messages().at(0), kMsg);
    t.close();
    EXPECT_EQ(t.recorder.late_callbacks(), 0);
}

TEST_F(WsTlsTest, HostnameIsVerifiedToo) {
    FakeWsServer server([](Session& s) { s.echo_until_closed(); }, tls());
    // Trusted certificate, wrong name: it names "localhost", the URL says 127.0.0.1.
    Transport t(ws_config(server.url(), "\"caFile\":" + json_string(cert_->cert_file)));
    EXPECT_EQ(t.start(), MCPH_ERR_IO);
    EXPECT_NE(t.error().find("does not name '127.0.0.1'"), std::string::npos) << t.error();
    EXPECT_TRUE(server.handshakes().empty());
}

TEST_F(WsTlsTest, UnreadableCaFileIsAConfigError) {
    Transport t(ws_config("wss://localhost:1/mcp", R"("caFile":"/nonexistent/ca.pem")"));
    EXPECT_EQ(t.start(), MCPH_ERR_INVALID_ARGUMENT);
    EXPECT_NE(t.error().find("'caFile'"), std::string::npos) << t.error();
}

}  // namespace
}  // namespace ws_test
