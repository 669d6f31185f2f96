// The state of one server's connection (seed 000 §18.3) as a tagged type: the data of a state can
// only be read after checking that the connection is in it (std::get_if / std::visit), so a UI can
// never show a "last error" of a connected server or a client of a failed one.
//
// Transitions: pending → connected | failed | needs-auth; connected → pending (a lost connection
// being re-established); failed → pending only by `Host::reconnect`; disabled → pending only by
// `Host::enable` (the user).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <variant>

#include <mcph/export.hpp>
#include <mcph/types.hpp>

namespace mcph {

class ClientSession;

namespace state {

struct Connected {
    std::shared_ptr<ClientSession> client;
    std::string capabilities_json;  // the server's capabilities object
    Implementation server_info;
    std::string instructions;
    std::string protocol_version;
    std::string era;  // "modern" (2026-07-28 on) or "legacy"
};

struct Failed {
    std::string error;
};

struct NeedsAuth {
    std::string reason;
};

// Connecting: attempt 0 is the first connect; 1..max_attempts are reconnection attempts.
struct Pending {
    int attempt = 0;
    int max_attempts = 0;
    std::string last_error;  // why the previous connection or attempt ended, if it did
};

struct Disabled {
    std::string reason;  // "disabled in config", "disabled by the user"
};

}  // namespace state

using ConnectionState = std::variant<state::Pending, state::Connected, state::Failed, state::NeedsAuth, state::Disabled>;

// "pending" | "connected" | "failed" | "needs-auth" | "disabled"
MCPH_API std::string_view state_name(const ConnectionState& state);

}  // namespace mcph
