#include "session/era.hpp"

#include "json/json_access.hpp"
#include "session/protocol_version.hpp"

#include <mcph/bounded_json.hpp>

#include <algorithm>

namespace mcph::session {
namespace {

std::string joined(const std::vector<std::string>& versions) {
    std::string out;
    for (const auto& v : versions) out += (out.empty() ? "" : ", ") + v;
    return out;
}

}  // namespace

std::string client_versions(bool legacy_sse) {
    std::string out;
    for (auto v : kModernProtocolVersions) out += (out.empty() ? "" : ", ") + std::string(v);
    for (auto v : kSupportedProtocolVersions) out += ", " + std::string(v);
    if (legacy_sse) out += ", " + std::string(kLegacySseProtocolVersion);
    return out;
}

namespace {

std::vector<std::string> string_list(const JsonValue* array) {
    std::vector<std::string> out;
    if (!array || !array->IsArray()) return out;
    for (const JsonValue& v : array->GetArray()) {
        if (!v.IsString()) return {};
        out.emplace_back(v.GetString(), v.GetStringLength());
    }
    return out;
}

}  // namespace

const char* to_string(Era era) noexcept { return era == Era::Modern ? "modern" : "legacy"; }

bool is_modern_version(std::string_view version) {
    return std::find(kModernProtocolVersions.begin(), kModernProtocolVersions.end(), version) != kModernProtocolVersions.end();
}

ProtocolPreference parse_protocol_preference(const std::string& configured, bool legacy_sse_transport) {
    if (configured.empty() || configured == "auto") return {};
    if (is_modern_version(configured)) {
        if (legacy_sse_transport)
            throw Error(ErrorKind::Usage, "protocolVersion '" + configured +
                                              "' cannot be used over the legacy HTTP+SSE transport (it speaks 2024-11-05)");
        return {configured};
    }
    if (is_supported_protocol_version(configured, legacy_sse_transport)) return {configured};
    throw Error(ErrorKind::Usage, "protocolVersion '" + configured + "' is not one mcph speaks (\"auto\", " +
                                      client_versions(legacy_sse_transport) + ")");
}

std::optional<UnsupportedVersion> unsupported_version(const Error& e) {
    if (e.kind() != ErrorKind::Remote) return std::nullopt;
    if (e.code() != kUnsupportedProtocolVersionCode && e.code() != kUnsupportedProtocolVersionDraftCode) return std::nullopt;
    Json data;
    if (e.data_json().empty() || !json_bounds::parse(data, e.data_json()) || !data.IsObject()) return std::nullopt;
    UnsupportedVersion out;
    out.supported = string_list(json::array_member(data, "supported"));
    if (out.supported.empty()) return std::nullopt;  // not actionable: no evidence of a modern server
    out.requested = json::string_or(data, "requested");
    return out;
}

std::optional<std::string> mutual_modern_version(const std::vector<std::string>& server_versions) {
    for (auto mine : kModernProtocolVersions)
        if (std::find(server_versions.begin(), server_versions.end(), mine) != server_versions.end()) return std::string(mine);
    return std::nullopt;
}

ProbeVerdict classify_probe_result(const JsonValue& result, const std::string& server) {
    ProbeVerdict verdict;
    const std::vector<std::string> supported = string_list(json::array_member(result, "supportedVersions"));
    if (supported.empty() || !json::object_member(result, "capabilities")) return verdict;  // not a DiscoverResult
    if (auto mutual = mutual_modern_version(supported)) {
        verdict.kind = ProbeVerdict::Modern;
        verdict.version = *mutual;
        verdict.discover.CopyFrom(result, verdict.discover.GetAllocator());
        return verdict;
    }
    // A DiscoverResult listing only versions we do not speak as modern: it may still speak a
    // legacy one (a dual-era server), which initialize will tell.
    (void)server;
    return verdict;
}

ProbeVerdict classify_probe_error(const Error& e, bool stdio, const std::string& server) {
    ProbeVerdict verdict;
    if (auto refused = unsupported_version(e)) {
        if (auto mutual = mutual_modern_version(refused->supported)) {
            verdict.kind = ProbeVerdict::Corrective;
            verdict.version = *mutual;
            return verdict;
        }
        const bool lists_modern = std::any_of(refused->supported.begin(), refused->supported.end(), [](const std::string& v) {
            return v > std::string(kLatestModernProtocolVersion);  // a newer modern revision than ours
        });
        if (!lists_modern) return verdict;  // a legacy-only list: initialize will do
        verdict.kind = ProbeVerdict::Failed;
        verdict.error = Error(ErrorKind::Protocol, "server '" + server + "' speaks protocol versions " + joined(refused->supported) +
                                                       "; mcph speaks " + client_versions(false) + "; upgrade mcph or the server");
        return verdict;
    }
    switch (e.kind()) {
        case ErrorKind::Remote:  // any other JSON-RPC error, or an HTTP status without a modern error body
            return verdict;
        case ErrorKind::Timeout:
            if (stdio) return verdict;
            verdict.kind = ProbeVerdict::Failed;
            verdict.error = Error(ErrorKind::Connection, "server '" + server + "' did not answer server/discover: " + e.what());
            return verdict;
        default:
            verdict.kind = ProbeVerdict::Failed;
            verdict.error = e;
            return verdict;
    }
}

}  // namespace mcph::session
