#include "extensions/skills.hpp"

#include "extensions/skill_verify.hpp"
#include "json/json_access.hpp"
#include "session/pagination.hpp"

#include <mcph/error.hpp>

#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <climits>

namespace mcph::extensions {
namespace {

Json uri_params(const std::string& uri) {
    Json params(rapidjson::kObjectType);
    params.AddMember("uri", json::string_value(uri, params.GetAllocator()), params.GetAllocator());
    return params;
}

Json cursor_params(const std::string& cursor) {
    Json params(rapidjson::kObjectType);
    if (!cursor.empty()) params.AddMember("cursor", json::string_value(cursor, params.GetAllocator()), params.GetAllocator());
    return params;
}

// skill://<name>/SKILL.md → <name>: the name when the frontmatter has none to show.
std::string name_from_uri(const std::string& uri) {
    constexpr std::string_view kScheme = "skill://";
    if (uri.compare(0, kScheme.size(), kScheme) != 0) return uri;
    const std::size_t end = uri.find('/', kScheme.size());
    return uri.substr(kScheme.size(), end == std::string::npos ? std::string::npos : end - kScheme.size());
}

std::optional<SkillFile> parse_file(const JsonValue& v) {
    const JsonValue* size = json::member(v, "size");
    SkillFile file;
    file.uri = json::string_or(v, "uri");
    file.digest = json::string_or(v, "digest");
    if (file.uri.empty() || file.digest.empty() || !size || !size->IsUint64()) return std::nullopt;
    file.size = size->GetUint64();
    return file;
}

const SkillFile* listed(const Skill& skill, const std::string& uri) {
    for (const SkillFile& f : skill.files)
        if (f.uri == uri) return &f;
    return nullptr;
}

// base64 (RFC 4648, padded) through OpenSSL, which mcph links already.
std::string decode_base64(std::string_view in, const std::string& uri) {
    if (in.size() % 4 != 0 || in.size() > static_cast<std::size_t>(INT_MAX))
        throw Error(ErrorKind::Protocol, "skill file '" + uri + "': blob is not padded base64");
    std::string out(in.size() / 4 * 3, '\0');
    const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                  reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
    if (n < 0) throw Error(ErrorKind::Protocol, "skill file '" + uri + "': blob is not valid base64");
    std::size_t padding = 0;
    for (std::size_t i = in.size(); i > 0 && in[i - 1] == '=' && padding < 2; --i) ++padding;
    out.resize(static_cast<std::size_t>(n) - padding);
    return out;
}

// Reads one listed file and verifies it; the bytes leave only when they match the entry.
std::string fetch_verified(const SkillFile& entry, const SkillCall& call, const SkillLimits& limits) {
    check_entry_before_read(entry, limits.max_skill_bytes);
    Json result = call("resources/read", uri_params(entry.uri));
    std::string bytes = resource_bytes(result, entry.uri, limits.max_skill_bytes);
    verify_content(entry, bytes, limits.max_skill_bytes);
    return bytes;
}

// A dynamic skill's file: no digest to check, only the cap.
std::string fetch_capped(const std::string& uri, const SkillCall& call, const SkillLimits& limits) {
    Json result = call("resources/read", uri_params(uri));
    return resource_bytes(result, uri, limits.max_skill_bytes);
}

constexpr std::string_view kSkillMdSuffix = "/SKILL.md";

// Is `uri` below the directory of the skill whose SKILL.md is `skill_uri`, with no "." or ".."
// segment that could lead out of it (nor an encoded dot the server might decode into one)?
bool within_skill(const std::string& skill_uri, const std::string& uri) {
    if (skill_uri.size() <= kSkillMdSuffix.size() ||
        skill_uri.compare(skill_uri.size() - kSkillMdSuffix.size(), kSkillMdSuffix.size(), kSkillMdSuffix) != 0)
        return false;
    const std::string dir = skill_uri.substr(0, skill_uri.size() - kSkillMdSuffix.size() + 1);  // keeps the '/'
    if (uri.size() <= dir.size() || uri.compare(0, dir.size(), dir) != 0) return false;
    std::string rest = uri.substr(dir.size());
    for (char& c : rest) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (rest.find("%2e") != std::string::npos) return false;
    for (std::size_t start = 0;;) {
        const std::size_t end = rest.find('/', start);
        const std::string_view segment(rest.data() + start, (end == std::string::npos ? rest.size() : end) - start);
        if (segment == "." || segment == "..") return false;
        if (end == std::string::npos) return true;
        start = end + 1;
    }
}

// The sum of the declared sizes, saturating (a server may declare 2^64-1 bytes per file).
std::uint64_t declared_total(const Skill& skill) {
    constexpr std::uint64_t kSaturated = std::uint64_t{1} << 62;
    std::uint64_t total = 0;
    for (const SkillFile& f : skill.files) total = std::min(total + std::min(f.size, kSaturated), kSaturated);
    return total;
}

}  // namespace

Json skills_client_extensions() {
    Json extensions(rapidjson::kObjectType);
    extensions.AddMember(rapidjson::StringRef(kSkillsExtension), JsonValue(rapidjson::kObjectType), extensions.GetAllocator());
    return extensions;
}

bool server_offers_skills(const JsonValue& server_capabilities) {
    const JsonValue* extensions = json::object_member(server_capabilities, "extensions");
    return extensions && json::object_member(*extensions, kSkillsExtension);
}

std::optional<Skill> parse_skill_entry(const std::string& server, const JsonValue& entry, const SkillLimits& limits,
                                       std::string& why) {
    Skill skill;
    skill.server = server;
    skill.uri = json::string_or(entry, "uri");
    if (skill.uri.empty()) {
        why = "an entry has no uri";
        return std::nullopt;
    }
    const JsonValue* frontmatter = json::object_member(entry, "frontmatter");
    const JsonValue* resources = json::member(entry, "resources");
    skill.dynamic = resources && json::view(*resources) == "dynamic";
    if (!frontmatter || !resources || !(resources->IsArray() || skill.dynamic)) {
        why = "entry '" + skill.uri + "' has no frontmatter object, or resources neither an array nor \"dynamic\"";
        return std::nullopt;
    }
    if (skill.dynamic) resources = nullptr;
    if (resources && resources->Size() > limits.max_files_per_skill) {
        why = "entry '" + skill.uri + "' lists more than " + std::to_string(limits.max_files_per_skill) + " files";
        return std::nullopt;
    }
    if (resources) {
        for (const JsonValue& r : resources->GetArray()) {
            std::optional<SkillFile> file = parse_file(r);
            if (!file) {
                why = "entry '" + skill.uri + "' has a resource without uri, digest or byte size";
                return std::nullopt;
            }
            skill.files.push_back(std::move(*file));
        }
    }
    skill.frontmatter = to_json(*frontmatter);
    skill.name = json::string_or(*frontmatter, "name", name_from_uri(skill.uri));
    skill.description = json::string_or(*frontmatter, "description");
    return skill;
}

std::vector<Skill> list_skills(const std::string& server, const SkillCall& call, const SkillWarn& warn,
                               const SkillLimits& limits) {
    std::vector<Skill> out;
    bool capped = false;
    const std::string what = "skills/list from '" + server + "'";
    session::for_each_page_item(
        what, "skills", [&](const std::string& cursor) { return call("skills/list", cursor_params(cursor)); },
        [](const JsonValue& item) { return std::optional<std::string>(json::string_or(item, "uri")); },
        [&](const JsonValue& item) {
            if (out.size() >= limits.max_skills) {
                if (!capped) warn(what + ": more than " + std::to_string(limits.max_skills) + " skills; the rest are ignored");
                capped = true;
                return;
            }
            std::string why;
            if (auto skill = parse_skill_entry(server, item, limits, why))
                out.push_back(std::move(*skill));
            else
                warn(what + ": skipped: " + why);
        },
        warn);
    return out;
}

Skill get_skill(const std::string& server, const std::string& uri, const SkillCall& call, const SkillLimits& limits) {
    const Json result = call("skills/get", uri_params(uri));
    const std::string what = "skills/get of '" + uri + "' from '" + server + "'";
    const JsonValue* entry = json::object_member(result, "skill");
    if (!entry) throw Error(ErrorKind::Protocol, what + ": result has no skill object");
    std::string why;
    std::optional<Skill> skill = parse_skill_entry(server, *entry, limits, why);
    if (!skill) throw Error(ErrorKind::Protocol, what + ": " + why);
    if (skill->uri != uri) throw Error(ErrorKind::Protocol, what + ": the entry is for '" + skill->uri + "'");
    return std::move(*skill);
}

LoadedSkill load_skill(const Skill& skill, const SkillCall& call, const SkillLimits& limits) {
    const SkillFile* entry = listed(skill, skill.uri);
    const std::string not_loaded = "skill '" + skill.name + "' not loaded: ";
    if (!entry && !skill.dynamic)
        throw Error(ErrorKind::Protocol, not_loaded + "its SKILL.md '" + skill.uri +
                                             "' is not among the entry's resources, so it cannot be verified");
    if (const std::uint64_t total = declared_total(skill); total > limits.max_skill_bytes)
        throw Error(ErrorKind::Protocol, not_loaded + "its entry declares " + std::to_string(total) +
                                             " bytes in all, over the " + std::to_string(limits.max_skill_bytes) +
                                             "-byte cap for a skill");
    LoadedSkill loaded;
    try {
        loaded.content = entry ? fetch_verified(*entry, call, limits) : fetch_capped(skill.uri, call, limits);
        const SplitSkillFile split = split_frontmatter(loaded.content, skill.uri, limits.frontmatter);
        const Json from_file = parse_frontmatter(split.yaml, skill.uri, limits.frontmatter);
        const Json from_entry = parse_json(skill.frontmatter, "skill entry frontmatter");
        compare_frontmatter(from_entry, from_file, skill.uri);
        loaded.body = std::string(split.body);
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::Protocol) throw;
        throw Error(ErrorKind::Protocol, not_loaded + e.what());
    }
    loaded.skill = skill;
    return loaded;
}

