// The safe-fetch policy for auth discovery: https only except loopback; loopback, private,
// link-local, CGNAT, benchmarking and unspecified addresses (in every spelling, IPv6 forms that
// carry an IPv4 address included) only when the MCP server itself is local; multicast, broadcast
// and reserved never.
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

constexpr const char* kLocalServer = "http://127.0.0.1:3000/mcp";

const Case kCases[] = {
    // https anywhere public
    {"https://auth.example.com/.well-known/oauth-authorization-server", kPublicServer, nullptr},
    {"https://auth.example.com:8443/token?x=1", kPublicServer, nullptr},
    {"https://172.32.0.1/", kPublicServer, nullptr},  // just outside 172.16/12
    {"https://11.0.0.1/", kPublicServer, nullptr},
    {"https://100.128.0.1/", kPublicServer, nullptr},  // just outside 100.64/10
    {"https://[2606:4700::1111]/", kPublicServer, nullptr},
    {"https://127.0.0.1.nip.io/", kPublicServer, nullptr},  // a name: judged where it connects (http_client)
    // http only on loopback, and loopback only for a local server
    {"http://127.0.0.1:8080/cb", kLocalServer, nullptr},
    {"http://127.1.2.3/", kLocalServer, nullptr},
    {"http://localhost/.well-known/x", kLocalServer, nullptr},
    {"http://localhost:3000/", "http://localhost:3000/mcp", nullptr},
    {"http://[::1]:9000/", kLocalServer, nullptr},
    {"http://example.com/.well-known/x", kPublicServer, "https is required"},
    {"http://10.0.0.1/", "http://10.0.0.2/mcp", "https is required"},
    {"http://127.0.0.1.nip.io/", kPublicServer, "https is required"},  // a name, not a loopback address
    {"http://localhost.example.com/", kPublicServer, "https is required"},
    {"ftp://example.com/file", kPublicServer, ""},  // refused (any reason)
    {"ws://example.com/", kPublicServer, ""},
    // loopback is refused for a public server (a Docker API, Redis on 127.0.0.1) ...
    {"http://127.0.0.1:8080/cb", kPublicServer, "loopback address 127.0.0.1"},
    {"http://localhost:2375/containers/json", kPublicServer, "loopback address localhost"},
    {"http://localhost.:2375/", kPublicServer, "loopback address localhost"},
    {"http://api.localhost/", kPublicServer, "loopback address"},
    {"https://[::1]:6379/", kPublicServer, "loopback address ::1"},
    {"https://127.0.0.1.:6379/", kPublicServer, "loopback address 127.0.0.1"},  // trailing dot
    {"https://0x7f.1/", kPublicServer, "loopback address 127.0.0.1"},
    {"https://2130706433/", kPublicServer, "loopback address 127.0.0.1"},
    {"https://[::ffff:127.0.0.1]/", kPublicServer, "loopback address 127.0.0.1"},  // IPv4-mapped
    {"https://[::127.0.0.1]/", kPublicServer, "loopback address"},                 // IPv4-compatible
    {"https://[64:ff9b::7f00:1]/", kPublicServer, "loopback address"},             // NAT64
    {"https://[2002:7f00:1::]/", kPublicServer, "loopback address"},               // 6to4
    {"https://u:p@127.0.0.1/", kPublicServer, "loopback address 127.0.0.1"},
    // ... and so are the private ranges ...
    {"https://10.0.0.5/token", kPublicServer, "private address 10.0.0.5"},
    {"https://[::ffff:10.0.0.5]/token", kPublicServer, "private address 10.0.0.5"},
    {"https://[::ffff:a00:5]/token", kPublicServer, "private address 10.0.0.5"},
    {"https://[64:ff9b::a00:5]/token", kPublicServer, "private address"},
    {"https://[64:ff9b:1::1]/token", kPublicServer, "private address"},
    {"https://192.168.1.1/", kPublicServer, "private address"},
    {"https://172.16.0.1/", kPublicServer, "private address"},
    {"https://172.31.255.255/", kPublicServer, "private address"},
    {"https://100.64.0.1/", kPublicServer, "private address"},    // CGNAT
    {"https://100.127.255.254/", kPublicServer, "private address"},
    {"https://198.18.0.1/", kPublicServer, "private address"},    // benchmarking
    {"https://198.19.255.1/", kPublicServer, "private address"},
    {"https://169.254.169.254/latest/meta-data", kPublicServer, "private address"},  // cloud metadata
    {"https://169.254.169.254./latest/meta-data", kPublicServer, "private address"},
    {"https://[fd00::1]/", kPublicServer, "private address"},
    {"https://[fe80::1]/", kPublicServer, "private address"},
    {"https://[fe80::1%25eth0]/", kPublicServer, "private address"},
    {"https://0.0.0.0/", kPublicServer, "unspecified address"},  // reaches this machine on Linux
    {"https://[::]/", kPublicServer, "unspecified address"},
    {"https://10.0.0.5/", "not a url", "private address"},
    // ... and multicast, broadcast and reserved ranges always
    {"https://224.0.0.1/", kLocalServer, "multicast address"},
    {"https://[ff02::1]/", kLocalServer, "multicast address"},
    {"https://255.255.255.255/", kLocalServer, "broadcast address"},
    {"https://240.0.0.1/", kLocalServer, "reserved address"},
    {"https://192.0.2.1/", kPublicServer, "reserved address"},
    // allowed when the server is itself local
    {"https://10.0.0.5/token", "http://10.0.0.1:3000/mcp", nullptr},
    {"https://192.168.1.1/", "http://localhost:3000/mcp", nullptr},
    {"https://192.168.1.1/", "http://127.0.0.1/mcp", nullptr},
    {"https://172.20.0.1/", "https://192.168.0.10/mcp", nullptr},
    {"https://[fd00::1]/", "http://[fd00::2]/mcp", nullptr},
    {"https://10.0.0.5/", "http://mcp:8080/mcp", nullptr},                 // a single-label (compose) name
    {"https://10.0.0.5/", "https://mcp.corp.internal/mcp", nullptr},
    {"https://10.0.0.5/", "https://printer.local/mcp", nullptr},
    {"https://127.0.0.1/", "http://[::ffff:127.0.0.1]:3000/mcp", nullptr},
    // a server is local by its URL only: a public-looking name is not, whatever it resolves to
    {"https://10.0.0.5/", "https://mcp.example.com.evil.test/", "private address"},
    {"https://10.0.0.5/", "https://localhost.example.com/mcp", "private address"},
    // garbage
    {"not a url", kPublicServer, "not a valid absolute URL"},
    {"", kPublicServer, "not a valid absolute URL"},
    {"https://", kPublicServer, "not a valid absolute URL"},
    {"/relative/path", kPublicServer, "not a valid absolute URL"},
    {"https://evil.com\\@10.0.0.5/", kPublicServer, "not a valid absolute URL"},
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

TEST(CheckFetchUrl, ReasonRedactsSecrets) {
    const std::string reason = check_fetch_url("http://u:secret@evil.example/x?api_key=secret", "https://h/?k=secret");
    EXPECT_NE(reason, "");
    EXPECT_EQ(reason.find("secret"), std::string::npos) << reason;
    const std::string local = check_fetch_url("https://10.0.0.1/?k=secret", "https://u:secret@mcp.example.com/?k=secret");
    EXPECT_NE(local, "");
    EXPECT_EQ(local.find("secret"), std::string::npos) << local;
}

// The address the plugin connects to comes back as "scheme://<address>:<port>/" (http_client.cpp).
TEST(CheckFetchUrl, ConnectedAddressForms) {
    EXPECT_NE(check_fetch_url("https://127.0.0.1:443/", kPublicServer), "");
    EXPECT_NE(check_fetch_url("https://[::ffff:127.0.0.1]:443/", kPublicServer), "");
    EXPECT_NE(check_fetch_url("https://[::1]:443/", kPublicServer), "");
    EXPECT_EQ(check_fetch_url("https://93.184.216.34:443/", kPublicServer), "");
    EXPECT_EQ(check_fetch_url("https://[2606:2800:220:1::]:443/", kPublicServer), "");
    EXPECT_EQ(check_fetch_url("http://127.0.0.1:8080/", kLocalServer), "");
}

}  // namespace
