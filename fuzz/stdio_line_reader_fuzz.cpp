// The stdio transport's newline framing (plugins/transport-stdio/src/line_reader.*), fed the
// bytes a child process writes to stdout, in arbitrary read sizes. Checked against a plain model:
// the lines (and the point where an oversized one stops the stream) must not depend on how the
// bytes were split into reads, and the buffer must stay within max_line plus one read's room.
#include "fuzz_support.hpp"
#include "line_reader.hpp"

#include <string>
#include <vector>

namespace {

struct Expected {
    std::vector<std::string> lines;
    bool ok = true;
};

// The documented contract in one pass over the whole stream.
Expected model(std::string_view text, size_t max_line) {
    Expected e;
    size_t start = 0;
    while (start < text.size()) {
        size_t nl = text.find('\n', start);
        if (nl == std::string_view::npos) {  // unfinished tail: kept, refused only past max_line + 1
            e.ok = text.size() - start <= max_line + 1;
            return e;
        }
        std::string_view line = text.substr(start, nl - start);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.size() > max_line) {
            e.ok = false;
            return e;
        }
        if (!line.empty()) e.lines.emplace_back(line);
        start = nl + 1;
    }
    return e;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text = mcph::fuzz::as_text(data, size);
    const uint8_t seed = size ? data[0] : 0;
    // Odd seeds: a tiny limit, so the oversized-line paths are reached; even: a realistic one.
    const size_t max_line = (seed & 1) ? 1 + seed % 64 : size_t{1} << 16;

    mcph::stdio::LineReader reader(max_line);
    std::vector<std::string> got;
    bool ok = true;
    for (std::string_view chunk : mcph::fuzz::chunks(text, seed)) {
        ok = reader.feed(chunk.data(), chunk.size(), [&](std::string_view line) {
            MCPH_FUZZ_CHECK(!line.empty() && line.size() <= max_line);
            MCPH_FUZZ_CHECK(line.find('\n') == std::string_view::npos);
            got.emplace_back(line);
        });
        if (ok) MCPH_FUZZ_CHECK(reader.pending_size() <= max_line + 1);
        MCPH_FUZZ_CHECK(reader.capacity() <= max_line + 2 + mcph::stdio::LineReader::kReadBytes);
        if (!ok) break;  // the transport stops reading a stream that broke the bound
    }
    const Expected want = model(text, max_line);
    MCPH_FUZZ_CHECK(ok == want.ok);
    MCPH_FUZZ_CHECK(got == want.lines);
    return 0;
}
