#include "runtime/runtime.hpp"

namespace mcph::runtime {

// Two callback threads: one server's elicitation waiting on a person must not stall another's
// roots/list answer.
Runtime::Runtime()
    : work_(boost::asio::make_work_guard(loop_)), callbacks_(2), background_(2), loop_thread_([this] { loop_.run(); }) {}

Runtime::~Runtime() { stop(); }

void Runtime::stop() {
    if (stopped_) return;
    stopped_ = true;
    callbacks_.stop();  // queued callbacks of closed sessions are dropped, running ones finish
    background_.stop();
    callbacks_.join();
    background_.join();
    work_.reset();
    loop_.stop();
    if (loop_thread_.joinable()) loop_thread_.join();
}

}  // namespace mcph::runtime
