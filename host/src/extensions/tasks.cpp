#include "extensions/tasks.hpp"

#include "json/json_access.hpp"

#include <mcph/error.hpp>

#include <algorithm>
#include <set>
#include <thread>

namespace mcph::extensions {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// A task id is an opaque handle we echo back: short, so a hostile one cannot balloon every poll.
constexpr std::size_t kMaxTaskIdBytes = 256;
// Status messages go to a progress line: long enough for a sentence, not for a document.
constexpr std::size_t kMaxStatusMessageBytes = 512;
// Waits are cut into slices this long so a cancel is seen promptly.
constexpr milliseconds kSleepSlice{20};

std::optional<TaskStatus> status_from(std::string_view s) {
    if (s == "working") return TaskStatus::Working;
    if (s == "input_required") return TaskStatus::InputRequired;
    if (s == "completed") return TaskStatus::Completed;
    if (s == "failed") return TaskStatus::Failed;
    if (s == "cancelled") return TaskStatus::Cancelled;
    return std::nullopt;
}

std::optional<milliseconds> poll_hint(const JsonValue& task, const std::string& context) {
    // The extension names it pollIntervalMs, 2025-11-25 pollInterval; both are milliseconds.
    for (const char* key : {"pollIntervalMs", "pollInterval"}) {
        const JsonValue* v = json::member(task, key);
        if (!v || v->IsNull()) continue;
        if (!v->IsNumber()) throw Error(ErrorKind::Protocol, context + ": the task's " + key + " is not a number");
        const double ms = v->GetDouble();
        // Clamped later; here only kept finite and representable.
        return milliseconds(static_cast<long long>(std::clamp(ms, 0.0, 86400000.0)));
    }
    return std::nullopt;
}

Json task_id_params(const std::string& id) {
    Json params(rapidjson::kObjectType);
    params.AddMember("taskId", json::string_value(id, params.GetAllocator()), params.GetAllocator());
    return params;
}

// The loop's state across polls.
class Runner {
public:
    Runner(const JsonValue& created, const TaskRun& run) : run_(run), start_(Clock::now()) {
        const JsonValue* task = &created;
        if (run_.dialect == TaskDialect::Legacy) {
            task = created.IsObject() ? json::object_member(created, "task") : nullptr;
            if (!task) throw Error(ErrorKind::Protocol, run_.context + ": the CreateTaskResult has no task object");
        }
        current_.CopyFrom(*task, current_.GetAllocator());
        state_ = parse_task(current_, run_.context);
        report();
    }

    Json finish() {
        for (;;) {
            switch (state_.status) {
                case TaskStatus::Completed:
                    return completed();
                case TaskStatus::Failed:
                    return failed();
                case TaskStatus::Cancelled:
                    throw Error(ErrorKind::Cancelled, where() + " was cancelled by the server" + said());
                case TaskStatus::InputRequired:
                    // 2025-11-25: tasks/result blocks while the server asks its questions over the
                    // session's own server-to-client requests, which the session already answers.
                    if (run_.dialect == TaskDialect::Legacy) return run_.request("tasks/result", task_id_params(id()));
                    if (!answer_inputs()) wait();  // only requests answered already: the server is catching up
                    break;
                case TaskStatus::Working:
                    wait();
                    break;
            }
            poll();
        }
    }

private:
    const std::string& id() const { return state_.task_id; }
    std::string where() const { return run_.context + ": task '" + id() + "'"; }
    std::string said() const { return state_.status_message.empty() ? "" : " (" + state_.status_message + ")"; }

    void report() {
        if (!run_.on_progress) return;
        std::string message = to_string(state_.status);
        if (!state_.status_message.empty()) message += ": " + state_.status_message;
        if (message == last_reported_) return;
        last_reported_ = message;
        run_.on_progress(Progress{static_cast<double>(polls_), std::nullopt, message});
    }

    Json completed() {
        if (run_.dialect == TaskDialect::Legacy) return run_.request("tasks/result", task_id_params(id()));
        const JsonValue* result = json::object_member(current_, "result");
        if (!result) throw Error(ErrorKind::Protocol, where() + " completed without a result object");
        const std::string type = json::string_or(*result, "resultType", "complete");
        if (type != "complete")
            throw Error(ErrorKind::Protocol, where() + " completed with a result of type '" + type +
                                                 "' (a task's result must be complete)");
        return clone_json(*result);
    }

