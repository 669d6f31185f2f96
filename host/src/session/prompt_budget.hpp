// PromptBudget — how many interactive server requests (sampling/createMessage, elicitation/create)
// one session may put before the application: a token bucket. A server asking faster than a person
// (or a model bill) can sensibly answer gets an error at once, without the user being asked.
#pragma once

#include <chrono>
#include <mutex>

namespace mcph::session {

class PromptBudget {
public:
    using Clock = std::chrono::steady_clock;

    // `burst` prompts at once, then one more every `refill`.
    PromptBudget(unsigned burst, Clock::duration refill) : burst_(burst), refill_(refill), tokens_(burst) {}

    // Takes one token if there is one.
    bool try_take(Clock::time_point now = Clock::now());
    unsigned burst() const { return burst_; }
    Clock::duration refill() const { return refill_; }

private:
    const unsigned burst_;
    const Clock::duration refill_;
    std::mutex mutex_;
    unsigned tokens_;
    Clock::time_point last_refill_{};
    bool started_ = false;
};

// The default for every session: ten prompts at once, then one a second.
inline constexpr unsigned kPromptBurst = 10;
inline constexpr std::chrono::milliseconds kPromptRefill{1000};

}  // namespace mcph::session
