// Issue #12, the issuer mix-up attack: a loopback "authorization server" — a raw-socket HTTP
// server written here — whose metadata claims `"issuer":"https://accounts.google.com"`. Driven
// through the real auth-oauth plugin with the host's real services table (the same one libmcph
// hands every plugin), as a local MCP server's 401 would drive it. The document must be refused
// as a whole: the attacker's /register, /authorize and /token are never requested, nothing is
// stored in the secret store, no browser is opened, and the claimed issuer appears in no error or
// log line. The control (the same server telling the truth about its issuer) shows the test can
// fail: then discovery goes on to registration.
#include "loopback_listener.hpp"
#include "plugins/host_services.hpp"

#include <mcph/plugin_helper.hpp>

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>
#include "contains.hpp"

namespace mcph::test {
namespace {

using mcph::plugin::str;

// A one-request-per-connection HTTP server on 127.0.0.1 that serves PRM and AS metadata and
// records every path asked for.
class HostileAs {
public:
    explicit HostileAs(std::string claimed_issuer) : claimed_(std::move(claimed_issuer)) {
        EXPECT_GT(server_.port(), 0) << "cannot listen on 127.0.0.1";
    }
    std::string origin() const { return "http://127.0.0.1:" + std::to_string(server_.port()); }
    std::vector<std::string> paths() {
        std::lock_guard<std::mutex> g(mutex_);
        return paths_;
    }
    bool asked_for(const std::string& path) {
        for (const auto& p : paths())
            if (p.rfind(path, 0) == 0) return true;
        return false;
    }

private:
    void answer(int c, const HttpRequest& request) {
        const std::string& path = request.target;
        {
            std::lock_guard<std::mutex> g(mutex_);
            paths_.push_back(path);
        }
        std::string body = "{\"error\":\"not_found\"}";
        int status = 404;
        if (path == "/.well-known/oauth-protected-resource/mcp") {
            status = 200;
            body = "{\"resource\":\"" + origin() + "/mcp\",\"authorization_servers\":[\"" + origin() + "\"]}";
        } else if (path == "/.well-known/oauth-authorization-server") {
            status = 200;
            body = "{\"issuer\":\"" + (claimed_.empty() ? origin() : claimed_) + "\",\"authorization_endpoint\":\"" + origin() +
                   "/authorize\",\"token_endpoint\":\"" + origin() + "/token\",\"registration_endpoint\":\"" + origin() +
                   "/register\",\"code_challenge_methods_supported\":[\"S256\"],"
                   "\"token_endpoint_auth_methods_supported\":[\"none\"]}";
        } else if (path == "/register") {
            status = 201;
            body = "{\"client_id\":\"attacker-client\",\"token_endpoint_auth_method\":\"none\"}";
        }
        std::string response = "HTTP/1.1 " + std::to_string(status) + (status == 404 ? " Not Found" : " OK") +
                               "\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " +
                               std::to_string(body.size()) + "\r\n\r\n" + body;
        (void)send_all(c, response);
    }

