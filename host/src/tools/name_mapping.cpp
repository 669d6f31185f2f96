#include "tools/name_mapping.hpp"

#include "tools/sha256.hpp"

namespace mcph::tools {
namespace {

constexpr std::string_view kPrefix = "mcp__";
constexpr std::string_view kSeparator = "__";
constexpr std::size_t kHashHexDigits = 16;
constexpr std::size_t kSuffixLength = 2 + kHashHexDigits;  // "_h" + hex

bool is_clean_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

bool is_lower_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

// Does `name` end in "_h" + 16 lowercase hex digits, the mark of an encoded name?
bool has_encoding_suffix(std::string_view name) {
    if (name.size() < kSuffixLength) return false;
    std::string_view tail = name.substr(name.size() - kSuffixLength);
    if (tail[0] != '_' || tail[1] != 'h') return false;
    for (char c : tail.substr(2))
        if (!is_lower_hex(c)) return false;
    return true;
}

bool verbatim_allowed(std::string_view server, std::string_view tool, std::string_view candidate) {
    if (server.empty() || tool.empty()) return false;
    if (sanitize_name_part(server) != server || sanitize_name_part(tool) != tool) return false;
    if (server.find(kSeparator) != std::string_view::npos || server.back() == '_') return false;
    if (candidate.size() > kMaxMappedNameLength) return false;
    return !has_encoding_suffix(candidate);
}

}  // namespace

std::string sanitize_name_part(std::string_view part) {
    std::string out(part);
    for (char& c : out)
        if (!is_clean_char(c)) c = '_';
    return out;
}

std::string map_tool_name(std::string_view server, std::string_view tool) {
    std::string candidate;
    candidate.reserve(kPrefix.size() + server.size() + kSeparator.size() + tool.size());
    candidate.append(kPrefix).append(sanitize_name_part(server)).append(kSeparator).append(sanitize_name_part(tool));
    if (verbatim_allowed(server, tool, candidate)) return candidate;

    // Length-prefixed, so the pair is recoverable even when a name itself contains NUL.
    std::string identity = std::to_string(server.size());
    identity.push_back(':');
    identity.append(server).append(tool);
    std::string hash = sha256_hex(identity).substr(0, kHashHexDigits);
    candidate.resize(std::min(candidate.size(), kMaxMappedNameLength - kSuffixLength));
    return candidate + "_h" + hash;
}

bool is_mapped_tool_name(std::string_view name) { return name.substr(0, kPrefix.size()) == kPrefix; }

}  // namespace mcph::tools
