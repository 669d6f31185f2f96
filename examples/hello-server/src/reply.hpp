// Reply — what handling one inbound message produces, independent of the transport.
//
// Most messages produce at most one response, sent at once. A few (countdown) also produce
// notifications that must go out before the response, each after a delay; the transport schedules
// them (stdio: a timer queue in its poll loop; HTTP: an SSE response stream or a delayed reply).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace hello {

struct ScheduledMessage {
    std::chrono::milliseconds delay{0};  // after the previous step (or after receipt, for the first)
    std::string message;                 // a complete JSON-RPC notification
};

struct Reply {
    std::optional<std::string> response;     // the JSON-RPC response, if the message was a request
    std::vector<ScheduledMessage> steps;     // notifications to send before the response
    std::chrono::milliseconds response_delay{0};  // extra wait after the last step, before the response
    std::string request_key;                 // the request id as JSON text, set when anything is delayed
    std::optional<std::string> cancelled_key;  // notifications/cancelled named this request id (JSON text)

    bool deferred() const { return !steps.empty() || response_delay.count() > 0; }
};

}  // namespace hello
