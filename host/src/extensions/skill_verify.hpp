// Verification on read (SEP-2640 "Integrity and verification"): a skill file is used only when
// the bytes read match its skills/list entry — byte size first, then the sha256 digest — and a
// SKILL.md only when its frontmatter also matches the entry's, field by field. Every failure is
// mcph::Error(Protocol) naming the file and the mismatch; the caller then drops the content.
#pragma once

#include <mcph/json.hpp>
#include <mcph/types.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace mcph::extensions {

// Before any read: the entry is checkable (a "sha256:<64 hex>" digest) and its size is within
// `max_bytes`. A file that fails here is never fetched.
void check_entry_before_read(const SkillFile& entry, std::uint64_t max_bytes);

// After the read: `content` has exactly entry.size bytes (and at most `max_bytes`) and hashes to
// entry.digest.
void verify_content(const SkillFile& entry, std::string_view content, std::uint64_t max_bytes);

// The entry's frontmatter against the one parsed from SKILL.md: the same fields, each equal.
void compare_frontmatter(const JsonValue& entry, const JsonValue& file, const std::string& uri);

}  // namespace mcph::extensions
