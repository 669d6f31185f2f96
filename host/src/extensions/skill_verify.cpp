#include "extensions/skill_verify.hpp"

#include "json/json_access.hpp"
#include "tools/sha256.hpp"

#include <mcph/error.hpp>

#include <algorithm>
#include <cctype>

namespace mcph::extensions {
namespace {

constexpr std::string_view kSha256Prefix = "sha256:";
constexpr std::size_t kSha256HexLength = 64;
constexpr std::size_t kShownValueChars = 120;  // a mismatching value in a message, shortened

Error mismatch(const std::string& uri, const std::string& why) {
    return Error(ErrorKind::Protocol, "skill file '" + uri + "' failed verification: " + why);
}

// The digest's hex in lower case, or empty when it is not "sha256:<64 hex>".
std::string sha256_hex_of(const std::string& digest) {
    if (digest.size() != kSha256Prefix.size() + kSha256HexLength || digest.compare(0, kSha256Prefix.size(), kSha256Prefix) != 0)
        return {};
    std::string hex = digest.substr(kSha256Prefix.size());
    for (char& c : hex) {
        if (!std::isxdigit(static_cast<unsigned char>(c))) return {};
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return hex;
}

std::string shown(const JsonValue* v) {
    if (!v) return "absent";
    std::string text = to_json(*v);
    if (text.size() > kShownValueChars) text = text.substr(0, kShownValueChars) + "...";
    return text;
}

// By the whole name (a key may hold a NUL, which FindMember(const char*) would cut at).
const JsonValue* find(const JsonValue& object, const JsonValue& name) {
    auto it = object.FindMember(name);
    return it == object.MemberEnd() ? nullptr : &it->value;
}

}  // namespace

void check_entry_before_read(const SkillFile& entry, std::uint64_t max_bytes) {
    if (sha256_hex_of(entry.digest).empty())
        throw mismatch(entry.uri, "its entry's digest '" + entry.digest.substr(0, 80) +
                                      "' is not sha256:<64 hex digits>, so the content cannot be checked");
    if (entry.size > max_bytes)
        throw mismatch(entry.uri, "its entry declares " + std::to_string(entry.size) + " bytes, over the " +
                                      std::to_string(max_bytes) + "-byte cap for a skill file");
}

void verify_content(const SkillFile& entry, std::string_view content, std::uint64_t max_bytes) {
    check_entry_before_read(entry, max_bytes);
    // The size decides first: a length that differs is a failure whatever the digest says.
    if (content.size() != entry.size)
        throw mismatch(entry.uri, "size mismatch: read " + std::to_string(content.size()) + " bytes, the entry declares " +
                                      std::to_string(entry.size));
    const std::string expected = sha256_hex_of(entry.digest);
    const std::string actual = tools::sha256_hex(content);
    if (actual != expected)
        throw mismatch(entry.uri, "digest mismatch: content is sha256:" + actual + ", the entry declares sha256:" + expected);
}

void compare_frontmatter(const JsonValue& entry, const JsonValue& file, const std::string& uri) {
    if (!entry.IsObject() || !file.IsObject()) throw mismatch(uri, "frontmatter is not an object on both sides");
    auto differ = [&](const std::string& field, const JsonValue* in_entry, const JsonValue* in_file) {
        return mismatch(uri, "frontmatter field '" + field + "' is " + shown(in_file) + " in SKILL.md but " +
                                 shown(in_entry) + " in the skills/list entry");
    };
    for (const auto& m : entry.GetObject()) {
        const std::string field(m.name.GetString(), m.name.GetStringLength());
        const JsonValue* other = find(file, m.name);
        if (!other || *other != m.value) throw differ(field, &m.value, other);
    }
    for (const auto& m : file.GetObject()) {
        if (!find(entry, m.name)) throw differ(std::string(m.name.GetString(), m.name.GetStringLength()), nullptr, &m.value);
    }
}

}  // namespace mcph::extensions
