// Which transport failures mean "the connection itself is broken" (seed 000 §18.8), as opposed to
// the server answering with an error. The seed's nine signals are Node.js words (ECONNRESET,
// ETIMEDOUT, EPIPE, EHOSTUNREACH, ECONNREFUSED, undici's "Body Timeout Error" and "terminated",
// "SSE stream disconnected", "Failed to reconnect SSE stream"); a plugin of ABI 1.1 reports them
// typed (mcph_failure: a category, the errno, the HTTP status), and this decides on those fields
// alone. The message is for people and is never read here: the same words appear in a tool's own
// error text ("fetch failed: Connection refused"), which describes the server's upstream, not our
// link, and a plugin may reword its messages at any time.
#pragma once

#include "transport/transport.hpp"

#include <string_view>

namespace mcph::connection {

// What one failure says about the link.
enum class FailureMeaning {
    LinkBroken,      // the connection itself failed: counts towards a reconnect
    ServerAnswered,  // the server is there and answered (an HTTP error, a bad frame): breaks a run
    Unknown,         // says nothing either way (OTHER without an errno): ignored
};

struct FailureVerdict {
    FailureMeaning meaning = FailureMeaning::Unknown;
    std::string_view signal;  // for logs: the seed's name ("ECONNRESET", "terminated", ...) or the category's
};

FailureVerdict classify_failure(const transport::Failure& failure);

inline bool is_terminal_failure(const transport::Failure& failure) {
    return classify_failure(failure).meaning == FailureMeaning::LinkBroken;
}

}  // namespace mcph::connection
