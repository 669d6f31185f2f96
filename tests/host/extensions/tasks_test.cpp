// The task runner against a scripted server: each tasks/get answers the next scripted task state;
// the runner's waits go through the sleep seam, so interval bounds are asserted without sleeping.
#include "extensions/tasks.hpp"

#include <mcph/error.hpp>
#include <mcph/json.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <deque>
#include <thread>
#include <string>
#include <vector>

namespace {

using namespace std::chrono_literals;
using mcph::Error;
using mcph::ErrorKind;
using mcph::Json;
using mcph::JsonValue;
using mcph::parse_json;
using mcph::to_json;
using namespace mcph::extensions;

struct Sent {
    std::string method;
    std::string params;
};

// A scripted peer: the answers to tasks/get in order (the last repeats), plus what was sent.
struct Script {
    std::deque<std::string> gets;
    std::string result_answer = R"({"content":[{"type":"text","text":"legacy done"}]})";
    std::vector<Sent> sent;
    std::vector<std::chrono::milliseconds> sleeps;

    TaskRun run(TaskDialect dialect = TaskDialect::Extension) {
        TaskRun r;
        r.dialect = dialect;
        r.context = "tools/call from 'fake'";
        r.request = [this](const std::string& method, Json params) {
            sent.push_back({method, to_json(params)});
            if (method == "tasks/get") {
                std::string next = gets.front();
                if (gets.size() > 1) gets.pop_front();
                return parse_json(next);
            }
            if (method == "tasks/result") return parse_json(result_answer);
            return parse_json("{}");
        };
        r.sleep = [this](std::chrono::milliseconds d) { sleeps.push_back(d); };
        return r;
    }
    std::size_t count(const std::string& method) const {
        std::size_t n = 0;
        for (const auto& s : sent) n += s.method == method;
        return n;
    }
};

std::string task(const std::string& status, const std::string& extra = "") {
    return R"({"taskId":"t1","status":")" + status + "\"" + (extra.empty() ? "" : "," + extra) + "}";
}
const std::string kDone = task("completed", R"("result":{"resultType":"complete","content":[{"type":"text","text":"done"}]})");

Error run_error(const std::string& created, TaskRun run) {
    try {
        run_task(parse_json(created), run);
    } catch (const Error& e) {
        return e;
    }
    ADD_FAILURE() << "the run did not fail";
    return Error(ErrorKind::Usage, "none");
}

TEST(TasksRunner, PollsToCompletionAndReturnsTheResult) {
    Script s;
    s.gets = {task("working", R"("statusMessage":"step 1/2","pollIntervalMs":200)"), kDone};
    std::vector<std::string> progress;
    TaskRun run = s.run();
    run.on_progress = [&](const mcph::Progress& p) { progress.push_back(p.message); };
    Json result = run_task(parse_json(task("working", R"("statusMessage":"step 0/2","pollIntervalMs":200)")), run);
    EXPECT_EQ(to_json(result), R"({"resultType":"complete","content":[{"type":"text","text":"done"}]})");
    EXPECT_EQ(s.count("tasks/get"), 2u);
    EXPECT_EQ(s.sent[0].params, R"({"taskId":"t1"})");
    ASSERT_EQ(s.sleeps.size(), 2u);
    EXPECT_EQ(s.sleeps[0], 200ms);  // the server's hint, inside the bounds
    EXPECT_EQ(progress, (std::vector<std::string>{"working: step 0/2", "working: step 1/2", "completed"}));
}

TEST(TasksRunner, ClampsTheServersIntervalToTheBounds) {
    Script s;
    s.gets = {task("working", R"("pollIntervalMs":3600000)"), kDone};
    TaskRun run = s.run();
    run_task(parse_json(task("working", R"("pollIntervalMs":0)")), run);
    ASSERT_EQ(s.sleeps.size(), 2u);
    EXPECT_EQ(s.sleeps[0], run.limits.min_interval);  // 0 ms does not make us spin
    EXPECT_EQ(s.sleeps[1], run.limits.max_interval);  // an hour does not make us look asleep
}

TEST(TasksRunner, UsesTheDefaultIntervalWithoutAHint) {
    Script s;
    s.gets = {kDone};
    TaskRun run = s.run();
    run_task(parse_json(task("working")), run);
    ASSERT_EQ(s.sleeps.size(), 1u);
    EXPECT_EQ(s.sleeps[0], run.limits.default_interval);
}

TEST(TasksRunner, AlreadyCompletedTaskNeedsNoPoll) {
    Script s;
    Json result = run_task(parse_json(kDone), s.run());
    EXPECT_TRUE(result.HasMember("content"));
    EXPECT_TRUE(s.sent.empty());
}

TEST(TasksRunner, PollCapCancelsTheTaskAndTimesOut) {
    Script s;
    s.gets = {task("working")};
    TaskRun run = s.run();
    run.limits.max_polls = 3;
    Error e = run_error(task("working"), run);
    EXPECT_EQ(e.kind(), ErrorKind::Timeout);
    EXPECT_NE(std::string(e.what()).find("poll cap"), std::string::npos) << e.what();
    EXPECT_EQ(s.count("tasks/get"), 3u);
    EXPECT_EQ(s.count("tasks/cancel"), 1u);
    EXPECT_EQ(s.sent.back().method, "tasks/cancel");
}

