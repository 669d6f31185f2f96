// Issue #12, small holes of `mcph login`, with the real CLI and the real auth-oauth plugin:
//  - policy and approval are checked before any network or browser step: a denied or unapproved
//    server gets no discovery, no registration, no browser and no stored tokens;
//  - the loopback callback listener is close-on-exec and the browser is spawned with only 0/1/2,
//    so a browser that leaves a background process behind does not keep a fixed callbackPort
//    bound (the next login could not listen) nor any other descriptor of ours.
#include "loopback_listener.hpp"
#include "trust_support.hpp"

#include <mcph/bounded_json.hpp>

#include <gtest/gtest.h>

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace mcph::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string read_text(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// A "browser" that records every URL it is asked to open and does nothing else.
fs::path recording_browser(const fs::path& dir, const fs::path& record) {
    const fs::path script = dir / "record-browser.sh";
    write_file(script, "#!/bin/sh\necho \"$1\" >> '" + record.string() + "'\n");
    fs::permissions(script, fs::perms::owner_all);
    return script;
}

// An HTTP server config with OAuth, pointed at `url`.
std::string oauth_server(const std::string& url, const std::string& extra_oauth = "") {
    return R"({"type":"http","url":")" + url + R"(","oauth":{"clientId":"mcph-test","httpTimeoutMs":3000)" + extra_oauth +
           "}}";
}

TEST(AuthLoginGate, UnapprovedProjectServerGetsNoNetworkNoBrowserNoTokens) {
    TrustTree t;
    Listener as;  // the server and its authorization server: any connection would be a discovery
    const fs::path record = t.dir / "opened.txt";
    const fs::path browser = recording_browser(t.dir.path(), record);
    write_file(t.repo / ".mcp.json", R"({"mcpServers":{"remote":)" + oauth_server(as.url()) + "}}");

    const CliResult r = t.mcph({"login", "remote"}, {}, {{"BROWSER", browser.string()}});
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_TRUE(contains(r.err, "cannot sign in")) << r.describe();
    EXPECT_TRUE(contains(r.err, "mcph approve remote")) << r.describe();
    // The CLI has exited: whatever it would have sent is already waiting in the backlog.
    EXPECT_FALSE(as.connected()) << "an unapproved server was contacted\n" << r.describe();
    EXPECT_FALSE(fs::exists(record)) << "a browser was opened: " << read_text(record);
    EXPECT_FALSE(contains(r.out, "logged in")) << r.describe();
}

TEST(AuthLoginGate, DeniedServerGetsNoNetworkNoBrowser) {
    TrustTree t;
    Listener as;
    const fs::path record = t.dir / "opened.txt";
    const fs::path browser = recording_browser(t.dir.path(), record);
    write_file(t.config_home / "settings.json", R"({"mcpServers":{"remote":)" + oauth_server(as.url()) +
                                                    R"(},"deniedMcpServers":[{"serverName":"remote"}]})");

    const CliResult r = t.mcph({"login", "remote"}, {}, {{"BROWSER", browser.string()}});
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_TRUE(contains(r.err, "cannot sign in")) << r.describe();
    EXPECT_FALSE(as.connected()) << "a denied server was contacted\n" << r.describe();
    EXPECT_FALSE(fs::exists(record)) << "a browser was opened: " << read_text(record);
}

// ---- a scripted resource + authorization server for a complete sign-in ---------------------------

// One origin: the MCP endpoint (401 with resource metadata unless a token is sent; with one, a
// minimal legacy-era MCP server), its PRM, the AS metadata (S256, RFC 9207 iss), /authorize
// (redirects straight back with a code: the "user" consents at once) and /token.
class ScriptedAuthServer {
public:
    // `require_auth` false: the MCP endpoint answers without a token (the capability tests).
    explicit ScriptedAuthServer(bool require_auth = true) : require_auth_(require_auth) {}
    std::string origin() const { return "http://127.0.0.1:" + std::to_string(server_.port()); }
    std::string mcp_url() const { return origin() + "/mcp"; }
    std::atomic<int> authorizations{0}, tokens{0};
    std::vector<std::string> mcp_bodies() {  // every POST body to /mcp, in order
        std::lock_guard<std::mutex> g(mutex_);
        return bodies_;
    }

private:
    static void respond(int fd, int status, const std::string& headers, const std::string& body) {
        (void)send_all(fd, "HTTP/1.1 " + std::to_string(status) + " X\r\nConnection: close\r\nContent-Length: " +
                               std::to_string(body.size()) + "\r\n" + headers + "\r\n" + body);
    }

    static std::string query_value(const std::string& target, const std::string& key) {
        size_t q = target.find('?');
        if (q == std::string::npos) return {};
        std::string rest = target.substr(q + 1);
        std::stringstream ss(rest);
        std::string pair;
        while (std::getline(ss, pair, '&'))
            if (pair.rfind(key + "=", 0) == 0) return pair.substr(key.size() + 1);  // kept encoded
        return {};
    }

    static std::string decode(const std::string& s) {
        std::string out;
        for (size_t i = 0; i < s.size(); ++i) {
            if (s[i] == '%' && i + 2 < s.size()) {
                out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
                i += 2;
            } else {
                out += s[i] == '+' ? ' ' : s[i];
            }
        }
        return out;
    }

    // The text of a JSON member's value, scalar or string, without parsing (the host's own requests).
    static std::string member_text(const std::string& body, const std::string& key) {
        size_t k = body.find("\"" + key + "\":");
        if (k == std::string::npos) return {};
        size_t v = k + key.size() + 3;
        size_t end = body[v] == '"' ? body.find('"', v + 1) + 1 : body.find_first_of(",}", v);
        return body.substr(v, end - v);
    }

    // Just enough MCP (legacy era, no sessions) for the login's reconnect to succeed.
    static void answer_mcp(int fd, const std::string& method, const std::string& body) {
        const std::string json = "Content-Type: application/json\r\n";
        if (method != "POST") return respond(fd, 405, "", "");
        const std::string id = member_text(body, "id");
        const std::string rpc = member_text(body, "method");
        if (id.empty()) return respond(fd, 202, "", "");  // a notification
        if (rpc == "\"initialize\"") {
            std::string version = member_text(body, "protocolVersion");
            if (version.empty() || version.rfind("\"2025", 0) != 0) version = "\"2025-06-18\"";
            return respond(fd, 200, json,
                           R"({"jsonrpc":"2.0","id":)" + id + R"(,"result":{"protocolVersion":)" + version +
                               R"(,"capabilities":{"tools":{}},"serverInfo":{"name":"scripted","version":"1"}}})");
        }
        if (rpc == "\"tools/list\"")
            return respond(fd, 200, json, R"({"jsonrpc":"2.0","id":)" + id + R"(,"result":{"tools":[]}})");
        respond(fd, 200, json, R"({"jsonrpc":"2.0","id":)" + id + R"(,"error":{"code":-32601,"message":"no such method"}})");
    }

    void serve(int fd, const HttpRequest& request) {
        const std::string& method = request.method;
        const std::string& target = request.target;
        const std::string path = target.substr(0, target.find('?'));
        const std::string json = "Content-Type: application/json\r\n";
        const std::string o = origin();
        if (path == "/mcp") {
            {
                std::lock_guard<std::mutex> g(mutex_);
                bodies_.push_back(request.body);
            }
            if (require_auth_ && !request.has_header("authorization"))
                respond(fd, 401, "WWW-Authenticate: Bearer resource_metadata=\"" + o + "/.well-known/oauth-protected-resource/mcp\"\r\n", "");
            else
                answer_mcp(fd, method, request.body);
        } else if (path == "/.well-known/oauth-protected-resource/mcp" || path == "/.well-known/oauth-protected-resource") {
            respond(fd, 200, json, R"({"resource":")" + o + R"(/mcp","authorization_servers":[")" + o + "\"]}");
        } else if (path == "/.well-known/oauth-authorization-server" || path == "/.well-known/openid-configuration") {
            respond(fd, 200, json,
                    R"({"issuer":")" + o + R"(","authorization_endpoint":")" + o + R"(/authorize","token_endpoint":")" + o +
                        R"(/token","response_types_supported":["code"],"grant_types_supported":["authorization_code"],)"
                        R"("code_challenge_methods_supported":["S256"],"token_endpoint_auth_methods_supported":["none"],)"
                        R"("authorization_response_iss_parameter_supported":true})");
        } else if (path == "/authorize" && method == "GET") {
            ++authorizations;
            const std::string redirect = decode(query_value(target, "redirect_uri"));
            std::string iss;
            for (char c : o) iss += c == ':' ? "%3A" : c == '/' ? "%2F" : std::string(1, c);
            respond(fd, 302,
                    "Location: " + redirect + "?code=code-" + std::to_string(authorizations.load()) +
                        "&state=" + query_value(target, "state") + "&iss=" + iss + "\r\n",
                    "");
        } else if (path == "/token" && method == "POST") {
            ++tokens;
            respond(fd, 200, json, R"({"access_token":"at-)" + std::to_string(tokens.load()) +
                                       R"(","token_type":"Bearer","expires_in":3600})");
        } else {
            respond(fd, 404, json, R"({"error":"not_found"})");
        }
    }

    const bool require_auth_;
    std::mutex mutex_;
    std::vector<std::string> bodies_;
    // One request per connection (every response says Connection: close).
    ThreadedHttpServer server_{ThreadedHttpServer::Connections::OneRequest,
                               [this](int fd, const HttpRequest& request) { serve(fd, request); }};  // last
};

