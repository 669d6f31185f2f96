// RequestResult: where the answer to one request of the engine lands, and how a caller waits for
// it — the slot behind PendingRequest and RpcEngine::call.
//
// Why not std::promise/std::future: promise::set_value runs std::call_once, and glibc's
// pthread_once ends with a futex wake system call every time, whether anybody waits or not — one
// system call per request on top of the two or three the exchange itself needs (about 0.9 us on
// the 2-core VM of bench/). Here the answer is stored under a mutex and a waiter is notified
// through a condition variable, which makes no system call when nobody sleeps on it (the common
// case: the waiting caller reads its own reply, see the pump below).
//
// Waiting reads the transport on the waiting thread when it can (the engine's pump hook: the reply
// is then delivered right there, with no hand-off between threads) and otherwise sleeps until the
// transport's own thread delivers it.
//
// A std::future is still available for the embedder who asks PendingRequest::future(): the slot
// then makes a promise on demand (bridge) and completes it instead.
#pragma once

#include <mcph/error.hpp>
#include <mcph/json.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>

namespace mcph::detail {

class RequestResult {
public:
    using Clock = std::chrono::steady_clock;
    // Reads the transport on the calling thread until `ready()` or `deadline`; returns early when
    // it cannot (another thread reads). EngineHooks::pump.
    using Pump = std::function<void(const std::function<bool()>& ready, Clock::time_point deadline)>;

    explicit RequestResult(std::shared_ptr<const Pump> pump = nullptr) : pump_(std::move(pump)) {}
    RequestResult(const RequestResult&) = delete;
    RequestResult& operator=(const RequestResult&) = delete;

    // The answer (error null) or the failure; the first call counts, later ones are ignored. Any
    // thread. Notifies while holding the lock: once a waiter has taken the lock after `ready`, the
    // filler is done with this object (a slot on the waiter's stack may then go).
    void fill(Json result, const Error* error);
    bool ready() const { return ready_.load(std::memory_order_acquire); }
    // Pumps, then sleeps, until the answer is in or `deadline`; true when it is.
    bool wait_until(Clock::time_point deadline);
    // Waits without a deadline, then returns the answer or throws its mcph::Error. Once only:
    // a second call throws std::future_error(no_state), as std::future::get does.
    Json take();
    // A std::future completed with the answer (at once when it is already in). After this the
    // answer goes only to the future; take() is not called any more.
    std::future<Json> bridge();

private:
    std::shared_ptr<const Pump> pump_;
    std::mutex mutex_;
    std::condition_variable filled_;
    std::atomic<bool> ready_{false};
    bool taken_ = false;  // take() or bridge() has the answer
    Json result_;
    std::optional<Error> error_;
    std::optional<std::promise<Json>> bridge_;
};

// The engine's side of a RequestResult: the answer it owes. Dropped without having answered (an
// engine destroyed with requests in flight), it fails the waiter with a Connection error instead
// of leaving it asleep forever, as a dropped std::promise did (broken_promise).
class OwedResult {
public:
    OwedResult() = default;
    explicit OwedResult(std::shared_ptr<RequestResult> slot) : slot_(std::move(slot)) {}
    OwedResult(OwedResult&&) noexcept = default;
    OwedResult& operator=(OwedResult&& other) noexcept;
    OwedResult(const OwedResult&) = delete;
    OwedResult& operator=(const OwedResult&) = delete;
    ~OwedResult() { abandon(); }

    explicit operator bool() const { return slot_ != nullptr; }
    void fill(Json result, const Error* error) { slot_->fill(std::move(result), error); }

private:
    void abandon() noexcept;
    std::shared_ptr<RequestResult> slot_;
};

}  // namespace mcph::detail