std::string read_skill_file(const LoadedSkill& skill, const std::string& uri, const SkillCall& call,
                            const SkillLimits& limits) {
    if (uri == skill.skill.uri) return skill.content;
    const SkillFile* entry = listed(skill.skill, uri);
    if (!entry && skill.skill.dynamic && within_skill(skill.skill.uri, uri)) return fetch_capped(uri, call, limits);
    if (!entry)
        throw Error(ErrorKind::Usage, "'" + uri + "' is not one of skill '" + skill.skill.name +
                                          "''s listed files: its content could not be verified, so it is not read");
    return fetch_verified(*entry, call, limits);
}

std::string resource_bytes(const JsonValue& read_result, const std::string& uri, std::uint64_t max_bytes) {
    const JsonValue* contents = json::array_member(read_result, "contents");
    if (!contents) throw Error(ErrorKind::Protocol, "resources/read of skill file '" + uri + "': result has no contents array");
    for (const JsonValue& c : contents->GetArray()) {
        if (json::string_or(c, "uri") != uri) continue;
        const JsonValue* text = json::member(c, "text");
        const JsonValue* blob = json::member(c, "blob");
        const JsonValue* chosen = text && text->IsString() ? text : blob && blob->IsString() ? blob : nullptr;
        if (!chosen) break;
        // Refused before decoding: a blob's bytes are at most 3/4 of its length.
        const std::uint64_t bound = chosen == text ? chosen->GetStringLength() : chosen->GetStringLength() / 4 * 3;
        if (bound > max_bytes + (chosen == blob ? 2 : 0))
            throw Error(ErrorKind::Protocol, "skill file '" + uri + "' is over the " + std::to_string(max_bytes) +
                                                 "-byte cap for a skill file");
        if (chosen == text) return std::string(json::view(*text));
        return decode_base64(json::view(*blob), uri);
    }
    throw Error(ErrorKind::Protocol, "resources/read of skill file '" + uri + "' returned no text or blob for that uri");
}

}  // namespace mcph::extensions
