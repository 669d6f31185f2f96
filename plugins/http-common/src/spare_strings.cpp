#include "spare_strings.hpp"

namespace mcph::http {

SpareStrings& SpareStrings::shared() {
    static SpareStrings* stash = new SpareStrings;  // never destroyed: bodies may be given back during exit
    return *stash;
}

std::string SpareStrings::take(size_t bytes) {
    if (bytes < kMinBytes) return {};
    std::lock_guard lock(mutex_);
    size_t best = kept_.size();
    for (size_t i = 0; i < kept_.size(); ++i)
        if (kept_[i].capacity() >= bytes && (best == kept_.size() || kept_[i].capacity() < kept_[best].capacity())) best = i;
    if (best == kept_.size()) return {};
    std::string s = std::move(kept_[best]);
    kept_.erase(kept_.begin() + static_cast<std::ptrdiff_t>(best));
    return s;
}

void SpareStrings::give(std::string&& s) noexcept {
    if (s.capacity() < kMinBytes || s.capacity() > kMaxBytes) return;  // freed with `s` by the caller
    std::string kept = std::move(s);
    kept.clear();
    std::lock_guard lock(mutex_);
    if (kept_.size() < kKeep) {
        kept_.push_back(std::move(kept));  // within the reserved capacity: no allocation
        return;
    }
    // Full: keep the larger one (a larger body serves more future messages).
    for (auto& k : kept_)
        if (k.capacity() < kept.capacity()) {
            k.swap(kept);
            return;
        }
}

}  // namespace mcph::http
