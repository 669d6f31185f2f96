#include "session/prompt_budget.hpp"

#include <algorithm>
#include <cstdint>

namespace mcph::session {

bool PromptBudget::try_take(Clock::time_point now) {
    std::lock_guard lock(mutex_);
    if (!started_) {
        started_ = true;
        last_refill_ = now;
    }
    if (refill_.count() > 0 && now > last_refill_) {
        const Clock::rep earned = (now - last_refill_) / refill_;
        if (earned > 0) {
            const auto sum = static_cast<std::uint64_t>(tokens_) + static_cast<std::uint64_t>(earned);
            tokens_ = static_cast<unsigned>(std::min<std::uint64_t>(burst_, sum));
            last_refill_ += refill_ * earned;  // keep the fraction of a token already earned
        }
    }
    if (tokens_ == 0) return false;
    --tokens_;
    return true;
}

}  // namespace mcph::session
