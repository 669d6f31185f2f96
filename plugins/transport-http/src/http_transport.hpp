// The "http" transport (MCP Streamable HTTP): the thread-safe front the host calls.
//
// Threads (see ../README.md):
//   loop thread  Engine::run(): the curl multi loop; every transfer, every host callback, while
//                no host thread pumps. It retires after loopIdleMs with only quiet streams left,
//                and the plugin's idle watch waits on their sockets (engine_idle.cpp).
//   pumper       pump() (ABI 1.3): a host thread waiting for a reply drives the same loop on its
//                own thread, the loop thread parked (engine_drive.cpp).
//   callers      send()/set_option() validate, push a Command into the mailbox and wake the
//                loop only when someone drives it (CurlDriver::wakeup); they never touch the
//                network and never block on it.
//   host thread  start(), close().
#pragma once

#include "config.hpp"
#include "engine.hpp"

#include <mcph/plugin_helper.hpp>

#include <atomic>
#include <memory>
#include <string_view>

namespace mcph::http {

class HttpTransport final : public mcph::plugin::Transport {
public:
    HttpTransport(mcph::plugin::TransportHost host, std::string_view config_json);
    ~HttpTransport() override;

    void start() override;                                                 // [host-thread]
    void send(std::string_view message) override;                          // [thread-safe]
    // [thread-safe] With the host's facts: Mcp-Method, Mcp-Name, Mcp-Param-* and the message's
    // MCP-Protocol-Version go on its POST; failures are reported under facts.id.
    void send_ex(std::string_view message, const mcph::plugin::MessageFacts& facts) override;
    // [thread-safe] Ends the transfer carrying that request; nothing is reported for it after.
    void cancel(std::string_view request_id) override;
    void set_option(std::string_view key, std::string_view value) override;  // [thread-safe]
    void close() noexcept override;                                        // [host-thread], idempotent
    mcph_status pump(std::int32_t timeout_ms) override;                    // [host thread, 1.3]

private:
    void post(Command command);
    Command send_command(std::string_view message, const mcph::plugin::MessageFacts* facts);  // validated

    HttpConfig config_;
    std::atomic<bool> stopping_{false};  // close() began
    std::atomic<bool> ended_{false};     // the engine gave up (on_closed fired)
    std::unique_ptr<Engine> engine_;  // owns the loop thread (engine_idle.cpp)
    bool started_ = false;  // host thread only
    bool closed_ = false;   // host thread only
};

}  // namespace mcph::http
