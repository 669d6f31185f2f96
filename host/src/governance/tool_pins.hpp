// The rug-pull guard: when the user approves a server's tools, each tool's definition is pinned by
// hash; if the server later changes a definition (a harmless "read_file" that now also uploads, a
// description with new instructions for the model), the tool is withheld until approved again,
// rather than silently offered to the model in its new form.
#pragma once

#include <mcph/types.hpp>

#include <map>
#include <string>
#include <vector>

namespace mcph::governance {

// sha256 of the canonical JSON (keys sorted recursively, no whitespace) of {name, title,
// description, inputSchema, outputSchema, annotations}. The title is included: it is what the
// person approving reads, so changing it changes what was approved. Absent optional parts are null;
// text that is not valid JSON is hashed as a string, so it still counts.
std::string tool_pin_hash(const Tool& tool);

struct WithheldTool {
    enum class Reason { Changed, New };
    Tool tool;
    Reason reason = Reason::Changed;
    // "tool 'x' of server 's' changed since it was approved: approve it again to use it"
    std::string describe() const;
};

struct ToolReview {
    std::vector<Tool> allowed;          // unchanged, in input order
    std::vector<WithheldTool> withheld;  // in input order
};

// `pins` maps one server's tool names (Tool::name, as the server knows it) to tool_pin_hash. No
// pins at all means nothing was approved yet (trust on first use is the caller's decision): every
// tool is allowed. Otherwise a tool whose hash differs is withheld as Changed, and a tool with no
// pin as New. Pinned tools the server no longer lists are simply absent.
ToolReview review_tools(const std::vector<Tool>& tools, const std::map<std::string, std::string>& pins);

// The pins to store when the user approves `tools` (one server's list).
std::map<std::string, std::string> pin_tools(const std::vector<Tool>& tools);

}  // namespace mcph::governance
