// The numeric options of the bench clients (bench-raw-pipe, mcph-bench), read the same way: a
// whole decimal number inside the option's range, or the usage message. std::stoi would throw
// past main's handler on "abc" and accept "16x" or "0" for --inflight, which then waits forever
// for the first of zero requests.
#pragma once

#include <charconv>
#include <optional>
#include <string_view>
#include <type_traits>

namespace bench {

inline std::optional<long> count_arg(std::string_view text, long min, long max) {
    long value = 0;
    const char* end = text.data() + text.size();
    auto [stop, error] = std::from_chars(text.data(), end, value);
    if (error != std::errc() || stop != end || value < min || value > max) return std::nullopt;
    return value;
}

// The numeric options both clients take, into a Config with the same field names: false for
// another option or a value out of range (the caller prints its usage).
template <class Config>
bool numeric_option(Config& c, std::string_view option, std::string_view value) {
    auto set = [&](auto& field, long min, long max) {
        auto n = count_arg(value, min, max);
        if (n) field = static_cast<std::remove_reference_t<decltype(field)>>(*n);
        return n.has_value();
    };
    if (option == "--calls") return set(c.calls, 1, 100'000'000);
    if (option == "--inflight") return set(c.inflight, 1, 100'000);
    if (option == "--warmup") return set(c.warmup, 0, 100'000'000);
    if (option == "--echo-calls") return set(c.echo_calls, 0, 1'000'000);
    if (option == "--echo-bytes") return set(c.echo_bytes, 1, 1L << 30);
    if (option == "--connects") return set(c.connects, 0, 100'000);
    return false;
}

}  // namespace bench
