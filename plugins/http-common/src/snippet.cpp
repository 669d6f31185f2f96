#include "snippet.hpp"

namespace mcph::http {
namespace {

// Length of a valid UTF-8 sequence starting at s[0], or 0.
size_t utf8_length(std::string_view s) {
    auto c = static_cast<unsigned char>(s[0]);
    size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
    if (n == 0 || s.size() < n) return 0;
    for (size_t i = 1; i < n; ++i)
        if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) return 0;
    return n;
}

}  // namespace

std::string snippet(std::string_view body, size_t max) {
    std::string out;
    size_t i = 0;
    while (i < body.size() && i < max) {
        auto c = static_cast<unsigned char>(body[i]);
        if (c < 0x80) {
            out += c < 0x20 || c == 0x7f ? ' ' : static_cast<char>(c);
            ++i;
        } else if (size_t n = utf8_length(body.substr(i)); n && i + n <= max) {
            out.append(body.substr(i, n));
            i += n;
        } else {
            out += '?';
            ++i;
        }
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

}  // namespace mcph::http
