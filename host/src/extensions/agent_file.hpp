// One sub-agent definition file (docs/agents.md): Markdown with a YAML frontmatter block, the shape
// of Claude Code's .claude/agents/*.md —
//
//   ---
//   name: reviewer
//   description: Reviews pull requests
//   tools: Read, Grep            # or a YAML list; kept as written
//   mcpServers:
//     - github                   # a reference: the parent's server of that name, its connection shared
//     - jira:                    # an inline definition (Claude Code's map-in-list form)
//         command: jira-mcp
//     - name: notes              # the same, as one object naming itself
//       type: http
//       url: https://notes.example/mcp
//   ---
//   You are a careful reviewer...
//
// `mcpServers` may also be a mapping {name: config, ...} (every entry inline). The YAML is parsed
// by yaml-cpp (Debian's libyaml-cpp); everything about the file is bounded (AgentFileLimits), and
// every problem names the line it is at.
#pragma once

#include <mcph/host.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace mcph::extensions {

struct AgentFileLimits {
    std::size_t max_file_bytes = 256 * 1024;       // the whole file: a sub-agent prompt, not a book
    std::size_t max_frontmatter_bytes = 64 * 1024; // the YAML between the '---' lines
    std::size_t max_nodes = 10'000;                // after alias expansion (a "billion laughs" stops here)
    std::size_t max_depth = 32;
    std::size_t max_servers = 64;  // mcpServers entries
    std::size_t max_name = 64;     // agent and inline server names
};

struct AgentFileResult {
    std::optional<AgentDefinition> agent;  // set when the file is usable
    int line = 0;                          // the problem's 1-based line (0: not at one line)
    std::string error;                     // why the file cannot be used
};

// Parses the text of an agent file; `origin` names it in messages. The agent's source, origin and
// approval are for the caller to fill in. Never throws for a problem in the text.
AgentFileResult parse_agent_file(std::string_view text, const std::string& origin, const AgentFileLimits& limits = {});

// Agent and inline server names: 1..max_name of [A-Za-z0-9._-], not starting with '.' or '-'
// (they appear in file names, mapped tool names and messages).
bool valid_agent_name(std::string_view name, std::size_t max_name = AgentFileLimits{}.max_name);

}  // namespace mcph::extensions