TEST(TasksRunner, DeadlineCancelsTheTaskAndTimesOut) {
    Script s;
    s.gets = {task("working", R"("pollIntervalMs":50)")};
    TaskRun run = s.run();
    run.limits.deadline = 120ms;
    run.sleep = [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); };  // real time
    const auto start = std::chrono::steady_clock::now();
    Error e = run_error(task("working", R"("pollIntervalMs":50)"), run);
    EXPECT_EQ(e.kind(), ErrorKind::Timeout);
    EXPECT_NE(std::string(e.what()).find("within 120 ms"), std::string::npos) << e.what();
    EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
    EXPECT_EQ(s.sent.back().method, "tasks/cancel");
}

TEST(TasksRunner, CallerCancelSendsTasksCancel) {
    Script s;
    s.gets = {task("working")};
    TaskRun run = s.run();
    run.is_cancelled = [&] { return s.count("tasks/get") >= 2; };
    Error e = run_error(task("working"), run);
    EXPECT_EQ(e.kind(), ErrorKind::Cancelled);
    EXPECT_EQ(s.count("tasks/get"), 2u);
    EXPECT_EQ(s.sent.back().method, "tasks/cancel");
    EXPECT_EQ(s.sent.back().params, R"({"taskId":"t1"})");
}

TEST(TasksRunner, CancelIsSeenDuringTheDefaultWait) {
    Script s;
    s.gets = {task("working", R"("pollIntervalMs":5000)")};
    TaskRun run = s.run();
    run.sleep = nullptr;  // the real, sliced wait
    const auto start = std::chrono::steady_clock::now();
    run.is_cancelled = [&] { return std::chrono::steady_clock::now() - start > 100ms; };
    Error e = run_error(task("working", R"("pollIntervalMs":5000)"), run);
    EXPECT_EQ(e.kind(), ErrorKind::Cancelled);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);  // not the 5 s interval
    EXPECT_EQ(s.sent.back().method, "tasks/cancel");
}

TEST(TasksRunner, FailedTaskThrowsItsError) {
    Script s;
    s.gets = {task("failed", R"("error":{"code":-32603,"message":"disk full"})")};
    Error e = run_error(task("working"), s.run());
    EXPECT_EQ(e.kind(), ErrorKind::Remote);
    EXPECT_EQ(e.code(), -32603);
    EXPECT_NE(std::string(e.what()).find("disk full"), std::string::npos) << e.what();
    EXPECT_EQ(s.count("tasks/cancel"), 0u);
}

TEST(TasksRunner, ServerCancelledTaskThrowsCancelled) {
    Script s;
    s.gets = {task("cancelled", R"("statusMessage":"operator stopped it")")};
    Error e = run_error(task("working"), s.run());
    EXPECT_EQ(e.kind(), ErrorKind::Cancelled);
    EXPECT_NE(std::string(e.what()).find("operator stopped it"), std::string::npos) << e.what();
}

TEST(TasksRunner, InputRequiredIsAnsweredWithTasksUpdate) {
    Script s;
    s.gets = {task("input_required", R"("inputRequests":{"q":{"method":"elicitation/create","params":{}}})"), kDone};
    TaskRun run = s.run();
    run.answer_inputs = [](const JsonValue& t) {
        EXPECT_TRUE(t.HasMember("inputRequests"));
        return parse_json(R"({"q":{"action":"accept","content":{"name":"Ada"}}})");
    };
    Json result = run_task(parse_json(task("working")), run);
    EXPECT_TRUE(result.HasMember("content"));
    ASSERT_EQ(s.count("tasks/update"), 1u);
    for (const auto& sent : s.sent) {
        if (sent.method != "tasks/update") continue;
        EXPECT_EQ(sent.params, R"({"taskId":"t1","inputResponses":{"q":{"action":"accept","content":{"name":"Ada"}}}})");
    }
}

TEST(TasksRunner, AnsweredInputRequestsAreNotAskedTwice) {
    Script s;
    const std::string q1 = R"("inputRequests":{"q1":{"method":"elicitation/create","params":{}}})";
    const std::string q12 =
        R"("inputRequests":{"q1":{"method":"elicitation/create","params":{}},"q2":{"method":"elicitation/create","params":{}}})";
    // The server still lists q1 after its update (eventually consistent), then adds q2.
    s.gets = {task("input_required", q1), task("input_required", q12), kDone};
    TaskRun run = s.run();
    std::vector<std::string> asked;
    run.answer_inputs = [&](const JsonValue& t) {
        for (const auto& m : t["inputRequests"].GetObject()) asked.emplace_back(m.name.GetString());
        return parse_json("{}");
    };
    run_task(parse_json(task("input_required", q1)), run);
    EXPECT_EQ(asked, (std::vector<std::string>{"q1", "q2"}));
    EXPECT_EQ(s.count("tasks/update"), 2u);
    EXPECT_EQ(s.sleeps.size(), 1u);  // the poll that showed only q1 again waited before the next
}

