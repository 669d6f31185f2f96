// Shared by the fuzz targets: deterministic chunking of one input, and a check that reports a
// broken invariant as a crash (libFuzzer then saves the input that broke it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace mcph::fuzz {

// abort() rather than assert(): the targets are built without NDEBUG games, and the message says
// which invariant failed before libFuzzer prints the stack and writes the crash input.
#define MCPH_FUZZ_CHECK(cond)                                                                  \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            std::fprintf(stderr, "fuzz invariant failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
            std::abort();                                                                       \
        }                                                                                       \
    } while (0)

// Splits `text` into the chunks a transport might read: sizes from a small PRNG seeded by `seed`
// (the fuzzer controls it through one input byte), mostly short, sometimes long, never empty. The
// stream itself stays readable text in the corpus; only the chunking varies.
inline std::vector<std::string_view> chunks(std::string_view text, uint8_t seed) {
    std::vector<std::string_view> out;
    uint32_t state = 0x9E3779B9u ^ seed;
    size_t i = 0;
    while (i < text.size()) {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        size_t n = (state & 7) == 0 ? 1 + state % 4096 : 1 + state % 17;
        if (n > text.size() - i) n = text.size() - i;
        out.push_back(text.substr(i, n));
        i += n;
    }
    return out;
}

inline std::string_view as_text(const uint8_t* data, size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

}  // namespace mcph::fuzz
