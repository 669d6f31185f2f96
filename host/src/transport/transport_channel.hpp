// A live transport plugin object, wrapped for C++: owns the plugin's mcph_transport, keeps its
// shared library mapped, and turns the C callbacks into calls on a TransportListener.
#pragma once

#include "plugins/plugin_loader.hpp"
#include "transport/transport.hpp"

#include <mcph/plugin_api.h>

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcph::transport {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

class TransportListener {
public:
    virtual ~TransportListener() = default;
    virtual void on_transport_message(std::string_view message) = 0;                        // plugin thread
    virtual void on_transport_closed(mcph_close_reason reason, std::string_view detail) = 0;  // plugin thread
    virtual void on_transport_diagnostic(mcph_log_level level, std::string_view message) = 0;
    // Auth hook. Default: no headers, challenges not handled.
    virtual HeaderList request_headers() { return {}; }
    virtual bool auth_challenge(int http_status, std::string_view www_authenticate) {
        (void)http_status;
        (void)www_authenticate;
        return false;
    }
};

class TransportChannel : public Transport {
public:
    // Builds the plugin object from the server's config JSON. Throws mcph::Error(Usage) when the
    // plugin rejects the config, Error(Plugin) on other failures.
    TransportChannel(std::shared_ptr<plugins::LoadedPlugin> plugin, const mcph_host_services* services,
                     const std::string& config_json, TransportListener* listener);
    ~TransportChannel() override;
    TransportChannel(const TransportChannel&) = delete;
    TransportChannel& operator=(const TransportChannel&) = delete;

    void start() override;                        // throws Error(Connection)
    void send(std::string_view message) override;  // throws Error(Connection) when closed or failing
    void set_option(std::string_view key, std::string_view value) override;  // unsupported options are ignored
    void close() override;                        // idempotent; no callbacks after it returns

private:
    static void on_message(void* ud, mcph_str message);
    static void on_closed(void* ud, mcph_close_reason reason, mcph_str detail);
    static void on_diagnostic(void* ud, mcph_log_level level, mcph_str message);
    static mcph_status get_request_headers(void* ud, const mcph_header_sink* sink, mcph_error* err);
    static mcph_status on_auth_challenge(void* ud, int status, mcph_str challenge, mcph_str resource, mcph_error* err);

    std::shared_ptr<plugins::LoadedPlugin> plugin_;
    const mcph_transport_vtable_v1* vtable_;
    TransportListener* listener_;
    mcph_transport_callbacks callbacks_;
    mcph_transport* transport_ = nullptr;
    std::once_flag closed_;
};

}  // namespace mcph::transport
