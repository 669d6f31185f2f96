// MCP protocol versions this client speaks, newest first.
#pragma once

#include <array>
#include <string_view>

namespace mcph::session {

inline constexpr std::string_view kLatestProtocolVersion = "2025-11-25";
inline constexpr std::array<std::string_view, 3> kSupportedProtocolVersions = {"2025-11-25", "2025-06-18",
                                                                               "2025-03-26"};

// The legacy HTTP+SSE transport's own version, accepted only over that transport.
inline constexpr std::string_view kLegacySseProtocolVersion = "2024-11-05";

// True if the server's answer to initialize is a version we can continue with. 2024-11-05 is
// accepted only when `legacy_sse_transport` (the transport of that era).
bool is_supported_protocol_version(std::string_view version, bool legacy_sse_transport = false);

}  // namespace mcph::session
