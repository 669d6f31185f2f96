// The mcph_host_services table as a plugin sees it: logging, secrets, open_url, post, safe fetch.
#include "plugins/host_services.hpp"

#include <mcph/plugin_helper.hpp>

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace {

using mcph::plugin::make_error;
using mcph::plugin::str;

struct Fixture {
    std::vector<std::string> logs;
    std::vector<std::string> opened;
    std::vector<std::function<void()>> posted;
    bool open_result = true;
    std::shared_ptr<mcph::plugins::MemorySecretStore> secrets = std::make_shared<mcph::plugins::MemorySecretStore>();
    std::unique_ptr<mcph::plugins::HostServices> services;

    explicit Fixture(bool with_everything = true) {
        mcph::plugins::HostServiceBindings b;
        if (with_everything) {
            b.log = [this](mcph::LogLevel level, std::string_view source, std::string_view message) {
                logs.push_back(std::to_string(static_cast<int>(level)) + "|" + std::string(source) + "|" +
                               std::string(message));
            };
            b.open_url = [this](const std::string& url) {
                opened.push_back(url);
                return open_result;
            };
            b.post = [this](std::function<void()> fn) { posted.push_back(std::move(fn)); };
            b.secrets = secrets;
        }
        services = std::make_unique<mcph::plugins::HostServices>(std::move(b));
    }
    const mcph_host_services* t() const { return services->table(); }
};

TEST(HostServices, TableHeaderIsFilled) {
    Fixture f;
    EXPECT_EQ(f.t()->struct_size, sizeof(mcph_host_services));
    EXPECT_EQ(f.t()->abi_major, MCPH_ABI_MAJOR);
    EXPECT_EQ(f.t()->abi_minor, MCPH_ABI_MINOR);
    EXPECT_NE(f.t()->log, nullptr);
    EXPECT_NE(f.t()->secret_get, nullptr);
    EXPECT_NE(f.t()->check_fetch_url, nullptr);
}

TEST(HostServices, LogForwardsLevelSourceAndMessage) {
    Fixture f;
    f.t()->log(f.t()->host_data, MCPH_LOG_WARN, str("transport-x"), str("retrying"));
    ASSERT_EQ(f.logs.size(), 1u);
    EXPECT_EQ(f.logs[0], "2|transport-x|retrying");
}

TEST(HostServices, SecretsRoundTrip) {
    Fixture f;
    const auto* t = f.t();
    mcph_error err = make_error();
    std::string value;
    mcph_string_sink sink{sizeof(mcph_string_sink), &value,
                          [](void* ud, mcph_str v) { *static_cast<std::string*>(ud) = std::string(mcph::plugin::view(v)); }};
    EXPECT_EQ(t->secret_get(t->host_data, str("srv/token"), &sink, &err), MCPH_ERR_NOT_FOUND);
    EXPECT_EQ(t->secret_set(t->host_data, str("srv/token"), str("s3cr3t"), &err), MCPH_OK);
    EXPECT_EQ(t->secret_get(t->host_data, str("srv/token"), &sink, &err), MCPH_OK);
    EXPECT_EQ(value, "s3cr3t");
    EXPECT_EQ(t->secret_delete(t->host_data, str("srv/token"), &err), MCPH_OK);
    err = make_error();
    EXPECT_EQ(t->secret_get(t->host_data, str("srv/token"), &sink, &err), MCPH_ERR_NOT_FOUND);
    EXPECT_STREQ(err.message, "no such secret");
}

TEST(HostServices, OpenUrlAsksTheApplication) {
    Fixture f;
    mcph_error err = make_error();
    EXPECT_EQ(f.t()->open_url(f.t()->host_data, str("https://login.example.com/authorize"), &err), MCPH_OK);
    ASSERT_EQ(f.opened.size(), 1u);
    EXPECT_EQ(f.opened[0], "https://login.example.com/authorize");
    f.open_result = false;
    EXPECT_EQ(f.t()->open_url(f.t()->host_data, str("https://x"), &err), MCPH_ERR_CANCELLED);
    EXPECT_NE(std::string(err.message).find("declined"), std::string::npos);
}

TEST(HostServices, PostRunsLater) {
    Fixture f;
    int hits = 0;
    f.t()->post(f.t()->host_data, [](void* ud) { ++*static_cast<int*>(ud); }, &hits);
    EXPECT_EQ(hits, 0);
    ASSERT_EQ(f.posted.size(), 1u);
    f.posted[0]();
    EXPECT_EQ(hits, 1);
    f.t()->post(f.t()->host_data, nullptr, &hits);  // a null function is ignored
    EXPECT_EQ(f.posted.size(), 1u);
}

TEST(HostServices, UnboundServicesRefuseCleanly) {
    Fixture f(/*with_everything=*/false);
    const auto* t = f.t();
    mcph_error err = make_error();
    std::string value;
    mcph_string_sink sink{sizeof(mcph_string_sink), &value, [](void*, mcph_str) {}};
    EXPECT_EQ(t->secret_get(t->host_data, str("k"), &sink, &err), MCPH_ERR_UNSUPPORTED);
    EXPECT_EQ(t->secret_set(t->host_data, str("k"), str("v"), &err), MCPH_ERR_UNSUPPORTED);
    EXPECT_EQ(t->secret_delete(t->host_data, str("k"), &err), MCPH_ERR_UNSUPPORTED);
    err = make_error();
    EXPECT_EQ(t->open_url(t->host_data, str("https://x"), &err), MCPH_ERR_CANCELLED);
    EXPECT_NE(std::string(err.message).find("no open_url handler"), std::string::npos);
    EXPECT_NO_THROW(t->log(t->host_data, MCPH_LOG_ERROR, str("s"), str("m")));
    int hits = 0;
    t->post(t->host_data, [](void* ud) { ++*static_cast<int*>(ud); }, &hits);
    EXPECT_EQ(hits, 0);
}

TEST(HostServices, CheckFetchUrlThroughTheTable) {
    Fixture f;
    const auto* t = f.t();
    mcph_error err = make_error();
    EXPECT_EQ(t->check_fetch_url(t->host_data, str("https://auth.example.com/x"), str("https://mcp.example.com"), &err),
              MCPH_OK);
    EXPECT_EQ(t->check_fetch_url(t->host_data, str("http://auth.example.com/x"), str("https://mcp.example.com"), &err),
              MCPH_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.message).find("https is required"), std::string::npos) << err.message;
    EXPECT_EQ(t->check_fetch_url(t->host_data, str("https://10.1.1.1/"), str("https://mcp.example.com"), nullptr),
              MCPH_ERR_INVALID_ARGUMENT);
}

}  // namespace
