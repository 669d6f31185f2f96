// What the client answers when a server asks it something — a server→client request in the 2025
// era, an inputRequests entry of a multi round-trip request in the 2026 era: roots, sampling and
// elicitation, through the application's callbacks, under one prompt rate limit per session.
#pragma once

#include "session/prompt_budget.hpp"

#include <mcph/callbacks.hpp>
#include <mcph/host.hpp>  // LogLevel
#include <mcph/json.hpp>
#include <mcph/types.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mcph::session {

// JSON-RPC error code of a sampling/elicitation refused by the prompt budget.
inline constexpr int kPromptRateLimitedCode = -32000;

class ClientRequestRouter {
public:
    // roots/list: callbacks.roots when set, else `roots` when set, else the working directory.
    ClientRequestRouter(std::string server_name, const ClientCallbacks& callbacks, const std::optional<std::vector<Root>>& roots,
                        std::function<void(LogLevel, const std::string&)> log);

    // The answer to one request. Throws mcph::Error (Remote, with the JSON-RPC code) to refuse
    // it: an unknown method, sampling without a model, the prompt budget spent.
    Json answer(const std::string& method, const JsonValue& params);

    // Takes one prompt from the budget when `method` would reach a person or a model; false, with
    // the reason, when the server asks too fast. answer() takes it itself; a caller that took it
    // already (the 2025 path refuses on arrival, before handing off) calls answer_taken().
    bool take_prompt(const std::string& method, std::string* why);
    Json answer_taken(const std::string& method, const JsonValue& params);

private:
    const std::string server_;
    const ClientCallbacks& callbacks_;  // owned by the session's settings, which outlive this
    const std::optional<std::vector<Root>>& roots_;  // the same
    std::function<void(LogLevel, const std::string&)> log_;
    PromptBudget budget_{kPromptBurst, kPromptRefill};
    std::atomic<std::uint64_t> refused_{0};
};

}  // namespace mcph::session
