// TLS: peer verification is always on; a self-signed certificate is refused unless it is the
// configured caFile.
#include "fake_server.hpp"
#include "harness.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace http_test {
namespace {

const std::string kPing = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
const std::string kPong = R"({"jsonrpc":"2.0","id":1,"result":{}})";

class HttpTlsTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        ::setenv("NO_PROXY", "127.0.0.1,localhost", 1);
        ::setenv("no_proxy", "127.0.0.1,localhost", 1);
        cert_ = new TestCertificate();
    }
    static void TearDownTestSuite() {
        delete cert_;
        cert_ = nullptr;
    }
    void SetUp() override {
        if (!cert_->ok) GTEST_SKIP() << "the openssl CLI could not make a test certificate";
    }
    static TestCertificate* cert_;
};
TestCertificate* HttpTlsTest::cert_ = nullptr;

TEST_F(HttpTlsTest, UntrustedSelfSignedCertificateIsRefused) {
    FakeServer server(FakeServer::Tls{cert_->cert_file, cert_->key_file});
    server.on([](Exchange& ex) { ex.json(kPong); });
    Transport t(http_config(server.url()));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(kPing), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    const std::string m = t.recorder.messages().at(0);
    EXPECT_NE(m.find("\"error\""), std::string::npos) << m;
    EXPECT_TRUE(m.find("certificate") != std::string::npos || m.find("SSL") != std::string::npos) << m;
    EXPECT_TRUE(server.requests().empty()) << "no request may reach an unverified peer";
    t.close();
}

TEST_F(HttpTlsTest, CaFileMakesItTrusted) {
    FakeServer server(FakeServer::Tls{cert_->cert_file, cert_->key_file});
    server.on([](Exchange& ex) { ex.json(kPong); });
    std::string url = "https://localhost:" + std::to_string(server.port()) + "/mcp";
    Transport t(http_config(url, "\"caFile\":" + json_string(cert_->cert_file)));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(kPing), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    EXPECT_EQ(t.recorder.messages().at(0), kPong);
    t.close();
}

TEST_F(HttpTlsTest, HostnameIsVerifiedToo) {
    FakeServer server(FakeServer::Tls{cert_->cert_file, cert_->key_file});
    server.on([](Exchange& ex) { ex.json(kPong); });
    // Trusted certificate, wrong name: it names "localhost", the URL says 127.0.0.1.
    Transport t(http_config(server.url(), "\"caFile\":" + json_string(cert_->cert_file)));
    ASSERT_EQ(t.start(), MCPH_OK);
    ASSERT_EQ(t.send(kPing), MCPH_OK);
    ASSERT_TRUE(t.recorder.wait_messages(1));
    EXPECT_NE(t.recorder.messages().at(0).find("\"error\""), std::string::npos);
    EXPECT_TRUE(server.requests().empty());
    t.close();
}

}  // namespace
}  // namespace http_test