TEST(TasksRunner, InputRoundsAreCapped) {
    Script s;
    s.gets = {task("input_required", R"("inputRequests":{"b":{}})"), task("input_required", R"("inputRequests":{"c":{}})")};
    TaskRun run = s.run();
    run.limits.max_input_rounds = 2;
    run.answer_inputs = [](const JsonValue&) { return parse_json("{}"); };
    Error e = run_error(task("input_required", R"("inputRequests":{"a":{}})"), run);
    EXPECT_EQ(e.kind(), ErrorKind::Protocol) << e.what();
    EXPECT_EQ(s.count("tasks/update"), 2u);
    EXPECT_EQ(s.sent.back().method, "tasks/cancel");
}

TEST(TasksRunner, InputRequiredWithoutAnAnswererCancels) {
    Script s;
    Error e = run_error(task("input_required"), s.run());
    EXPECT_NE(std::string(e.what()).find("needs input"), std::string::npos) << e.what();
    EXPECT_EQ(s.sent.back().method, "tasks/cancel");
}

TEST(TasksRunner, MalformedTasksAreProtocolErrors) {
    for (const std::string& created :
         {std::string(R"([])"), std::string(R"({"status":"working"})"), std::string(R"({"taskId":7,"status":"working"})"),
          std::string(R"({"taskId":"","status":"working"})"), std::string(R"({"taskId":"t1","status":"sleeping"})"),
          std::string(R"({"taskId":"t1"})"), R"({"taskId":")" + std::string(300, 'x') + R"(","status":"working"})",
          std::string(R"({"taskId":"t1","status":"working","pollIntervalMs":"fast"})")}) {
        Script s;
        Error e = run_error(created, s.run());
        EXPECT_EQ(e.kind(), ErrorKind::Protocol) << created << ": " << e.what();
    }
}

TEST(TasksRunner, MalformedPollAnswersAreProtocolErrors) {
    for (const std::string& answer :
         {std::string(R"("busy")"), std::string(R"({"taskId":"t2","status":"working"})"),
          std::string(R"({"resultType":"task","taskId":"t1","status":"working"})"),
          task("completed"),  // no result
          task("completed", R"("result":{"resultType":"input_required"})")}) {
        Script s;
        s.gets = {answer};
        Error e = run_error(task("working"), s.run());
        EXPECT_EQ(e.kind(), ErrorKind::Protocol) << answer << ": " << e.what();
    }
}

TEST(TasksRunner, LegacyFetchesTheResultWithTasksResult) {
    Script s;
    s.gets = {task("working", R"("pollInterval":300)"), task("completed")};
    Json result =
        run_task(parse_json(R"({"task":{"taskId":"t1","status":"working","pollInterval":300}})"), s.run(TaskDialect::Legacy));
    EXPECT_EQ(to_json(result), R"({"content":[{"type":"text","text":"legacy done"}]})");
    EXPECT_EQ(s.sleeps.front(), 300ms);
    EXPECT_EQ(s.sent.back().method, "tasks/result");
}

TEST(TasksRunner, LegacyInputRequiredBlocksOnTasksResult) {
    Script s;
    Json result = run_task(parse_json(R"({"task":{"taskId":"t1","status":"input_required"}})"), s.run(TaskDialect::Legacy));
    EXPECT_TRUE(result.HasMember("content"));
    ASSERT_EQ(s.sent.size(), 1u);
    EXPECT_EQ(s.sent[0].method, "tasks/result");
}

TEST(TasksRunner, LegacyWithoutTaskIsTheDirectResult) {
    Script s;
    Json result = run_task(parse_json(R"({"content":[]})"), s.run(TaskDialect::Legacy));
    EXPECT_TRUE(result.HasMember("content"));
    EXPECT_TRUE(s.sent.empty());
    Error e = run_error(R"({"task":"t1"})", s.run(TaskDialect::Legacy));
    EXPECT_EQ(e.kind(), ErrorKind::Protocol);
}

TEST(TasksRunner, LimitsComeFromTheCallOptions) {
    mcph::RequestOptions o;
    EXPECT_EQ(task_limits(o, 1000ms).deadline, 10000ms);
    o.timeout = 2000ms;
    EXPECT_EQ(task_limits(o, 1000ms).deadline, 20000ms);
    o.max_total_timeout = 7000ms;
    EXPECT_EQ(task_limits(o, 1000ms).deadline, 7000ms);
    o.task_timeout = 3000ms;
    EXPECT_EQ(task_limits(o, 1000ms).deadline, 3000ms);
}

TEST(TasksRunner, ServerToolTaskCapability) {
    EXPECT_TRUE(server_offers_tool_tasks(parse_json(R"({"tasks":{"requests":{"tools":{"call":{}}}}})")));
    EXPECT_FALSE(server_offers_tool_tasks(parse_json(R"({"tasks":{"list":{}}})")));
    EXPECT_FALSE(server_offers_tool_tasks(parse_json(R"({})")));
}

}  // namespace
