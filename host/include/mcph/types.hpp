// Plain data types of the public API: what a server offers and what a call returns.
#pragma once

#include <mcph/findings.hpp>
#include <mcph/json.hpp>

#include <chrono>
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
};

// A tools/call result. `raw` is the whole result object; the accessors below read it.
struct CallToolResult {
    Json raw;
    bool is_error = false;
    // The concatenated text of all text content blocks (convenience for CLIs and tests).
    std::string text() const;
    // structuredContent, if present: any JSON value (an object, array, string, number, boolean or
    // null), as the tool sent it.
    const JsonValue* structured() const;
};

}  // namespace mcph
