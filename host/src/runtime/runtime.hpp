// The host's threads: one event loop (timers, list refreshes, deferred closes) and a small pool
// for application callbacks that may block (sampling, elicitation, roots). The hot path — a
// response completing its request — uses neither: it runs on the transport's own thread.
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

#include <functional>
#include <mutex>
#include <optional>
#include <thread>

namespace mcph::runtime {

class Runtime {
public:
    Runtime();
    ~Runtime();
    Runtime(const Runtime&) = delete;
    Runtime& operator=(const Runtime&) = delete;

    boost::asio::io_context& loop() { return loop_; }
    // Runs fn on the event loop thread.
    void post(std::function<void()> fn) { boost::asio::post(loop_, std::move(fn)); }
    // Runs fn on the callback pool (application callbacks; may block on a person).
    void run_callback(std::function<void()> fn) { post_to(callbacks_, std::move(fn)); }
    // Runs fn on the background pool (host work that waits on servers, e.g. list refreshes). Kept
    // apart from the callback pool so neither can starve the other.
    void run_background(std::function<void()> fn) { post_to(background_, std::move(fn)); }
    bool on_loop_thread() const { return std::this_thread::get_id() == loop_thread_.get_id(); }

    // Stops both; pending work on the pool is finished first. Idempotent.
    void stop();

private:
    boost::asio::io_context loop_;
    boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
    // The pools start their threads on their first task, not with the host: a one-shot call that
    // never runs a callback or a background refresh does not create (and join) four threads.
    // After stop(), a task is dropped, as a stopped pool drops it.
    void post_to(std::optional<boost::asio::thread_pool>& pool, std::function<void()> fn);

    std::mutex pools_mutex_;  // guards the two pools' creation and stopped_
    std::optional<boost::asio::thread_pool> callbacks_;
    std::optional<boost::asio::thread_pool> background_;
    std::thread loop_thread_;
    bool stopped_ = false;
};

}  // namespace mcph::runtime
