// ASCII case folding, whatever the locale: URL schemes and host names, HTTP header names and the
// other protocol tokens mcph compares are ASCII case-insensitive, and std::tolower would follow the
// process locale (a Turkish locale folds 'I' differently).
#pragma once

#include <string>
#include <string_view>

namespace mcph::text {

inline std::string ascii_lower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

}  // namespace mcph::text
