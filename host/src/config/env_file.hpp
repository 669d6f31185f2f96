// "envFile": a dotenv file of KEY=VALUE lines whose variables a stdio server also receives (VS Code's
// and Cursor's mcp.json key). The file is read when the server is started — so only once the server
// passed approval and policy, never at load time — and only the one file its definition names:
// for a project server, a path whose symlinks lead out of the project is refused (a committed
// `.env -> ~/.aws/credentials` must not ship the user's secrets to the server).
//
// Order: the definition's own "env" wins over the file (the file fills in only names "env" does not
// set), and both are added to the allow-listed environment the stdio plugin passes on.
//
// Shape (the dotenv files people have): blank lines and lines starting with '#' are ignored; an
// optional "export " prefix; KEY is [A-Za-z_][A-Za-z0-9_.-]*; VALUE unquoted (trailing " #comment"
// and surrounding spaces dropped), 'single-quoted' (literal) or "double-quoted" (with the escapes
// \n \r \t \" and \\). No ${...} expansion inside the file and no multi-line values: a line
// that fits none of this is an error naming its number.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcph::config {

// 1 MiB: a dotenv file is a few dozen lines; anything near this is not one.
inline constexpr std::size_t kMaxEnvFileBytes = std::size_t{1} << 20;

// The variables of `text` in file order (a later duplicate replaces an earlier one). Throws
// mcph::Error(Usage) "<origin> line N: <why>".
std::vector<std::pair<std::string, std::string>> parse_env_file(std::string_view text, const std::string& origin);

// Returns the stdio `config_json` with the "envFile" it names merged into "env" (names "env"
// already sets are kept), and "envFile" removed; unchanged when it has none. A relative path is
// taken from the definition's "cwd" when that is absolute, else from the current directory. When
// `confined_to` is not empty the file must resolve inside it. Throws mcph::Error(Usage) naming the
// server and the file: missing, untrusted (file_trust.hpp), too large, malformed.
std::string apply_env_file(const std::string& server_name, const std::string& config_json,
                           const std::filesystem::path& confined_to = {});

}  // namespace mcph::config
