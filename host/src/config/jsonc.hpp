// JSON with comments and trailing commas ("JSONC"), for configuration files people write by hand:
// VS Code's mcp.json and settings are JSONC, and users copy their habits into .mcp.json,
// --mcp-config files and mcph's own settings. Wire JSON (JSON-RPC, plugin answers, web services)
// stays strict: only files a person edits go through here.
//
// RapidJSON does this itself (kParseCommentsFlag, kParseTrailingCommasFlag), in the same
// depth-bounded parse as every other input (mcph/bounded_json.hpp), so a config file
// keeps the 128-level bound and the file-size bound of file_read.hpp.
#pragma once

#include <mcph/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace mcph::config {

// Parses `text` as JSONC: `//` and `/* */` comments, a trailing comma before `]` or `}`. Throws
// mcph::Error(Usage) "<origin>: malformed JSON at offset N (line L, column C): <reason>".
Json parse_config_json(std::string_view text, const std::string& origin);

// 1-based line and column of byte `offset` in `text` (columns count bytes): where an editor
// puts the cursor for an error.
struct TextPosition {
    std::size_t line = 1;
    std::size_t column = 1;
};
TextPosition position_of(std::string_view text, std::size_t offset);

}  // namespace mcph::config
