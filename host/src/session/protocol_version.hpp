// MCP protocol versions this client speaks, newest first.
#pragma once

#include <array>
#include <string_view>

namespace mcph::session {

inline constexpr std::string_view kLatestProtocolVersion = "2025-11-25";
inline constexpr std::array<std::string_view, 3> kSupportedProtocolVersions = {"2025-11-25", "2025-06-18",
                                                                               "2025-03-26"};

// True if the server's answer to initialize is a version we can continue with.
bool is_supported_protocol_version(std::string_view version);

}  // namespace mcph::session