// A port free right now (bound to 0, closed): the fixed callbackPort of the test.
int free_port() {
    int port = 0;
    int fd = listen_on_loopback(port, 1);
    if (fd >= 0) ::close(fd);
    return port;
}

std::vector<pid_t> read_pids(const fs::path& file) {
    std::vector<pid_t> out;
    std::ifstream in(file);
    long pid = 0;
    while (in >> pid)
        if (pid > 0) out.push_back(static_cast<pid_t>(pid));
    return out;
}

// The descriptors of `pid` other than 0, 1 and 2, as "<fd> -> <target>".
std::vector<std::string> extra_descriptors(pid_t pid) {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
        const std::string fd = e.path().filename().string();
        if (fd == "0" || fd == "1" || fd == "2") continue;
        out.push_back(fd + " -> " + fs::read_symlink(e.path(), ec).string());
    }
    return out;
}

TEST(AuthLoginBrowser, FixedCallbackPortSurvivesABrowserThatLeavesAChildBehind) {
    if (!fs::exists("/usr/bin/curl")) GTEST_SKIP() << "the browser stub needs /usr/bin/curl";
    TrustTree t;
    ScriptedAuthServer as;
    const int port = free_port();
    ASSERT_GT(port, 0);
    const fs::path pids = t.dir / "children.txt";
    // Like xdg-open handing the URL to a browser that keeps running: a background process that
    // outlives the login (its stdio detached, so it holds nothing of ours unless it inherited it),
    // then the "user" follows the sign-in page, which redirects to the loopback callback.
    const fs::path browser = t.dir / "browser.sh";
    write_file(browser, "#!/bin/sh\nsleep 30 </dev/null >/dev/null 2>&1 &\necho $! >> '" + pids.string() +
                            "'\nexec /usr/bin/curl -s -o /dev/null -L --max-time 10 \"$1\"\n");
    fs::permissions(browser, fs::perms::owner_all);
    write_file(t.config_home / "settings.json",
               R"({"mcpServers":{"remote":)" +
                   oauth_server(as.mcp_url(), R"(,"callbackPort":)" + std::to_string(port) + R"(,"authTimeoutMs":10000)") +
                   "}}");
    const std::map<std::string, std::string> env{{"BROWSER", browser.string()}};

    const CliResult first = t.mcph({"login", "remote"}, {}, env);
    EXPECT_EQ(first.exit_code, 0) << first.describe();
    EXPECT_TRUE(contains(first.out, "logged in")) << first.describe();
    const std::vector<pid_t> children = read_pids(pids);
    ASSERT_FALSE(children.empty()) << "the browser stub never ran\n" << first.describe();
    for (pid_t child : children) {
        EXPECT_EQ(extra_descriptors(child), std::vector<std::string>{})
            << "the browser's child inherited descriptors of mcph (pid " << child << ")";
    }

    // The child is still alive; the same fixed port must be free for the next sign-in.
    const CliResult second = t.mcph({"login", "remote"}, {}, env);
    EXPECT_EQ(second.exit_code, 0) << second.describe();
    EXPECT_FALSE(contains(second.err, "cannot listen")) << second.describe();
    EXPECT_GE(as.tokens.load(), 2) << first.describe() << "\n" << second.describe();

    for (pid_t child : read_pids(pids)) ::kill(child, SIGKILL);  // our own stubs' children, by pid
}

