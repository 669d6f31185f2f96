// The one thread per server on which its auth may block (a refresh, a browser sign-in), so a
// transport's I/O thread never does (issue #12, "auth off the transport's I/O thread").
#pragma once

#include <functional>
#include <memory>

namespace mcph::auth {

class AuthWorker {
public:
    AuthWorker();
    // Never waits for a job in progress (a sign-in may take minutes): the thread finishes that
    // job, drops the queue and ends by itself. The jobs own what they touch (shared_ptr).
    ~AuthWorker();
    AuthWorker(const AuthWorker&) = delete;
    AuthWorker& operator=(const AuthWorker&) = delete;

    // [thread-safe] Runs `job` on the worker, after the jobs queued before it. A job that throws
    // is logged to nobody and dropped: jobs report through their own completion.
    void post(std::function<void()> job);

private:
    struct State;
    static void drain(const std::shared_ptr<State>& state);  // the thread's body
    std::shared_ptr<State> state_;
};

}  // namespace mcph::auth
