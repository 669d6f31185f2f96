// Plain data types of the public API: what a server offers and what a call returns.
#pragma once

#include <mcph/export.hpp>
#include <mcph/findings.hpp>
#include <mcph/json.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mcph {

struct Implementation {
    std::string name;
    std::string version;
    std::string title;
};

struct Tool {
    std::string server;         // the server's configured name
    std::string name;           // the original name, as the server knows it (used for the call)
    std::string mapped_name;    // mcp__{server}__{tool}, unique across the host
    std::string title;
    std::string description;
    std::string input_schema;   // every keyword the server sent, as compact JSON ({"type":"object"} if absent)
    std::string output_schema;  // every keyword the server sent, as compact JSON; empty if none
    std::string annotations;    // JSON text, empty if none
    bool destructive = false;   // the server declared destructiveHint: true (and not readOnlyHint)
    // What the tool scanner found in this definition (Host::tools, Host::tool_definitions fill it;
    // a session's own lists leave it empty).
    std::vector<Finding> findings;
    // execution.taskSupport (2025-11-25): "required", "optional", or empty (forbidden / absent).
    std::string task_support;
};

struct Resource {
    std::string server;
    std::string uri;
    std::string name;
    std::string title;
    std::string description;
    std::string mime_type;
};

struct ResourceTemplate {
    std::string server;
    std::string uri_template;
    std::string name;
    std::string title;
    std::string description;
    std::string mime_type;
};

struct PromptArgument {
    std::string name;
    std::string description;
    bool required = false;
};

struct Prompt {
    std::string server;
    std::string name;
    std::string title;
    std::string description;
    std::vector<PromptArgument> arguments;
};

struct Progress {
    double progress = 0;
    std::optional<double> total;
    std::string message;
};

// Per-request knobs. Unset values fall back to the server's defaults.
struct RequestOptions {
    std::optional<std::chrono::milliseconds> timeout;            // idle timeout for this request
    bool reset_timeout_on_progress = false;                      // progress restarts the timeout
    // Hard cap, even with progress. Unset with reset_timeout_on_progress: ten times the timeout.
    std::optional<std::chrono::milliseconds> max_total_timeout;
    // Called for each notifications/progress of this request, on a transport thread. Setting it
    // makes the request carry a progressToken.
    std::function<void(const Progress&)> on_progress;
    // Modern era (2026-07-28): the level of notifications/message the server may send for this
    // request (empty: the session's level from set_logging_level, or none).
    std::string log_level;
    // OpenTelemetry trace context, passed through in the request's _meta when set (both eras).
    std::string traceparent;
    std::string tracestate;
    std::string baggage;
    // Tasks (a server that answers with a task, 2026-07-28 extension or 2025-11-25 task-augmented
    // tools/call): the most the whole task may take, creation to result (unset: max_total_timeout,
    // else ten request timeouts). When it passes, tasks/cancel is sent and the call fails Timeout.
    std::optional<std::chrono::milliseconds> task_timeout;
    // Polled while the request or its task runs (from the calling thread, every 50 ms): returning
    // true cancels it — notifications/cancelled, or tasks/cancel for a task — and the call fails
    // Cancelled.
    std::function<bool()> is_cancelled;
    // 2025-11-25: call a tool whose execution.taskSupport is "optional" as a task too ("required"
    // tools always are).
    bool prefer_task = false;
};

// A tools/call result. `raw` is the whole result object; the accessors below read it.
struct CallToolResult {
    Json raw;
    bool is_error = false;
    // The concatenated text of all text content blocks (convenience for CLIs and tests).
    MCPH_API std::string text() const;
    // structuredContent, if present: any JSON value (an object, array, string, number, boolean or
    // null), as the tool sent it.
    MCPH_API const JsonValue* structured() const;
};

// ---- Skills extension (io.modelcontextprotocol/skills, SEP-2640) ----------------------------------

// One file of a skill as its skills/list entry declares it: what a read of `uri` must match.
struct SkillFile {
    std::string uri;
    std::string digest;       // "sha256:<64 hex>" as the server wrote it
    std::uint64_t size = 0;   // bytes
};

// A skills/list entry: a promise about content the host has not fetched. Nothing of it is read
// until the application loads the skill (ClientSession::load_skill).
struct Skill {
    std::string server;
    std::string uri;            // the skill's SKILL.md
    std::string name;           // frontmatter.name (else the uri's authority, skill://<name>/...)
    std::string description;    // frontmatter.description
    std::string frontmatter;    // the entry's frontmatter object, JSON text
    std::vector<SkillFile> files;  // the entry's resources (SKILL.md among them)
    // The entry says "resources": "dynamic": no file manifest, hence no digests. Its SKILL.md is
    // still checked against the frontmatter and every read is capped, but the bytes cannot be
    // checked for integrity: an application that needs that refuses dynamic skills.
    bool dynamic = false;
};

// A skill whose SKILL.md was read and verified against its entry (size, digest, frontmatter).
// Only a LoadedSkill opens its supporting files (ClientSession::read_skill_file).
struct LoadedSkill {
    Skill skill;
    std::string content;  // SKILL.md as read, verified
    std::string body;     // SKILL.md after its frontmatter
};

}  // namespace mcph
