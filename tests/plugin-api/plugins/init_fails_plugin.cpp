// Test plugin: a valid transport plugin whose init fails with a message (thrown through
// plugin_helper's guard, so the message reaches the host as the status + text).
#include <mcph/plugin_helper.hpp>

namespace {

class NeverTransport : public mcph::plugin::Transport {
public:
    NeverTransport(mcph::plugin::TransportHost, std::string_view) {}
    void start() override {}
    void send(std::string_view) override {}
    void close() noexcept override {}
};

mcph_status init_fails(const mcph_host_services*, mcph_error* err) {
    return mcph::plugin::guarded(err, [] {
        throw mcph::plugin::Error(MCPH_ERR_UNSUPPORTED, "test plugin refuses to start: no widget attached");
    });
}

const char* const kTypes[] = {"never", nullptr};
const auto kVtable = mcph::plugin::make_transport_vtable<NeverTransport>(kTypes);

}  // namespace

MCPH_DEFINE_PLUGIN("init-fails", "0.0.1", "a plugin whose init fails", init_fails, MCPH_TRANSPORT_INTERFACE_V1,
                   &kVtable)
