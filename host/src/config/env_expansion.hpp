// ${VAR} and ${VAR:-default} in server definitions (seed 000 §18.6: scopes are read, then
// expanded, then merged). Only the fields that carry a command line, an environment, an address or
// headers are expanded; everything else reaches the plugin exactly as written.
//
// Syntax:
//   ${NAME}            the variable's value; an unset variable is an error (an empty one is "")
//   ${NAME:-default}   the value, or `default` when the variable is unset or empty (as in POSIX sh);
//                      the default may itself contain ${...}, expanded only when it is used
//   $ not followed by {  stays literal, so "$$", "$5" and a trailing "$" are copied unchanged
//   NAME               [A-Za-z_][A-Za-z0-9_]*
// and the variables of VS Code's and Cursor's mcp.json (so their files load as written):
//   ${workspaceFolder}  the project root (ExpansionContext::workspace_folder), else the cwd
//   ${userHome}         $HOME (an error when HOME is unset)
//   ${env:NAME}         the variable NAME, exactly as ${NAME} (unset is an error, not "": a token
//                       that silently became empty fails later with a far less useful message)
//   ${pathSeparator}, ${/}  "/"
//   ${input:id}         the answer to the file's input `id` (ExpansionContext::input); an id
//                       made of letters, digits, '_', '-' and '.'
// These predefined names win over environment variables of the same name (as in VS Code).
// There is no escape for "${": a definition that needs those two characters literally cannot have
// them in an expanded field (the same as Claude Code's .mcp.json).
#pragma once

#include <mcph/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcph::config {

// Answers a variable's value, or nullopt when it is unset. Tests pass a map; the host passes
// lookup_process_environment.
using VariableLookup = std::function<std::optional<std::string>(std::string_view name)>;

// getenv. Thread-safe as long as nobody calls setenv concurrently.
std::optional<std::string> lookup_process_environment(std::string_view name);

// What the VS Code variables resolve to beyond the environment.
struct ExpansionContext {
    std::string workspace_folder;  // empty: the current directory
    // ${input:id}: the answer, or throws mcph::Error(Usage) naming the input (unknown, unanswered).
    // Empty: every ${input:...} is an error ("no inputs here").
    std::function<std::string(std::string_view id)> input;
};

// Expands every ${...} in `text`. Throws mcph::Error(Usage): "${FOO} is not set" for a missing
// variable, "unterminated \"${\" at offset N" and "bad variable name ..." for syntax errors.
std::string expand_variables(std::string_view text, const VariableLookup& lookup,
                             const ExpansionContext& context = {});

// Expands, in place, the string values of command, args[], env{}, url, headers{}, cwd, envFile and roots[] of one server
// definition (non-string values are left for parse_server_config to reject). Throws
// mcph::Error(Usage) naming server and field: "server 'x': env.TOKEN: ${FOO} is not set".
void expand_server_entry(JsonValue& entry, Json::AllocatorType& allocator, const std::string& server,
                         const VariableLookup& lookup, const ExpansionContext& context = {});

// The names of the variables expand_server_entry would read from `entry` — defaults' included, as
// if every variable were empty — sorted and unique. Shown when the user approves a definition: a
// project file's ${GITHUB_TOKEN} in a header sends that token wherever its url points.
std::vector<std::string> variables_read_by(const JsonValue& entry);

}  // namespace mcph::config