    Json failed() {
        // 2025-11-25: tasks/result answers with the underlying error (thrown by request) or, for a
        // tool, a result with isError — either way what the call would have returned.
        if (run_.dialect == TaskDialect::Legacy) return run_.request("tasks/result", task_id_params(id()));
        const JsonValue* error = json::object_member(current_, "error");
        if (!error) throw Error(ErrorKind::Remote, where() + " failed" + said());
        const JsonValue* code = json::member(*error, "code");
        const int c = code && code->IsInt() ? code->GetInt() : 0;
        std::string message = json::string_or(*error, "message", "no message");
        if (message.size() > kMaxStatusMessageBytes) message.resize(kMaxStatusMessageBytes);
        const JsonValue* data = json::member(*error, "data");
        throw Error(ErrorKind::Remote, where() + " failed: " + message, c, data ? to_json(*data) : std::string());
    }

    // Answers the inputRequests not answered before (the spec's keys are unique per task, and a
    // server may still list answered ones until it has processed the update: those are not put to
    // the user twice). Returns false when there was nothing new to answer.
    bool answer_inputs() {
        if (!run_.answer_inputs) {
            cancel_and_throw(ErrorKind::Usage, where() + " needs input, which this caller cannot give");
        }
        Json fresh = unanswered_requests();
        const JsonValue* requests = json::object_member(fresh, "inputRequests");
        if (requests && requests->MemberCount() == 0) return false;
        if (++rounds_ > run_.limits.max_input_rounds)
            cancel_and_throw(ErrorKind::Protocol, where() + " still asked for input after " +
                                                      std::to_string(run_.limits.max_input_rounds) +
                                                      " rounds (the client's cap); gave up");
        if (requests)
            for (const auto& m : requests->GetObject()) answered_.emplace(m.name.GetString(), m.name.GetStringLength());
        Json responses = run_.answer_inputs(fresh);
        Json params = task_id_params(id());
        params.AddMember("inputResponses", JsonValue(responses, params.GetAllocator()), params.GetAllocator());
        run_.request("tasks/update", std::move(params));
        return true;
    }

    // The current task with only the inputRequests whose keys were not answered yet.
    Json unanswered_requests() const {
        Json task = clone_json(current_);
        JsonValue* requests = json::member_mut(task, "inputRequests");
        if (!requests || !requests->IsObject()) return task;  // malformed: the answerer reports it
        for (auto it = requests->MemberBegin(); it != requests->MemberEnd();) {
            if (answered_.count(std::string(it->name.GetString(), it->name.GetStringLength())))
                it = requests->EraseMember(it);
            else
                ++it;
        }
        return task;
    }

    // Sleeps the server's interval, clamped to our bounds and to what is left of the deadline.
    void wait() {
        const TaskLimits& l = run_.limits;
        milliseconds interval = std::clamp(state_.poll_interval.value_or(l.default_interval), l.min_interval,
                                           std::max(l.min_interval, l.max_interval));
        const auto left = std::chrono::duration_cast<milliseconds>(start_ + l.deadline - Clock::now());
        if (left <= milliseconds(0)) timed_out();
        interval = std::min(interval, left);
        if (run_.sleep) {
            run_.sleep(interval);
        } else {
            const auto until = Clock::now() + interval;
            for (auto now = Clock::now(); now < until && !cancelled(); now = Clock::now())
                std::this_thread::sleep_for(std::min<Clock::duration>(kSleepSlice, until - now));
        }
        if (cancelled()) cancel_and_throw(ErrorKind::Cancelled, where() + " was cancelled by the caller");
        if (Clock::now() >= start_ + l.deadline) timed_out();
    }

    bool cancelled() const { return run_.is_cancelled && run_.is_cancelled(); }

    [[noreturn]] void timed_out() {
        cancel_and_throw(ErrorKind::Timeout, where() + " did not finish within " +
                                                 std::to_string(run_.limits.deadline.count()) + " ms; cancelled it");
    }

    void poll() {
        if (++polls_ > run_.limits.max_polls)
            cancel_and_throw(ErrorKind::Timeout, where() + " was still " + to_string(state_.status) + " after " +
                                                     std::to_string(run_.limits.max_polls) +
                                                     " polls (the client's poll cap); cancelled it");
        Json next = run_.request("tasks/get", task_id_params(id()));
        if (!next.IsObject()) throw Error(ErrorKind::Protocol, where() + ": tasks/get answered with a non-object");
        const std::string type = json::string_or(next, "resultType", "complete");
        if (type != "complete")
            throw Error(ErrorKind::Protocol, where() + ": tasks/get answered with a result of type '" + type + "'");
        TaskState fresh = parse_task(next, run_.context);
        if (fresh.task_id != id())
            throw Error(ErrorKind::Protocol, where() + ": tasks/get answered about another task ('" + fresh.task_id + "')");
        state_ = std::move(fresh);
        current_ = std::move(next);
        report();
    }

