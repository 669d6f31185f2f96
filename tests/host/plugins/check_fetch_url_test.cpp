// The safe-fetch policy for auth discovery: https only except loopback; private and link-local
// addresses only when the MCP server itself is local.
#include "plugins/host_services.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using mcph::plugins::check_fetch_url;

constexpr const char* kPublicServer = "https://mcp.example.com/mcp";

struct Case {
    const char* url;
    const char* server_url;
    const char* refusal;  // nullptr: allowed; else a substring of the reason ("" = any reason)
};

const Case kCases[] = {
    // https anywhere public
    {"https://auth.example.com/.well-known/oauth-authorization-server", kPublicServer, nullptr},
    {"https://auth.example.com:8443/token?x=1", kPublicServer, nullptr},
    {"https://172.32.0.1/", kPublicServer, nullptr},  // just outside 172.16/12
    {"https://11.0.0.1/", kPublicServer, nullptr},
    // http only on loopback
    {"http://127.0.0.1:8080/cb", kPublicServer, nullptr},
    {"http://127.1.2.3/", kPublicServer, nullptr},
    {"http://localhost/.well-known/x", kPublicServer, nullptr},
    {"http://localhost:3000/", "http://localhost:3000/mcp", nullptr},
    {"http://[::1]:9000/", kPublicServer, nullptr},
    {"http://example.com/.well-known/x", kPublicServer, "https is required"},
    {"http://10.0.0.1/", "http://10.0.0.2/mcp", "https is required"},
    {"http://127.0.0.1.nip.io/", kPublicServer, "https is required"},  // a name, not a loopback address
    {"http://localhost.example.com/", kPublicServer, "https is required"},
    {"ftp://example.com/file", kPublicServer, ""},  // refused (any reason)
    {"ws://example.com/", kPublicServer, ""},
    // private ranges: refused for a public server ...
    {"https://10.0.0.5/token", kPublicServer, "private address 10.0.0.5"},
    {"https://192.168.1.1/", kPublicServer, "private address"},
    {"https://172.16.0.1/", kPublicServer, "private address"},
    {"https://172.31.255.255/", kPublicServer, "private address"},
    {"https://169.254.169.254/latest/meta-data", kPublicServer, "private address"},  // cloud metadata
    {"https://0.0.0.0/", kPublicServer, "private address"},
    {"https://[fd00::1]/", kPublicServer, "private address"},
    {"https://[fe80::1]/", kPublicServer, "private address"},
    {"https://10.0.0.5/", "not a url", "private address"},
    // ... allowed when the server is itself local
    {"https://10.0.0.5/token", "http://10.0.0.1:3000/mcp", nullptr},
    {"https://192.168.1.1/", "http://localhost:3000/mcp", nullptr},
    {"https://192.168.1.1/", "http://127.0.0.1/mcp", nullptr},
    {"https://172.20.0.1/", "https://192.168.0.10/mcp", nullptr},
    {"https://[fd00::1]/", "http://[fd00::2]/mcp", nullptr},
    // garbage
    {"not a url", kPublicServer, "not a valid absolute URL"},
    {"", kPublicServer, "not a valid absolute URL"},
    {"https://", kPublicServer, "not a valid absolute URL"},
    {"/relative/path", kPublicServer, "not a valid absolute URL"},
};

TEST(CheckFetchUrl, Table) {
    for (const Case& c : kCases) {
        SCOPED_TRACE(std::string(c.url) + " for " + c.server_url);
        const std::string reason = check_fetch_url(c.url, c.server_url);
        if (!c.refusal) {
            EXPECT_EQ(reason, "");
        } else {
            EXPECT_NE(reason, "") << "allowed but should be refused";
            EXPECT_NE(reason.find(c.refusal), std::string::npos) << reason;
        }
    }
}

TEST(CheckFetchUrl, FileUrlsAreRefused) {
    EXPECT_NE(check_fetch_url("file:///etc/passwd", kPublicServer), "");
    EXPECT_NE(check_fetch_url("file:///etc/passwd", "http://localhost/mcp"), "");
}

TEST(CheckFetchUrl, ReasonNamesTheUrl) {
    const std::string reason = check_fetch_url("http://evil.example/x", kPublicServer);
    EXPECT_NE(reason.find("http://evil.example/x"), std::string::npos) << reason;
}

}  // namespace
