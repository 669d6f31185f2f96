#include "session/protocol_version.hpp"

#include <algorithm>

namespace mcph::session {

bool is_supported_protocol_version(std::string_view version, bool legacy_sse_transport) {
    if (legacy_sse_transport && version == kLegacySseProtocolVersion) return true;
    return std::find(kSupportedProtocolVersions.begin(), kSupportedProtocolVersions.end(), version) !=
           kSupportedProtocolVersions.end();
}

}  // namespace mcph::session
