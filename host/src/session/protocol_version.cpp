#include "session/protocol_version.hpp"

#include <algorithm>

namespace mcph::session {

bool is_supported_protocol_version(std::string_view version) {
    return std::find(kSupportedProtocolVersions.begin(), kSupportedProtocolVersions.end(), version) !=
           kSupportedProtocolVersions.end();
}

}  // namespace mcph::session
