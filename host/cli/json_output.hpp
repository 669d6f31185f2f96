// The CLI's --json output: pretty JSON that is always JSON, whatever a server sent.
#pragma once

#include <mcph/json.hpp>

#include <string>

namespace mcph::cli {

// Every string written with its length (an embedded NUL stays, as \u0000) and with ill-formed
// UTF-8 replaced by U+FFFD; nesting bounded like every writer of outside input.
std::string to_output_json(const JsonValue& value);

}  // namespace mcph::cli
