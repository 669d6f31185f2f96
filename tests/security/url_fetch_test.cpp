// Issue #9 item 6: the safe-fetch guard of auth discovery, attacked through the real auth-oauth
// plugin (dlopen'ed, driven through its C vtable) with the host's real services table — the same
// check_fetch_url libmcph hands every plugin. A remote (non-local) server's challenge points the
// client's discovery at this machine: a loopback listener of the test, written as a literal in
// several spellings, and as a DNS name that resolves to a loopback address (this machine's own
// host name). Each fetch must be refused — the literal ones by the URL check, the name at connect
// time by the open-socket check — and the listener must have seen no connection when the call
// returns. A local server's discovery does reach the listener: the control that shows the test
// can fail.
#include "url_support.hpp"

#include "plugins/host_services.hpp"
#include "url/address_class.hpp"

#include <mcph/plugin_helper.hpp>

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <netdb.h>
#include <unistd.h>

#include <future>
#include <optional>
#include "contains.hpp"

namespace mcph::test {
namespace {

using namespace std::chrono_literals;
using mcph::plugin::str;

constexpr const char* kPublicServer = "https://mcp.example.com/mcp";

// The host's services, as libmcph builds them for every plugin.
plugins::HostServices& host_services() {
    static plugins::HostServices services(plugins::HostServiceBindings{
        nullptr, nullptr, [](std::function<void()> fn) { fn(); }, std::make_shared<plugins::MemorySecretStore>(),
        /*secret_lock_folder=*/{}});
    return services;
}

const mcph_auth_vtable_v1* fetch_oauth_plugin() {
    static const mcph_auth_vtable_v1* vt = []() -> const mcph_auth_vtable_v1* {
        const std::string path = std::string(MCPH_TEST_PLUGIN_DIR) + "/libmcph_auth_oauth.so";
        void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!lib) return nullptr;
        auto entry = reinterpret_cast<mcph_plugin_entry_fn>(dlsym(lib, MCPH_ENTRY_SYMBOL));
        if (!entry) return nullptr;
        const mcph_plugin* p = entry();
        mcph_error err = mcph::plugin::make_error();
        if (p->init && p->init(host_services().table(), &err) != MCPH_OK) return nullptr;
        return static_cast<const mcph_auth_vtable_v1*>(p->get_interface(MCPH_AUTH_INTERFACE_V1));
    }();
    return vt;
}

struct ChallengeResult {
    mcph_status status = MCPH_OK;
    std::string message;
};

// One auth object for `server_url` answering a 401 whose resource_metadata is `metadata_url`.
ChallengeResult challenge(const std::string& server_url, const std::string& metadata_url) {
    const mcph_auth_vtable_v1* vt = fetch_oauth_plugin();
    if (!vt) return {MCPH_ERR_INTERNAL, "the auth-oauth plugin did not load"};
    mcph_auth* auth = nullptr;
    mcph_error err = mcph::plugin::make_error();
    if (vt->create(host_services().table(), str("victim"), str(server_url), str(R"({"httpTimeoutMs":3000})"), &auth, &err) !=
        MCPH_OK)
        return {MCPH_ERR_INTERNAL, std::string("create failed: ") + err.message};
    const std::string header = "Bearer resource_metadata=\"" + metadata_url + "\"";
    ChallengeResult out;
    out.status = vt->handle_challenge(auth, 401, str(header), &err);
    out.message = err.message;
    vt->destroy(auth);
    return out;
}


TEST(AuthFetchAttack, LoopbackLiteralsRefusedForARemoteServer) {
    LoopbackListener listener;
    const std::string p = std::to_string(listener.port());
    for (const std::string& url : {
             "http://127.0.0.1:" + p + "/.well-known/oauth-protected-resource",
             "http://localhost:" + p + "/containers/json",
             "https://127.0.0.1.:" + p + "/x",           // trailing dot
             "https://0x7f.0.0.1:" + p + "/x",           // hex
             "https://[::ffff:127.0.0.1]:" + p + "/x",   // IPv4-mapped
             "https://[::ffff:7f00:1]:" + p + "/x",
             "https://0.0.0.0:" + p + "/x",              // reaches this machine on Linux
             "https://u:p@127.0.0.1:" + p + "/x",
         }) {
        SCOPED_TRACE(url);
        const ChallengeResult r = challenge(kPublicServer, url);
        EXPECT_NE(r.status, MCPH_OK);
        EXPECT_TRUE(contains(r.message, "refused to fetch")) << r.message;
        EXPECT_TRUE(contains(r.message, "address")) << r.message;
        EXPECT_FALSE(listener.connected(50ms)) << "the refused fetch reached the listener";
    }
    EXPECT_FALSE(listener.connected());
}

TEST(AuthFetchAttack, PrivateRangesRefusedForARemoteServer) {
    for (const char* url : {"https://10.0.0.5/x", "https://[::ffff:10.0.0.5]/x", "https://100.64.0.1/x",
                            "https://198.18.0.1/x", "https://169.254.169.254/latest/meta-data", "https://[fd00::1]/x",
                            "https://[64:ff9b::a00:5]/x", "https://224.0.0.1/x", "https://255.255.255.255/x"}) {
        SCOPED_TRACE(url);
        const ChallengeResult r = challenge(kPublicServer, url);
        EXPECT_NE(r.status, MCPH_OK);
        EXPECT_TRUE(contains(r.message, "refused to fetch")) << r.message;
    }
}

// This machine's host name, if it resolves to loopback or private addresses only (as /etc/hosts
// makes it on most CI machines and in containers): a DNS name the URL check cannot judge.
std::optional<std::string> name_resolving_to_this_machine() {
    char name[256] = {0};
    if (gethostname(name, sizeof name - 1) != 0 || !*name || std::string_view(name) == "localhost") return std::nullopt;
    addrinfo hints{};
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    if (getaddrinfo(name, nullptr, &hints, &res) != 0 || !res) return std::nullopt;
    bool loopback_only = true;
    for (addrinfo* a = res; a; a = a->ai_next) {
        const auto* in = reinterpret_cast<const sockaddr_in*>(a->ai_addr);
        if (url::classify_ipv4(in->sin_addr).kind != url::AddressClass::Loopback) loopback_only = false;
    }
    freeaddrinfo(res);
    if (!loopback_only) return std::nullopt;
    return std::string(name);
}

TEST(AuthFetchAttack, NameResolvingToLoopbackRefusedAtConnect) {
    const std::optional<std::string> name = name_resolving_to_this_machine();
    if (!name) GTEST_SKIP() << "this machine's host name does not resolve to 127.0.0.0/8 only";
    LoopbackListener listener;
    const std::string url = "https://" + *name + ":" + std::to_string(listener.port()) + "/.well-known/x";
    // The URL alone names no address: the URL check lets it through ...
    EXPECT_EQ(plugins::check_fetch_url(url, kPublicServer), "");
    // ... and the socket check refuses the address it resolved to, before connecting.
    const ChallengeResult r = challenge(kPublicServer, url);
    EXPECT_NE(r.status, MCPH_OK);
    EXPECT_TRUE(contains(r.message, "refused to connect")) << r.message;
    EXPECT_TRUE(contains(r.message, "loopback address")) << r.message;
    EXPECT_FALSE(listener.connected()) << "the fetch reached the listener";
}

// The control: for a server on this machine the same fetch goes ahead, and the listener sees it.
TEST(AuthFetchAttack, LocalServerMayFetchFromLoopback) {
    LoopbackListener listener;
    const std::string url = "http://127.0.0.1:" + std::to_string(listener.port()) + "/.well-known/oauth-protected-resource";
    auto pending = std::async(std::launch::async, [&] { return challenge("http://127.0.0.1:1/mcp", url); });
    EXPECT_TRUE(listener.connected(5000ms)) << "a local server's discovery never reached the listener";
    ASSERT_EQ(pending.wait_for(15s), std::future_status::ready);
    const ChallengeResult r = pending.get();
    EXPECT_FALSE(contains(r.message, "refused to fetch")) << r.message;
}

TEST(AuthFetchAttack, NameResolvingToLoopbackAllowedForALocalServer) {
    const std::optional<std::string> name = name_resolving_to_this_machine();
    if (!name) GTEST_SKIP() << "this machine's host name does not resolve to 127.0.0.0/8 only";
    LoopbackListener listener;
    const std::string url = "https://" + *name + ":" + std::to_string(listener.port()) + "/.well-known/x";
    auto pending = std::async(std::launch::async, [&] { return challenge("http://127.0.0.1:1/mcp", url); });
    EXPECT_TRUE(listener.connected(5000ms)) << "the socket check refused a local server's fetch";
    ASSERT_EQ(pending.wait_for(15s), std::future_status::ready);
    EXPECT_FALSE(contains(pending.get().message, "refused to connect"));
}

// Every redirect hop meets the policy again: a local server's metadata may live on loopback, but a
// redirect from there to a reserved address, to plain http on a public host, or to the cloud
// metadata address for a public server's sake is refused — after the first hop was fetched.
TEST(AuthFetchAttack, EveryRedirectHopIsChecked) {
    const std::pair<const char*, const char*> cases[] = {
        {"https://240.0.0.1/.well-known/x", "reserved address"},
        {"http://auth.example.com/.well-known/x", "https is required"},
        {"https://224.0.0.1/x", "multicast address"},
    };
    for (const auto& [location, reason] : cases) {
        SCOPED_TRACE(location);
        RedirectResponder responder(location);
        const std::string url = "http://127.0.0.1:" + std::to_string(responder.port()) + "/.well-known/oauth-protected-resource";
        const ChallengeResult r = challenge("http://127.0.0.1:1/mcp", url);
        EXPECT_GE(responder.requests(), 1) << "the first hop was never fetched: the test proves nothing";
        EXPECT_NE(r.status, MCPH_OK);
        EXPECT_TRUE(contains(r.message, reason)) << r.message;
    }
}

}  // namespace
}  // namespace mcph::test