    // Tells the server we are done with the task (best effort: it is cooperative, and the caller
    // hears the reason we stopped, not a failure of the cancel itself).
    [[noreturn]] void cancel_and_throw(ErrorKind kind, const std::string& message) {
        try {
            run_.request("tasks/cancel", task_id_params(id()));
        } catch (const std::exception&) {
        }
        throw Error(kind, message);
    }

    const TaskRun& run_;
    const Clock::time_point start_;
    Json current_;
    TaskState state_;
    std::size_t polls_ = 0;
    int rounds_ = 0;
    std::set<std::string> answered_;  // inputRequests keys answered (at most max_input_rounds rounds' worth)
    std::string last_reported_;
};

}  // namespace

Json tasks_client_extensions() {
    Json extensions(rapidjson::kObjectType);
    extensions.AddMember(rapidjson::StringRef(kTasksExtension), JsonValue(rapidjson::kObjectType), extensions.GetAllocator());
    return extensions;
}

const char* to_string(TaskStatus status) noexcept {
    switch (status) {
        case TaskStatus::Working: return "working";
        case TaskStatus::InputRequired: return "input_required";
        case TaskStatus::Completed: return "completed";
        case TaskStatus::Failed: return "failed";
        case TaskStatus::Cancelled: return "cancelled";
    }
    return "unknown";
}

TaskState parse_task(const JsonValue& task, const std::string& context) {
    if (!task.IsObject()) throw Error(ErrorKind::Protocol, context + ": the task is not an object");
    const JsonValue* id = json::member(task, "taskId");
    if (!id || !id->IsString() || id->GetStringLength() == 0)
        throw Error(ErrorKind::Protocol, context + ": the task has no taskId string");
    if (id->GetStringLength() > kMaxTaskIdBytes)
        throw Error(ErrorKind::Protocol, context + ": the taskId is longer than " + std::to_string(kMaxTaskIdBytes) +
                                             " bytes (the client's bound)");
    TaskState state;
    state.task_id.assign(id->GetString(), id->GetStringLength());
    const JsonValue* status = json::member(task, "status");
    auto parsed = status && status->IsString() ? status_from(json::view(*status)) : std::nullopt;
    if (!parsed)
        throw Error(ErrorKind::Protocol, context + ": task '" + state.task_id +
                                             "' has no valid status (working, input_required, completed, failed, cancelled)");
    state.status = *parsed;
    state.status_message = json::string_or(task, "statusMessage");
    if (state.status_message.size() > kMaxStatusMessageBytes) state.status_message.resize(kMaxStatusMessageBytes);
    state.poll_interval = poll_hint(task, context);
    return state;
}

TaskLimits task_limits(const RequestOptions& options, milliseconds fallback_timeout) {
    TaskLimits limits;
    if (options.task_timeout) limits.deadline = *options.task_timeout;
    else if (options.max_total_timeout) limits.deadline = *options.max_total_timeout;
    else limits.deadline = 10 * options.timeout.value_or(fallback_timeout);
    return limits;
}

TaskRun task_run_for(TaskDialect dialect, std::string context, const RequestOptions& options,
                     milliseconds fallback_timeout, std::function<Json(const std::string& method, Json params)> request) {
    TaskRun run;
    run.dialect = dialect;
    run.context = std::move(context);
    run.limits = task_limits(options, fallback_timeout);
    run.request = std::move(request);
    run.on_progress = options.on_progress;
    run.is_cancelled = options.is_cancelled;
    return run;
}

RequestOptions task_poll_options(const RequestOptions& call) {
    RequestOptions poll;
    poll.timeout = call.timeout;
    poll.log_level = call.log_level;
    poll.traceparent = call.traceparent;
    poll.tracestate = call.tracestate;
    poll.baggage = call.baggage;
    return poll;
}

bool server_offers_tool_tasks(const JsonValue& server_capabilities) {
    if (!server_capabilities.IsObject()) return false;
    const JsonValue* tasks = json::object_member(server_capabilities, "tasks");
    const JsonValue* requests = tasks ? json::object_member(*tasks, "requests") : nullptr;
    const JsonValue* tools = requests ? json::object_member(*requests, "tools") : nullptr;
    return tools && json::object_member(*tools, "call");
}

Json run_task(const JsonValue& created, const TaskRun& run) {
    // 2025-11-25: a receiver may ignore the augmentation and answer normally; that answer is final.
    if (run.dialect == TaskDialect::Legacy && created.IsObject() && !json::member(created, "task"))
        return clone_json(created);
    return Runner(created, run).finish();
}

}  // namespace mcph::extensions
