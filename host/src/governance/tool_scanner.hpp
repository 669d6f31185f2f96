// The tool-poisoning scanner: a tool definition (name, title, description, every string and
// property name of its input/output schemas and annotations) and a server's instructions → typed
// findings. A description is text for the model, so a server can hide instructions there that the
// person approving never sees; the findings make them visible in `mcph tools`, `status`, at
// `approve`, through the API, and let policy withhold flagged tools ("withholdFlaggedTools").
// Pure functions over strings: the fuzz target calls scan_tool directly.
#pragma once

#include "governance/text_scanner.hpp"

#include <mcph/findings.hpp>
#include <mcph/types.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mcph::governance {

// Lengths past which a person reviewing a tool will not read everything (the over-long finding).
// Descriptions of real tools stay well under 4 KiB; a name is an identifier.
inline constexpr std::size_t kMaxNameBytes = 128;
inline constexpr std::size_t kMaxTitleBytes = 256;
inline constexpr std::size_t kMaxDescriptionBytes = 4096;
inline constexpr std::size_t kMaxSchemaStringBytes = 1024;
inline constexpr std::size_t kMaxInstructionsBytes = 8192;
// At most this many findings per tool: a schema of ten thousand poisoned properties gives a bounded
// list (the tool is flagged all the same).
inline constexpr std::size_t kMaxFindingsPerTool = 64;

// The strings of a tool definition, as the server sent them (schemas and annotations as JSON text).
struct ToolText {
    std::string_view name;
    std::string_view title;
    std::string_view description;
    std::string_view input_schema;
    std::string_view output_schema;
    std::string_view annotations;
};

ToolText tool_text(const Tool& tool);

std::vector<Finding> scan_tool(const ToolText& tool, const ScanContext& context = {});
// How many times scan_tool has run in this process: an observer for the tests that prove the host
// scans once per change of a tool list, not once per call (a relaxed counter, nothing more).
std::uint64_t tool_scans();
// A server's instructions (and likewise a prompt's or resource's description) as one text.
std::vector<Finding> scan_instructions(std::string_view text, const ScanContext& context = {});

// The names by which `own` (one server's tools) could refer to `others` (every other server's):
// mapped names (mcp__s__t), "s/t", and distinctive original names — at least 5 characters with a
// '_' or '-' (send_email, create-issue): a plain word such as "search" is too common in ordinary
// text to count as a reference. A name `own` also has is not foreign.
ScanContext foreign_context(const std::vector<Tool>& own, const std::vector<Tool>& others);

}  // namespace mcph::governance
