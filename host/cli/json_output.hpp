// The CLI's --json output: pretty JSON that is always JSON, whatever a server sent.
#pragma once

#include <mcph/json.hpp>

#include <string>

namespace mcph::cli {

// Every string written with its length (an embedded NUL stays, as \u0000) and with ill-formed
// UTF-8 replaced by U+FFFD; nesting bounded like every writer of outside input.
std::string to_output_json(const JsonValue& value);

}  // namespace mcph::cli

namespace mcph::cli {

// The version of the --json documents (docs/cli-json.schema.json); raised on an incompatible change.
constexpr int kJsonSchemaVersion = 1;

// The one document a command prints with --json: {"schemaVersion":1, ...}. An object keeps its
// members (schemaVersion first); anything else is put under `member`.
Json json_document(const JsonValue& value, const char* member);
void print_json_document(const JsonValue& value, const char* member);
// A command that only did something: {"schemaVersion":1,"ok":true,"message":...} with --json, the
// message on stdout otherwise.
void print_done(bool json, const std::string& message);
// A failure as the one --json document: {"schemaVersion":1,"error":{"kind","message","exitCode"}}
// on stdout (kind: mcph::to_string of the ErrorKind, or "auth-needed", "usage", "internal").
void print_json_error(const std::string& kind, const std::string& message, int exit_code);

}  // namespace mcph::cli
