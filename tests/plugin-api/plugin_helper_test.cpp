// plugin_helper.hpp: no C++ exception crosses the ABI. guarded() maps each exception to a status
// and a NUL-terminated message truncated to the caller's buffer; the vtable builders use it.
#include <mcph/plugin_helper.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

namespace {

using mcph::plugin::guarded;
using mcph::plugin::make_error;

struct GuardCase {
    const char* name;
    void (*thrower)();
    mcph_status expected_status;
    const char* expected_message;
};

const GuardCase kGuardCases[] = {
    {"plugin Error keeps its status", [] { throw mcph::plugin::Error(MCPH_ERR_AUTH, "token expired"); }, MCPH_ERR_AUTH,
     "token expired"},
    {"plugin Error with INVALID_ARGUMENT",
     [] { throw mcph::plugin::Error(MCPH_ERR_INVALID_ARGUMENT, "url must be https"); }, MCPH_ERR_INVALID_ARGUMENT,
     "url must be https"},
    {"std::runtime_error is internal", [] { throw std::runtime_error("vector too long"); }, MCPH_ERR_INTERNAL,
     "vector too long"},
    {"std::logic_error is internal", [] { throw std::out_of_range("index 7"); }, MCPH_ERR_INTERNAL, "index 7"},
    {"bad_alloc is out of memory", [] { throw std::bad_alloc(); }, MCPH_ERR_INTERNAL, "out of memory"},
    {"non-std exception", [] { throw 42; }, MCPH_ERR_INTERNAL, "unknown exception"},
};

TEST(PluginHelperGuarded, MapsExceptionsToStatusAndMessage) {
    for (const GuardCase& c : kGuardCases) {
        SCOPED_TRACE(c.name);
        mcph_error err = make_error();
        mcph_status status = guarded(&err, c.thrower);
        EXPECT_EQ(status, c.expected_status);
        EXPECT_EQ(err.status, c.expected_status);
        EXPECT_STREQ(err.message, c.expected_message);
    }
}

TEST(PluginHelperGuarded, SuccessReturnsOkAndLeavesErrorUntouched) {
    mcph_error err = make_error();
    bool ran = false;
    EXPECT_EQ(guarded(&err, [&] { ran = true; }), MCPH_OK);
    EXPECT_TRUE(ran);
    EXPECT_EQ(err.status, MCPH_OK);
    EXPECT_STREQ(err.message, "");
}

TEST(PluginHelperGuarded, MessageIsTruncatedToCapacityAndTerminated) {
    const std::string huge(5000, 'x');
    mcph_error err = make_error();
    std::memset(err.message, 'Z', sizeof err.message);  // no NUL anywhere beforehand
    EXPECT_EQ(guarded(&err, [&] { throw std::runtime_error(huge); }), MCPH_ERR_INTERNAL);
    EXPECT_EQ(std::strlen(err.message), static_cast<std::size_t>(MCPH_ERROR_MESSAGE_CAPACITY - 1));
    EXPECT_EQ(err.message[MCPH_ERROR_MESSAGE_CAPACITY - 1], '\0');
    EXPECT_EQ(std::string(err.message), huge.substr(0, MCPH_ERROR_MESSAGE_CAPACITY - 1));
}

TEST(PluginHelperGuarded, ExactCapacityMinusOneFitsWhole) {
    const std::string fits(MCPH_ERROR_MESSAGE_CAPACITY - 1, 'y');
    mcph_error err = make_error();
    guarded(&err, [&] { throw mcph::plugin::Error(MCPH_ERR_IO, fits); });
    EXPECT_EQ(std::string(err.message), fits);
}

TEST(PluginHelperGuarded, NullErrorStillReturnsStatus) {
    EXPECT_EQ(guarded(nullptr, [] { throw mcph::plugin::Error(MCPH_ERR_TIMEOUT, "slow"); }), MCPH_ERR_TIMEOUT);
    EXPECT_EQ(guarded(nullptr, [] { throw std::runtime_error("x"); }), MCPH_ERR_INTERNAL);
}

TEST(PluginHelperGuarded, UndersizedErrorStructIsNotWritten) {
    // A caller built against an older, smaller mcph_error: the callee must not write past it.
    mcph_error err = make_error();
    err.struct_size = 4;
    std::strcpy(err.message, "untouched");
    EXPECT_EQ(guarded(&err, [] { throw mcph::plugin::Error(MCPH_ERR_IO, "boom"); }), MCPH_ERR_IO);
    EXPECT_STREQ(err.message, "untouched");
    EXPECT_EQ(err.status, MCPH_OK);
}

TEST(PluginHelper, MakeErrorIsZeroedWithItsSize) {
    mcph_error err = make_error();
    EXPECT_EQ(err.struct_size, sizeof(mcph_error));
    EXPECT_EQ(err.status, MCPH_OK);
    EXPECT_EQ(err.message[0], '\0');
}

TEST(PluginHelper, StrAndViewRoundTrip) {
    EXPECT_EQ(mcph::plugin::view(mcph::plugin::str("héllo")), "héllo");
    EXPECT_TRUE(mcph::plugin::view(mcph_str{nullptr, 0}).empty());
    const std::string with_nul("a\0b", 3);
    EXPECT_EQ(mcph::plugin::view(mcph::plugin::str(with_nul)).size(), 3u);
}

// ---- the transport vtable builder -----------------------------------------------------------------

struct Probe {
    static inline int constructed = 0;
    static inline int destroyed = 0;
    static inline int closes = 0;
    static inline std::string last_config;
    static inline std::string last_sent;
};

class ProbeTransport : public mcph::plugin::Transport {
public:
    ProbeTransport(mcph::plugin::TransportHost, std::string_view config) {
        if (config == "bad") throw mcph::plugin::Error(MCPH_ERR_INVALID_ARGUMENT, "probe: bad config");
        if (config == "crash") throw std::runtime_error("probe: constructor blew up");
        Probe::last_config = std::string(config);
        ++Probe::constructed;
    }
    ~ProbeTransport() override { ++Probe::destroyed; }
    void start() override { throw mcph::plugin::Error(MCPH_ERR_IO, "probe: cannot start"); }
    void send(std::string_view message) override {
        if (message == "throw") throw std::logic_error("probe: send threw");
        Probe::last_sent = std::string(message);
    }
    void close() noexcept override { ++Probe::closes; }
};

const char* const kProbeTypes[] = {"probe", nullptr};

mcph_transport_callbacks dummy_callbacks() {
    mcph_transport_callbacks cb;
    std::memset(&cb, 0, sizeof cb);
    cb.struct_size = sizeof cb;
    return cb;
}

TEST(PluginHelperTransportVtable, EntryPointsReportStatusesNotExceptions) {
    constexpr auto vt = mcph::plugin::make_transport_vtable<ProbeTransport>(kProbeTypes);
    EXPECT_EQ(vt.struct_size, sizeof(mcph_transport_vtable_v1));
    EXPECT_STREQ(vt.config_types[0], "probe");
    EXPECT_EQ(vt.config_types[1], nullptr);

    const mcph_transport_callbacks cb = dummy_callbacks();
    mcph_transport* t = nullptr;
    mcph_error err = make_error();
    EXPECT_EQ(vt.create(nullptr, mcph::plugin::str("bad"), &cb, &t, &err), MCPH_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(err.message, "probe: bad config");
    EXPECT_EQ(t, nullptr);

    err = make_error();
    EXPECT_EQ(vt.create(nullptr, mcph::plugin::str("crash"), &cb, &t, &err), MCPH_ERR_INTERNAL);
    EXPECT_STREQ(err.message, "probe: constructor blew up");

    err = make_error();
    EXPECT_EQ(vt.create(nullptr, mcph::plugin::str("{}"), &cb, nullptr, &err), MCPH_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(err.message, "null argument");

    const int constructed = Probe::constructed, destroyed = Probe::destroyed, closes = Probe::closes;
    err = make_error();
    ASSERT_EQ(vt.create(nullptr, mcph::plugin::str("{\"k\":1}"), &cb, &t, &err), MCPH_OK);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(Probe::constructed, constructed + 1);
    EXPECT_EQ(Probe::last_config, "{\"k\":1}");

    err = make_error();
    EXPECT_EQ(vt.start(t, &err), MCPH_ERR_IO);
    EXPECT_STREQ(err.message, "probe: cannot start");

    err = make_error();
    EXPECT_EQ(vt.send(t, mcph::plugin::str("{\"jsonrpc\":\"2.0\"}"), &err), MCPH_OK);
    EXPECT_EQ(Probe::last_sent, "{\"jsonrpc\":\"2.0\"}");
    EXPECT_EQ(vt.send(t, mcph::plugin::str("throw"), &err), MCPH_ERR_INTERNAL);
    EXPECT_STREQ(err.message, "probe: send threw");

    err = make_error();
    EXPECT_EQ(vt.set_option(t, mcph::plugin::str("protocol-version"), mcph::plugin::str("x"), &err),
              MCPH_ERR_UNSUPPORTED);  // the base class refuses unknown options

    // v1.3: a transport that does not override pump() says so; the host then waits as before.
    ASSERT_NE(vt.pump, nullptr);
    err = make_error();
    EXPECT_EQ(vt.pump(t, 10, &err), MCPH_ERR_UNSUPPORTED);

    vt.destroy(t);  // closes first, then deletes
    EXPECT_EQ(Probe::closes, closes + 1);
    EXPECT_EQ(Probe::destroyed, destroyed + 1);
}

// ---- the auth vtable builder ----------------------------------------------------------------------

class ProbeAuth : public mcph::plugin::Auth {
public:
    explicit ProbeAuth(const mcph::plugin::AuthContext& ctx) : server_(ctx.server_name) {}
    std::vector<std::pair<std::string, std::string>> headers() override {
        return {{"Authorization", "Bearer t-" + server_}, {"X-Probe", "1"}};
    }
    bool handle_challenge(int http_status, std::string_view) override { return http_status == 401; }
    std::string describe() override { return "{\"server\":\"" + server_ + "\"}"; }

private:
    std::string server_;
};

TEST(PluginHelperAuthVtable, HeadersChallengeAndDefaults) {
    constexpr auto vt = mcph::plugin::make_auth_vtable<ProbeAuth>("probe");
    EXPECT_STREQ(vt.backend_name, "probe");
    mcph_auth* a = nullptr;
    mcph_error err = make_error();
    ASSERT_EQ(vt.create(nullptr, mcph::plugin::str("srv"), mcph::plugin::str("https://x"), mcph::plugin::str("{}"), &a,
                        &err),
              MCPH_OK);

    std::vector<std::pair<std::string, std::string>> got;
    mcph_header_sink sink{sizeof(mcph_header_sink), &got, [](void* ud, mcph_str n, mcph_str v) {
                              static_cast<decltype(got)*>(ud)->emplace_back(std::string(mcph::plugin::view(n)),
                                                                            std::string(mcph::plugin::view(v)));
                          }};
    EXPECT_EQ(vt.get_headers(a, &sink, &err), MCPH_OK);
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].first, "Authorization");
    EXPECT_EQ(got[0].second, "Bearer t-srv");

    EXPECT_EQ(vt.handle_challenge(a, 401, mcph::plugin::str("Bearer"), &err), MCPH_OK);
    err = make_error();
    EXPECT_EQ(vt.handle_challenge(a, 403, mcph::plugin::str("Bearer"), &err), MCPH_ERR_AUTH);
    EXPECT_STREQ(err.message, "credentials could not be refreshed");

    err = make_error();
    EXPECT_EQ(vt.login(a, &err), MCPH_ERR_UNSUPPORTED);  // default login
    EXPECT_STREQ(err.message, "login not supported");
    EXPECT_EQ(vt.logout(a, &err), MCPH_OK);

    std::string described;
    mcph_string_sink out{sizeof(mcph_string_sink), &described,
                         [](void* ud, mcph_str v) { *static_cast<std::string*>(ud) = std::string(mcph::plugin::view(v)); }};
    EXPECT_EQ(vt.describe(a, &out, &err), MCPH_OK);
    EXPECT_EQ(described, "{\"server\":\"srv\"}");
    vt.destroy(a);

    err = make_error();
    EXPECT_EQ(vt.create(nullptr, mcph::plugin::str("s"), mcph::plugin::str("u"), mcph::plugin::str("{}"), nullptr, &err),
              MCPH_ERR_INVALID_ARGUMENT);
}

// ---- 1.2: the request-aware auth entries and their defaults ------------------------------------

TEST(PluginHelperAuthVtable, V12DefaultsDeferInNonBlockingModeAndServeTheV10Calls) {
    constexpr auto vt = mcph::plugin::make_auth_vtable<ProbeAuth>("probe");
    EXPECT_EQ(vt.struct_size, sizeof(mcph_auth_vtable_v1));
    ASSERT_NE(vt.get_headers_ex, nullptr);
    ASSERT_NE(vt.handle_challenge_ex, nullptr);
    ASSERT_NE(vt.cancel, nullptr);
    mcph_auth* a = nullptr;
    mcph_error err = make_error();
    ASSERT_EQ(vt.create(nullptr, mcph::plugin::str("srv"), mcph::plugin::str("https://x"), mcph::plugin::str("{}"), &a,
                        &err),
              MCPH_OK);
    std::vector<std::pair<std::string, std::string>> got;
    mcph_header_sink sink{sizeof(mcph_header_sink), &got, [](void* ud, mcph_str n, mcph_str v) {
                              static_cast<decltype(got)*>(ud)->emplace_back(std::string(mcph::plugin::view(n)),
                                                                            std::string(mcph::plugin::view(v)));
                          }};
    mcph_auth_request req{};
    req.struct_size = sizeof(req);
    req.method = mcph::plugin::str("POST");
    req.url = mcph::plugin::str("https://x/mcp");

    // A backend written against 1.0 may block in headers(): non-blocking mode never calls it.
    EXPECT_EQ(vt.get_headers_ex(a, &req, MCPH_AUTH_NONBLOCKING, &sink, &err), MCPH_PENDING);
    EXPECT_TRUE(got.empty());
    err = make_error();
    EXPECT_EQ(vt.get_headers_ex(a, &req, 0, &sink, &err), MCPH_OK);
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].second, "Bearer t-srv");

    const mcph_header response_headers[] = {{mcph::plugin::str("DPoP-Nonce"), mcph::plugin::str("n1")}};
    req.http_status = 401;
    req.www_authenticate = mcph::plugin::str("Bearer");
    req.response_headers = response_headers;
    req.response_header_count = 1;
    EXPECT_EQ(vt.handle_challenge_ex(a, &req, &err), MCPH_OK);  // ProbeAuth retries a 401
    req.http_status = 403;
    err = make_error();
    EXPECT_EQ(vt.handle_challenge_ex(a, &req, &err), MCPH_ERR_AUTH);
    vt.cancel(a);  // the default does nothing, and must not throw
    vt.destroy(a);

    // The C++ view reads only what struct_size covers, and finds headers case-insensitively.
    const auto view = mcph::plugin::auth_request_from_c(&req);
    EXPECT_EQ(view.method, "POST");
    EXPECT_EQ(view.header("dpop-nonce"), "n1");
    EXPECT_TRUE(view.header("DPoP").empty());
    mcph_auth_request old = req;
    old.struct_size = offsetof(mcph_auth_request, http_status);  // a writer that knew only method and url
    const auto short_view = mcph::plugin::auth_request_from_c(&old);
    EXPECT_EQ(short_view.url, "https://x/mcp");
    EXPECT_EQ(short_view.http_status, 0);
    EXPECT_TRUE(short_view.response_headers.empty());
}

}  // namespace
