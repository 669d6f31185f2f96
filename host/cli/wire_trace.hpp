// The wire trace of `--debug` / MCPH_LOG_LEVEL=trace: one line per JSON-RPC message, per server,
// on stderr — secrets redacted, long messages cut, the server's text escaped for the terminal.
#pragma once

#include "options.hpp"

#include <mcph/host.hpp>
#include <mcph/json.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace mcph::cli {

// The most of a message one trace line shows; the rest is cut with "… (N bytes)".
inline constexpr std::size_t kWireTraceLineBytes = 4096;
// Messages above this are not parsed for redaction (nor shown): the line gives their size only.
inline constexpr std::size_t kWireTraceParseBytes = 16 * 1024 * 1024;

// The one rule for which object keys hold secrets: authorization, cookie, password, secret,
// token, apiKey/api_key, client_secret, access_token, refresh_token, private_key, credentials…
// (compared without case, '_', '-' or '.'; progressToken, a request's correlation number, is not
// one).
bool names_a_secret(std::string_view key);
// Replaces, in place, the value of every key that names a secret by "***" (whatever its type),
// and the credential of a string that is an "Authorization" value ("Bearer x" → "Bearer ***").
void redact_secrets(JsonValue& value, rapidjson::MemoryPoolAllocator<>& allocator);

// "mcph: [trace] <server> → {...}" (out) or "←" (in): redacted, cut at `max_bytes`, escaped,
// without a trailing newline. A message that is not JSON is shown cut and escaped, marked as such.
std::string wire_trace_line(std::string_view server, WireDirection direction, std::string_view message,
                            std::size_t max_bytes = kWireTraceLineBytes);

// --debug, or MCPH_LOG_LEVEL=trace.
bool wire_trace_requested(const Options& options);

// A HostOptions::wire_trace that hands each line to `sink` (called on transport threads).
std::function<void(const std::string&, WireDirection, std::string_view)> wire_tracer(
    std::function<void(const std::string& line)> sink);

}  // namespace mcph::cli
