// One string of server text → findings: hidden characters (control, invalid UTF-8, invisible,
// tag, bidi), length past a bound, text aimed at the model (instruction markers), credential file
// names and other servers' tool names. A pure function over strings (fuzzed; see tool_scanner.hpp
// for whole tools).
#pragma once

#include <mcph/findings.hpp>

#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace mcph::governance {

// Names that belong to other servers: their tools' mapped names (mcp__other__send_email), their
// "server/tool" forms, and their distinctive original names (see foreign_names in tool_scanner).
struct ScanContext {
    std::set<std::string, std::less<>> foreign_names;
};

// Where a string sits and how long it may be before it counts as over-long.
struct TextSite {
    FindingField field = FindingField::Description;
    std::string path;  // JSON Pointer inside a schema / annotations
    bool in_key = false;
    std::size_t max_bytes = 0;  // 0: no length bound
};

// Appends one Finding per kind present in `text` (first offset, count, excerpt).
void scan_text(std::string_view text, const TextSite& site, const ScanContext& context, std::vector<Finding>& out);

}  // namespace mcph::governance
