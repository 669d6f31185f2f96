// The little JSON-RPC knowledge the transport needs: which requests a message carries (so a
// failed POST can be answered with an error instead of hanging) and which responses (so a
// stream knows when its request was answered). Ids are kept as canonical JSON text: `1`, `"a"`.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcph::http {

struct MessageShape {
    bool valid = false;                     // well-formed JSON whose root is an object or array
    std::vector<std::string> request_ids;   // objects with "method" and a non-null "id"
    std::vector<std::string> response_ids;  // objects with a non-null "id" and no "method"
    std::vector<std::string> cancelled_ids; // params.requestId of notifications/cancelled
    std::string problem;                    // when !valid: why, for people (names the depth bound)
};

// One pass over the text (no DOM is built, nothing but ids is copied), iterative and bounded to
// mcph::json_bounds::kMaxDepth levels of nesting. It checks the JSON grammar as RapidJSON's
// Reader does by default (no UTF-8 validation: the host validates when it parses) but skips the
// inside of strings sixteen bytes at a time, so a 1 MiB result costs a fraction of a SAX parse.
MessageShape inspect_message(std::string_view json);

// How many times inspect_message ran in this process (tests: proves a path does not scan).
std::uint64_t inspect_message_count() noexcept;

// {"jsonrpc":"2.0","id":<id_json>,"error":{"code":-32000,"message":...,"data":{"httpStatus":N}}}
// (data only when http_status > 0): the stand-in for a response the server never delivered.
// data.retryAfterMs too when the server sent Retry-After.
std::string error_response(std::string_view id_json, std::string_view message, long http_status,
                           std::optional<std::chrono::milliseconds> retry_after = std::nullopt);

inline constexpr int kTransportErrorCode = -32000;

}  // namespace mcph::http
