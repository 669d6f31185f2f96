// Tool names as the model sees them: mcp__{server}__{tool}.
//
// Characters outside [A-Za-z0-9_-] become '_'; the original name is kept for the call. A name is
// used verbatim only when that mapping is exact and reversible: both parts were already clean,
// the server part holds no "__" and does not end in '_' (so "mcp__" + server + "__" splits in one
// way only), the tool part is not empty, the whole fits in 64 characters, and it does not end in
// an encoding suffix. Every other name is shortened to fit and gets "_h" + 16 hex digits of
// SHA-256(len(server) ':' server tool) (length-prefixed: names may contain NUL). Verbatim and
// encoded names are therefore disjoint sets; two verbatim names cannot collide; two encoded names
// collide only if 64 bits of SHA-256 do — and the caller (Host) still checks, so a collision is
// an explicit error, never a silent mix-up.
#pragma once

#include <string>
#include <string_view>

namespace mcph::tools {

inline constexpr std::size_t kMaxMappedNameLength = 64;

// Replaces each character outside [A-Za-z0-9_-] with '_'.
std::string sanitize_name_part(std::string_view part);

// The exposed name of `tool` on `server`. Deterministic.
std::string map_tool_name(std::string_view server, std::string_view tool);

// True if `name` is an mcp__ name (verbatim or encoded).
bool is_mapped_tool_name(std::string_view name);

}  // namespace mcph::tools
