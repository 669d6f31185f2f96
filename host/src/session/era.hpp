// Protocol eras. "Modern" revisions (2026-07-28 on) are stateless: every request carries its
// version, capabilities and identity in _meta and there is no initialize handshake. "Legacy"
// revisions (2025-11-25 back to 2024-11-05) open a session with initialize. A dual-era client
// finds a server's era by probing with server/discover and classifying what comes back.
#pragma once

#include <mcph/error.hpp>
#include <mcph/json.hpp>

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcph::session {

enum class Era { Legacy, Modern };

const char* to_string(Era era) noexcept;

// Modern versions this client speaks, in preference order.
inline constexpr std::array<std::string_view, 1> kModernProtocolVersions = {"2026-07-28"};
inline constexpr std::string_view kLatestModernProtocolVersion = "2026-07-28";

bool is_modern_version(std::string_view version);

// Every version mcph speaks, newest first, for messages ("2026-07-28, 2025-11-25, ...").
std::string client_versions(bool legacy_sse_transport);

// JSON-RPC error codes the modern revision defines (-32020..-32099 are reserved for the spec).
inline constexpr int kHeaderMismatchCode = -32020;
inline constexpr int kMissingRequiredClientCapabilityCode = -32021;
inline constexpr int kUnsupportedProtocolVersionCode = -32022;
// The same error under the number drafts and early SDKs used; recognised only with a valid
// data.supported list, never by the number alone.
inline constexpr int kUnsupportedProtocolVersionDraftCode = -32004;

// The server config's `protocolVersion`: "auto" (default: the newest era the server speaks), or
// one version pinned.
struct ProtocolPreference {
    std::string pinned;  // empty: auto
    bool automatic() const { return pinned.empty(); }
    bool pins_modern() const { return !pinned.empty() && is_modern_version(pinned); }
};

// Throws Error(Usage) for a version mcph does not speak.
ProtocolPreference parse_protocol_preference(const std::string& configured, bool legacy_sse_transport);

// UnsupportedProtocolVersionError's data: the versions the server supports and the one refused.
struct UnsupportedVersion {
    std::vector<std::string> supported;
    std::string requested;
};
// The error, when `e` is one (code -32022, or -32004, with a non-empty string list in data.supported).
std::optional<UnsupportedVersion> unsupported_version(const Error& e);

// The first modern version both sides speak, if any.
std::optional<std::string> mutual_modern_version(const std::vector<std::string>& server_versions);

// What a server/discover probe showed.
struct ProbeVerdict {
    enum Kind {
        Modern,      // a DiscoverResult with a mutual version: `version`, `discover`
        Corrective,  // UnsupportedProtocolVersion listing a mutual modern version: probe again at `version`
        Legacy,      // anything not positively modern: fall back to initialize
        Failed,      // a connection failure or a modern server with no mutual version: `error`
    } kind = Legacy;
    std::string version;
    Json discover;
    std::optional<Error> error;
};

// A DiscoverResult answer.
ProbeVerdict classify_probe_result(const JsonValue& result, const std::string& server);
// A probe that failed. `stdio`: silence means legacy there (a legacy server may ignore an unknown
// request before initialize); over HTTP a deployed server answers, so a timeout is an outage.
ProbeVerdict classify_probe_error(const Error& e, bool stdio, const std::string& server);

}  // namespace mcph::session
