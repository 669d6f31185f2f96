// The rug-pull guard: when the user approves a server's tools, each tool's definition is pinned by
// hash; if the server later changes a definition (a harmless "read_file" that now also uploads, a
// description with new instructions for the model), the tool is withheld until approved again,
// rather than silently offered to the model in its new form.
#pragma once

#include <mcph/types.hpp>

#include <map>
#include <string>
#include <string_view>
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

// `pins` maps one server's tool names (Tool::name, as the server knows it) to tool_pin_hash: the
// explicit pin set of an approval, possibly empty (the server listed nothing, or was unreachable,
// when the user approved it). A tool whose hash differs is withheld as Changed, a tool with no pin
// as New — also when the set is empty: nothing is pinned behind the user's back. Pinned tools the
// server no longer lists are simply absent. (A server nobody approved has no pin set; the caller
// does not review its tools.)
ToolReview review_tools(const std::vector<Tool>& tools, const std::map<std::string, std::string>& pins);

// The pins to store when the user approves `tools` (one server's list).
std::map<std::string, std::string> pin_tools(const std::vector<Tool>& tools);

// The other things a server puts in front of the model, pinned the same way at approval: prompts
// (name, title, description, arguments), resources (uri, name, title, description, mime type) and
// the initialize instructions.
std::string prompt_pin_hash(const Prompt& prompt);
std::string resource_pin_hash(const Resource& resource);
std::string instructions_pin_hash(const std::string& instructions);
std::map<std::string, std::string> pin_prompts(const std::vector<Prompt>& prompts);
std::map<std::string, std::string> pin_resources(const std::vector<Resource>& resources);  // by URI

// Something other than a tool that differs from what was approved.
struct PinnedChange {
    enum class Kind { Instructions, Prompt, Resource };
    Kind kind = Kind::Prompt;
    std::string name;  // prompt name or resource URI; empty for the instructions
    bool is_new = false;  // listed now, not at approval (else: changed)
};
std::string_view kind_name(PinnedChange::Kind kind);  // "instructions" | "prompt" | "resource"

// Each prompt and resource whose hash differs from its pin or that has none, and the instructions
// when their hash differs, in that order: instructions, prompts, resources.
std::vector<PinnedChange> review_pinned_items(const std::map<std::string, std::string>& prompt_pins,
                                              const std::map<std::string, std::string>& resource_pins,
                                              const std::string& instructions_pin, const std::vector<Prompt>& prompts,
                                              const std::vector<Resource>& resources, const std::string& instructions);

}  // namespace mcph::governance
