// Tasks, client side: a request the server turned into a durable task is run to its end here —
// polled with tasks/get at the server's hinted interval (clamped to our bounds), input_required
// answered with tasks/update (2026-07-28 extension), cancelled with tasks/cancel when the caller
// cancels or the deadline passes — and its final result handed back as if the request had
// completed directly.
//
// Two wire dialects share the loop:
//  - Extension (2026-07-28, io.modelcontextprotocol/tasks): the CreateTaskResult is the task itself
//    (resultType "task", taskId, status, pollIntervalMs); the terminal tasks/get carries `result`
//    (completed) or `error` (failed).
//  - Legacy (2025-11-25 experimental tasks): the CreateTaskResult wraps it ({"task":{taskId, status,
//    pollInterval}}); the result of a terminal task is fetched with tasks/result.
//
// Trust: everything the server says about a task is bounded — the interval is clamped to
// [min_interval, max_interval], the whole run to `deadline`, the polls to `max_polls`, the input
// rounds to `max_input_rounds`; a task id must be a short string, a status one of the five, and a
// task that changes id, returns to a non-terminal state after a terminal one, or completes without
// a result object is a protocol error, never a hang.
#pragma once

#include <mcph/json.hpp>
#include <mcph/types.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace mcph::extensions {

// The extension's identifier: the key under capabilities.extensions on both sides.
inline constexpr const char* kTasksExtension = "io.modelcontextprotocol/tasks";

// What a client advertises: {"io.modelcontextprotocol/tasks":{}}, to merge into "extensions".
Json tasks_client_extensions();

enum class TaskDialect { Extension, Legacy };

enum class TaskStatus { Working, InputRequired, Completed, Failed, Cancelled };
const char* to_string(TaskStatus status) noexcept;

// One task state as the server reported it.
struct TaskState {
    std::string task_id;
    TaskStatus status = TaskStatus::Working;
    std::string status_message;
    std::optional<std::chrono::milliseconds> poll_interval;  // the server's hint, unclamped
};

// Reads a Task object (the extension's CreateTaskResult and tasks/get result, the legacy
// tasks/get result, or the legacy CreateTaskResult's "task"). Throws Error(Protocol) naming
// `context` when it is malformed.
TaskState parse_task(const JsonValue& task, const std::string& context);

struct TaskLimits {
    std::chrono::milliseconds min_interval{50};     // a server hinting 0 ms does not make us spin
    std::chrono::milliseconds max_interval{5000};   // nor one hinting an hour make us look asleep
    std::chrono::milliseconds default_interval{500};  // when the server gives no hint
    std::chrono::milliseconds deadline{std::chrono::minutes(10)};  // the whole run, creation to result
    std::size_t max_polls = 10000;
    int max_input_rounds = 16;
};

// The limits for one run: the deadline is the caller's task_timeout, else max_total_timeout, else
// ten times the request timeout (`fallback_timeout` when the caller set none) — the same cap a
// request with progress has.
TaskLimits task_limits(const RequestOptions& options, std::chrono::milliseconds fallback_timeout);

struct TaskRun {
    TaskDialect dialect = TaskDialect::Extension;
    std::string context;  // "tools/call from 'server'", for messages
    TaskLimits limits;
    // Sends one request (tasks/get, tasks/update, tasks/cancel, tasks/result) and returns its
    // result; throws mcph::Error as a request does.
    std::function<Json(const std::string& method, Json params)> request;
    // Status changes, as progress (progress = polls so far, message = "<status>: <statusMessage>").
    std::function<void(const Progress&)> on_progress;
    // Polled between requests: true → tasks/cancel is sent and the run fails with Cancelled.
    std::function<bool()> is_cancelled;
    // Extension only: answers a task's inputRequests, returning the inputResponses object.
    // Unset: an input_required task is cancelled and the run fails with a clear error.
    std::function<Json(const JsonValue& task)> answer_inputs;
    // Waits (test seam); the default sleeps in short slices so is_cancelled is seen promptly.
    std::function<void(std::chrono::milliseconds)> sleep;
};

// A run for a call made with `options`: their deadline (task_limits), progress callback and
// cancel check, polling through `request`.
TaskRun task_run_for(TaskDialect dialect, std::string context, const RequestOptions& options,
                     std::chrono::milliseconds fallback_timeout,
                     std::function<Json(const std::string& method, Json params)> request);

// The options of one poll (tasks/get, tasks/update...): the call's per-request timeout and trace
// context, without its progress callback (a poll is short; the task's status is the progress).
RequestOptions task_poll_options(const RequestOptions& call);

// 2025-11-25: the server's capabilities allow task-augmented tools/call (tasks.requests.tools.call).
bool server_offers_tool_tasks(const JsonValue& server_capabilities);

// Runs the task `created` (the CreateTaskResult) describes to its end and returns the final result
// object. Throws Error: Remote (failed, with the task's error code), Cancelled (the server
// cancelled it, or the caller did), Timeout (deadline or poll cap; tasks/cancel sent), Protocol
// (malformed task or result).
Json run_task(const JsonValue& created, const TaskRun& run);

}  // namespace mcph::extensions
