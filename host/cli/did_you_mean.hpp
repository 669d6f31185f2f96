// "did you mean": the closest of a set of names to what was typed, for commands, servers and tools.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mcph::cli {

// Optimal string alignment distance: insert, delete, substitute, or swap two adjacent characters;
// each costs 1 (so `kye` is one edit from `key`).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `typed`, if it is close enough to be a typo (at most a third of the
// longer name or one edit, and at most 3 edits); empty otherwise.
std::string closest_name(std::string_view typed, const std::vector<std::string>& candidates);

// " (did you mean 'x'?)" or "".
std::string did_you_mean(std::string_view typed, const std::vector<std::string>& candidates);

}  // namespace mcph::cli