// ---- the enterprise-managed-authorization extension capability ---------------------------------

constexpr const char* kEnterpriseAuth = "io.modelcontextprotocol/enterprise-managed-authorization";

// The client capabilities' "extensions" of one request body: the initialize request's
// params.capabilities (legacy era) or params._meta["io.modelcontextprotocol/clientCapabilities"]
// (2026 era); null when the body declares none.
const JsonValue* declared_extensions(const Json& body, bool legacy) {
    const JsonValue* params = member_at(body, "params");
    if (!params) return nullptr;
    const JsonValue* caps = nullptr;
    if (legacy) {
        caps = member_at(*params, "capabilities");
    } else if (const JsonValue* meta = member_at(*params, "_meta")) {
        caps = member_at(*meta, "io.modelcontextprotocol/clientCapabilities");
    }
    return caps ? member_at(*caps, "extensions") : nullptr;
}

struct Declarations {
    int legacy = 0, modern = 0;           // requests of each era seen
    int legacy_with = 0, modern_with = 0;  // ... that declare the extension
};

Declarations declarations(const std::vector<std::string>& bodies) {
    Declarations d;
    for (const std::string& text : bodies) {
        Json body;
        if (!json_bounds::parse(body, text) || !body.IsObject() || !member_at(body, "id")) continue;  // requests only
        const bool legacy = string_at(body, "method") == "initialize";
        const JsonValue* ext = declared_extensions(body, legacy);
        const JsonValue* params = member_at(body, "params");
        const bool modern = !legacy && params && member_at(*params, "_meta") &&
                            member_at(*member_at(*params, "_meta"), "io.modelcontextprotocol/clientCapabilities");
        if (legacy) ++d.legacy;
        if (modern) ++d.modern;
        const bool with = ext && ext->IsObject() && ext->HasMember(kEnterpriseAuth);
        if (legacy && with) ++d.legacy_with;
        if (modern && with) ++d.modern_with;
    }
    return d;
}

