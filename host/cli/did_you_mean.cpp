// Written here rather than taken from a library: the distance is fifteen lines and no Debian
// package offers it to C++ on its own.
#include "did_you_mean.hpp"

#include <algorithm>

namespace mcph::cli {

std::size_t edit_distance(std::string_view a, std::string_view b) {
    // Three rows of the matrix: a transposition looks two characters back.
    std::vector<std::size_t> before(b.size() + 1), above(b.size() + 1), row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::swap(before, above);
        std::swap(above, row);
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t substitute = above[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            row[j] = std::min({above[j] + 1, row[j - 1] + 1, substitute});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) row[j] = std::min(row[j], before[j - 2] + 1);
        }
    }
    return row[b.size()];
}

std::string closest_name(std::string_view typed, const std::vector<std::string>& candidates) {
    // Names from servers can be long; a typo is short. Bounding the work keeps this O(small).
    constexpr std::size_t kMaxCompared = 256;
    if (typed.size() > kMaxCompared) return {};
    std::string best;
    std::size_t best_distance = 0;
    for (const auto& c : candidates) {
        if (c.size() > kMaxCompared || c == typed) continue;
        const std::size_t d = edit_distance(typed, c);
        const std::size_t longest = std::max(typed.size(), c.size());
        if (d > 3 || d > std::max<std::size_t>(1, longest / 3)) continue;
        if (best.empty() || d < best_distance) {
            best = c;
            best_distance = d;
        }
    }
    return best;
}

std::string did_you_mean(std::string_view typed, const std::vector<std::string>& candidates) {
    const std::string best = closest_name(typed, candidates);
    return best.empty() ? std::string() : " (did you mean '" + best + "'?)";
}

}  // namespace mcph::cli
