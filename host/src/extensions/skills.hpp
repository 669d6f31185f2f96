// The Skills extension (io.modelcontextprotocol/skills, SEP-2640), client side: skills/list
// entries, and lazy retrieval with verification on read.
//
// Lazy: nothing of a skill is fetched ahead of need — not at connect, not when listing, not at
// approval; load_skill reads SKILL.md when the application picks the skill, read_skill_file a
// supporting file when the loaded skill needs it. Verified: every read must match the entry's
// size and sha256 digest (skill_verify.hpp), a SKILL.md its frontmatter too; on any mismatch the
// skill is not loaded, its other files are never fetched, and the bytes read are dropped.
#pragma once

#include "extensions/frontmatter.hpp"

#include <mcph/json.hpp>
#include <mcph/types.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mcph::extensions {

// The extension's identifier: the key under capabilities.extensions on both sides.
inline constexpr const char* kSkillsExtension = "io.modelcontextprotocol/skills";

// What a client advertises for the extension: {"io.modelcontextprotocol/skills":{}}, to be merged
// into the client capabilities' "extensions" object.
Json skills_client_extensions();

// Does the server's capabilities object offer the extension (capabilities.extensions[id])?
bool server_offers_skills(const JsonValue& server_capabilities);

// SEP-2640 bounds a skill at 512 files and 16 MiB in all; a host holds servers to them.
struct SkillLimits {
    std::uint64_t max_skill_bytes = std::uint64_t{16} << 20;  // all files of a skill, as declared and as read
    std::size_t max_files_per_skill = 512;
    std::size_t max_skills = 10'000;
    FrontmatterLimits frontmatter;
};

// One request to the server and its result object; throws mcph::Error (the session's call).
using SkillCall = std::function<Json(const std::string& method, Json params)>;
using SkillWarn = std::function<void(const std::string& message)>;

// One skills/list entry, or nullopt (with the reason in `why`) when it lacks what verification
// needs: a uri, a frontmatter object, resources each with uri, digest and a byte size (or the
// string "dynamic"), at most limits.max_files_per_skill of them.
std::optional<Skill> parse_skill_entry(const std::string& server, const JsonValue& entry, const SkillLimits& limits,
                                       std::string& why);

// skills/list, following nextCursor (session/pagination.hpp). Malformed entries are skipped with
// a warning. Reads no skill file.
std::vector<Skill> list_skills(const std::string& server, const SkillCall& call, const SkillWarn& warn,
                               const SkillLimits& limits = {});

// skills/get: the entry of the one skill whose SKILL.md is `uri` (the result's "skill" object,
// parsed like a skills/list entry). Throws mcph::Error(Protocol) for a malformed entry or one
// for another uri; reads no skill file.
Skill get_skill(const std::string& server, const std::string& uri, const SkillCall& call, const SkillLimits& limits = {});

// Reads SKILL.md and verifies it (size, digest, frontmatter against the entry; a dynamic skill:
// frontmatter and the size cap). Refused before any read when the entry declares more than
// limits.max_skill_bytes in all. Throws mcph::Error(Protocol) naming the file and the mismatch;
// nothing else of the skill is read.
LoadedSkill load_skill(const Skill& skill, const SkillCall& call, const SkillLimits& limits = {});

// A file listed in the loaded skill's resources, read and verified the same way (SKILL.md itself
// is returned from the loaded copy). A uri the entry does not list is refused (ErrorKind::Usage)
// without a read: its content could not be verified. A dynamic skill reads any uri below its
// SKILL.md's directory (no "." or ".." segments), capped at limits.max_skill_bytes.
std::string read_skill_file(const LoadedSkill& skill, const std::string& uri, const SkillCall& call,
                            const SkillLimits& limits = {});

// The bytes of `uri` in a resources/read result (text as UTF-8, blob base64-decoded), refused
// past `max_bytes`. Throws mcph::Error(Protocol).
std::string resource_bytes(const JsonValue& read_result, const std::string& uri, std::uint64_t max_bytes);

}  // namespace mcph::extensions
