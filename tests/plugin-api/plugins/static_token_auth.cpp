// A third-party-style auth plugin, built apart from mcph's own and loaded from its own directory:
// backend "acme-static" sends a fixed bearer token. Used to show that a server's auth backend is
// swapped by config alone (tests/integration/remote_servers_test.cpp).
#include <mcph/plugin_helper.hpp>

namespace {

class StaticTokenAuth : public mcph::plugin::Auth {
public:
    explicit StaticTokenAuth(const mcph::plugin::AuthContext&) {}
    std::vector<std::pair<std::string, std::string>> headers() override {
        return {{"Authorization", "Bearer acme-static-token"}};
    }
    bool handle_challenge(int, std::string_view) override { return false; }
    std::string describe() override { return R"({"kind":"static"})"; }
};

const mcph_auth_vtable_v1 kVtable = mcph::plugin::make_auth_vtable<StaticTokenAuth>("acme-static");

}  // namespace

MCPH_DEFINE_PLUGIN("acme-static-auth", "1.0.0", "Third-party test auth backend: a fixed bearer token", nullptr,
                   MCPH_AUTH_INTERFACE_V1, &kVtable)
