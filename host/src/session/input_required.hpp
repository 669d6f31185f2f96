// Multi round-trip requests (2026-07-28, SEP-2322). A server that needs input (an elicitation, a
// sampling, the roots) answers tools/call, prompts/get or resources/read with
// resultType "input_required"; the client answers each inputRequests entry through the
// application's callbacks and retries the original request — a new JSON-RPC id, the original
// params plus inputResponses and, byte for byte, the requestState it was given (never reused for
// any other request).
#pragma once

#include <mcph/json.hpp>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace mcph::session {

enum class ResultType { Complete, InputRequired, Task };

// What an error about a request names: "tools/call from 'server'". The text is built only for an
// error: one string per call was ~2% of a small call's client instructions.
struct RequestLabel {
    const std::string& method;
    const std::string& server;
    std::string text() const { return method + " from '" + server + "'"; }
};

// A result's resultType: missing = complete (earlier servers omit it); an unknown value or a
// non-string is a Protocol error naming the request.
ResultType result_type(const JsonValue& result, const RequestLabel& request);

// Whether `method` may answer input_required (the spec's list).
bool supports_input_required(const std::string& method);

// Rounds one request may take before the client gives up (configurable per server).
inline constexpr int kDefaultMaxInputRounds = 10;
// At most this many input requests in one round, and this much requestState: beyond it the
// server is refused with a clear error rather than held in memory or put to the user.
inline constexpr std::size_t kMaxInputRequestsPerRound = 32;
inline constexpr std::size_t kMaxRequestStateBytes = 4u << 20;

// Answers one input request ({"method","params"}) with its result; throws mcph::Error when it
// cannot (the entry is then left out of inputResponses and the server may ask again).
using InputAnswerer = std::function<Json(const std::string& method, const JsonValue& params)>;

struct InputRound {
    Json responses{rapidjson::kObjectType};  // key → result, for each answered entry
    std::optional<std::string> request_state;
    std::size_t asked = 0;
};

// Reads an input_required result and answers its requests. Throws Error(Protocol) on a malformed
// or over-large one. `warn` hears each entry that could not be answered.
InputRound answer_input_requests(const JsonValue& result, const InputAnswerer& answer,
                                 const std::function<void(const std::string&)>& warn, const std::string& context);

// The retry: a copy of `original` params with inputResponses (when any were asked) and the
// requestState (only when the server sent one) — replacing those of an earlier round.
Json retry_params(const JsonValue& original, const InputRound& round);

}  // namespace mcph::session