std::string joined(const std::vector<std::string>& bodies) {
    std::string out;
    for (const auto& b : bodies) out += b + "\n";
    return out;
}

TEST(AuthCapability, XaaServersDeclareEnterpriseManagedAuthorizationInBothEras) {
    TrustTree t;
    ScriptedAuthServer xaa(false), plain(false);  // answer without a token: the handshake is what is looked at
    write_file(t.config_home / "settings.json",
               R"({"xaaIdp":{"issuer":"https://idp.example","clientId":"idp-client"},"mcpServers":{)"
               R"("enterprise":{"type":"http","url":")" + xaa.mcp_url() + R"(","oauth":{"xaa":true,"clientId":"c"}},)"
               R"("ordinary":)" + oauth_server(plain.mcp_url()) + "}}");
    const CliResult r = t.mcph({"status", "--json"});
    ASSERT_NE(r.exit_code, -1) << r.describe();

    const Declarations e = declarations(xaa.mcp_bodies());
    // The 2026 era is tried first (server/discover with per-request capabilities), then the legacy
    // initialize this server speaks: both eras' declarations are on the wire.
    ASSERT_GT(e.modern, 0) << joined(xaa.mcp_bodies()) << r.describe();
    ASSERT_GT(e.legacy, 0) << joined(xaa.mcp_bodies()) << r.describe();
    EXPECT_EQ(e.modern_with, e.modern) << joined(xaa.mcp_bodies());
    EXPECT_EQ(e.legacy_with, e.legacy) << joined(xaa.mcp_bodies());

    const Declarations o = declarations(plain.mcp_bodies());
    ASSERT_GT(o.legacy + o.modern, 0) << joined(plain.mcp_bodies()) << r.describe();
    EXPECT_EQ(o.legacy_with + o.modern_with, 0) << "declared for a server not configured for XAA\n" << joined(plain.mcp_bodies());
}

// ---- approvals cover the document-level xaaIdp -----------------------------------------------------

// A hostile repository keeps the server entry the user approved word for word and points the
// shared enterprise IdP elsewhere: the effective definition changed, so the approval must go.
TEST(AuthApproval, ChangingTheDocumentsXaaIdpRevokesTheApproval) {
    TrustTree t;
    ScriptedAuthServer server(false);
    auto write_project = [&](const std::string& token_endpoint) {
        write_file(t.repo / ".mcp.json",
                   R"({"xaaIdp":{"issuer":"https://idp.example","clientId":"idp-client","tokenEndpoint":")" +
                       token_endpoint + R"("},"mcpServers":{"enterprise":{"type":"http","url":")" + server.mcp_url() +
                       R"(","oauth":{"xaa":true,"clientId":"c"}}}})");
    };
    write_project("https://idp.example/token");
    const CliResult approve = t.mcph({"approve", "enterprise"});
    ASSERT_EQ(approve.exit_code, 0) << approve.describe();

    Json doc = t.status();
    ASSERT_TRUE(find_named(member_at(doc, "servers"), "enterprise")) << "control: the approval holds\n" << t.last;
    EXPECT_FALSE(find_named(member_at(doc, "unapproved"), "enterprise")) << t.last;

    write_project("https://attacker.example/token");  // the entry itself is unchanged
    const std::size_t before = server.mcp_bodies().size();
    doc = t.status();
    const JsonValue* u = find_named(member_at(doc, "unapproved"), "enterprise");
    ASSERT_TRUE(u) << "a changed xaaIdp kept the approval\n" << t.last;
    EXPECT_TRUE(contains(string_at(*u, "reason"), "changed since you approved")) << t.last;
    EXPECT_FALSE(find_named(member_at(doc, "servers"), "enterprise")) << t.last;
    EXPECT_EQ(server.mcp_bodies().size(), before) << "the server was contacted after its IdP changed";
}

}  // namespace
}  // namespace mcph::test
