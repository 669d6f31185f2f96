// The "sse" / "sse-ide" transport (MCP "HTTP with SSE", protocol 2024-11-05): the thread-safe
// front the host calls.
//
// Threads (see ../README.md):
//   loop thread  SseEngine::run(): one curl multi loop; the GET stream, every POST, every host
//                callback. After loopIdleMs without progress it may retire to the plugin's idle
//                watch; the watch, a send or close() starts one again (sse_engine_idle.cpp).
//   callers      send() validates, pushes into the outbox and wakes the loop
//                (CurlDriver::wakeup); it never touches the network and never blocks on it.
//   host thread  start() (waits for the endpoint event), close().
#pragma once

#include "handshake.hpp"
#include "sse_config.hpp"
#include "sse_engine.hpp"

#include <mcph/plugin_helper.hpp>

#include <atomic>
#include <memory>
#include <string_view>

namespace mcph::sse {

class SseTransport final : public mcph::plugin::Transport {
public:
    SseTransport(mcph::plugin::TransportHost host, std::string_view config_json);
    ~SseTransport() override;

    void start() override;                                                   // [host-thread]
    void send(std::string_view message) override;                            // [thread-safe]
    void set_option(std::string_view key, std::string_view value) override;  // [thread-safe]
    void close() noexcept override;                                          // [host-thread], idempotent

private:
    void stop_io() noexcept;

    mcph::plugin::TransportHost host_;
    SseConfig config_;
    std::atomic<bool> stopping_{false};  // close() began, or start() failed
    std::atomic<bool> ended_{false};     // the engine gave up (on_closed fired, or start failed)
    Handshake handshake_;
    std::unique_ptr<SseEngine> engine_;
    bool started_ = false;  // host thread only
    bool closed_ = false;   // host thread only
};

}  // namespace mcph::sse