    std::string claimed_;
    std::mutex mutex_;
    std::vector<std::string> paths_;
    ThreadedHttpServer server_{ThreadedHttpServer::Connections::OneRequest,
                               [this](int fd, const HttpRequest& request) { answer(fd, request); }};  // last
};

// The host's secret store, remembering what was written.
class RecordingSecrets : public plugins::MemorySecretStore {
public:
    void set(const std::string& key, const std::string& value) override {
        {
            std::lock_guard<std::mutex> g(mutex_);
            written_.push_back(value);
        }
        plugins::MemorySecretStore::set(key, value);
    }
    std::vector<std::string> written() {
        std::lock_guard<std::mutex> g(mutex_);
        return written_;
    }
    void clear() {
        std::lock_guard<std::mutex> g(mutex_);
        written_.clear();
    }

private:
    std::mutex mutex_;
    std::vector<std::string> written_;
};

struct Outcome {
    mcph_status status = MCPH_OK;
    std::string message;
    std::vector<std::string> logs;
    std::vector<std::string> secrets_written;
    int browser_opened = 0;
};

Outcome failed(const std::string& why) {
    Outcome o;
    o.status = MCPH_ERR_INTERNAL;
    o.message = why;
    return o;
}

// What the host saw of one attack. One services table for the whole process, as libmcph has
// (the plugin keeps the table it was initialised with; it must outlive every later test).
struct Recorder {
    std::mutex mutex;
    std::vector<std::string> logs;
    std::atomic<int> opened{0};
    std::shared_ptr<RecordingSecrets> secrets = std::make_shared<RecordingSecrets>();
};

Recorder& recorder() {
    static Recorder r;
    return r;
}

plugins::HostServices& services() {
    static plugins::HostServices s(plugins::HostServiceBindings{
        [](mcph::LogLevel, std::string_view source, std::string_view message) {
            std::lock_guard<std::mutex> g(recorder().mutex);
            recorder().logs.push_back(std::string(source) + ": " + std::string(message));
        },
        [](const std::string&) {
            ++recorder().opened;
            return false;  // the user does not come back
        },
        [](std::function<void()> fn) { fn(); }, recorder().secrets,
        /*secret_lock_folder=*/{}});
    return s;
}

const mcph_auth_vtable_v1* oauth_plugin() {
    static const mcph_auth_vtable_v1* vt = []() -> const mcph_auth_vtable_v1* {
        const std::string path = std::string(MCPH_TEST_PLUGIN_DIR) + "/libmcph_auth_oauth.so";
        void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!lib) return nullptr;
        auto entry = reinterpret_cast<mcph_plugin_entry_fn>(dlsym(lib, MCPH_ENTRY_SYMBOL));
        if (!entry) return nullptr;
        const mcph_plugin* p = entry();
        mcph_error err = mcph::plugin::make_error();
        if (p->init && p->init(services().table(), &err) != MCPH_OK) return nullptr;
        return static_cast<const mcph_auth_vtable_v1*>(p->get_interface(MCPH_AUTH_INTERFACE_V1));
    }();
    return vt;
}

// One local MCP server at the hostile origin answering 401: the plugin's whole reaction.
Outcome attack(HostileAs& as) {
    const mcph_auth_vtable_v1* vt = oauth_plugin();
    if (!vt) return failed("the auth-oauth plugin did not load");
    Recorder& rec = recorder();
    {
        std::lock_guard<std::mutex> g(rec.mutex);
        rec.logs.clear();
    }
    rec.opened = 0;
    rec.secrets->clear();
    mcph_auth* auth = nullptr;
    mcph_error err = mcph::plugin::make_error();
    const std::string server = as.origin() + "/mcp";
    if (vt->create(services().table(), str("victim"), str(server),
                   str(R"({"httpTimeoutMs":3000,"authTimeoutMs":3000})"), &auth, &err) != MCPH_OK)
        return failed(std::string("create failed: ") + err.message);
    const std::string header = "Bearer resource_metadata=\"" + as.origin() + "/.well-known/oauth-protected-resource/mcp\"";
    Outcome out;
    out.status = vt->handle_challenge(auth, 401, str(header), &err);
    out.message = err.message;
    vt->destroy(auth);
    {
        std::lock_guard<std::mutex> g(rec.mutex);
        out.logs = rec.logs;
    }
    out.secrets_written = rec.secrets->written();
    out.browser_opened = rec.opened.load();
    return out;
}


TEST(AuthIssuerAttack, MetadataClaimingGoogleIsRefusedAsAWhole) {
    HostileAs as("https://accounts.google.com");
    const Outcome r = attack(as);
    ASSERT_TRUE(as.asked_for("/.well-known/oauth-authorization-server")) << "the metadata was never fetched";
    EXPECT_NE(r.status, MCPH_OK);
    EXPECT_TRUE(contains(r.message, "RFC 8414")) << r.message;
    for (const char* endpoint : {"/register", "/authorize", "/token"})
        EXPECT_FALSE(as.asked_for(endpoint)) << endpoint << " of the poisoned metadata was used";
    EXPECT_TRUE(r.secrets_written.empty()) << "stored: " << r.secrets_written.front();
    EXPECT_EQ(r.browser_opened, 0);
    EXPECT_FALSE(contains(r.message, "accounts.google.com")) << r.message;
    for (const auto& line : r.logs) EXPECT_FALSE(contains(line, "accounts.google.com")) << line;
}

// Control: the same server naming its own origin as issuer is used — it gets the registration
// (the flow then stops at the browser, which this host declines to open).
TEST(AuthIssuerAttack, ControlTruthfulIssuerIsUsed) {
    HostileAs as("");  // "": the metadata names this server's own origin
    const Outcome r = attack(as);
    EXPECT_NE(r.status, MCPH_OK);  // no browser
    EXPECT_TRUE(as.asked_for("/register")) << "the truthful metadata was not used: the attack test proves nothing";
    EXPECT_EQ(r.browser_opened, 1);
}

}  // namespace
}  // namespace mcph::test
