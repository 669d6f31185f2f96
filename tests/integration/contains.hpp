// contains(): whether a text holds a part — the check most test assertions on output make.
// One definition for every test target (the targets are unity builds: a private copy per file
// would collide).
#pragma once

#include <string_view>

namespace mcph::test {

inline bool contains(std::string_view haystack, std::string_view needle) { return haystack.find(needle) != std::string_view::npos; }

}  // namespace mcph::test
