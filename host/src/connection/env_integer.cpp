#include "connection/env_integer.hpp"

#include <mcph/error.hpp>

#include <charconv>
#include <cstdlib>
#include <string>
#include <string_view>

namespace mcph::connection {

std::optional<long long> env_integer(const char* name, long long min, long long max) {
    const char* raw = std::getenv(name);
    if (!raw || !*raw) return std::nullopt;
    const std::string_view text(raw);
    long long value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max)
        throw Error(ErrorKind::Usage, std::string(name) + " must be a whole number from " + std::to_string(min) +
                                          " to " + std::to_string(max) + ", not '" + std::string(text) + "'");
    return value;
}

}  // namespace mcph::connection
