// mcph::json::parse_message — json_bounds::parse (same verdicts, offsets and trees) for the texts
// a server sends, with RapidJSON's 16-byte string and whitespace scans for large ones
// (sse2_reader.hpp: issue #16, a 1 MiB result spent 40% of the client's CPU in the byte-at-a-time
// string loop).
#pragma once

#include <mcph/bounded_json.hpp>

#include <string_view>

namespace mcph::json {

// Below this a message holds no long string worth a scan; the plain reader, inlined, is as fast.
inline constexpr std::size_t kScanFromBytes = 1024;

// `scan_from`: the size from which the scans are used (tests and the fuzzer pass 0).
json_bounds::ParseOutcome parse_message(rapidjson::Document& doc, std::string_view text,
                                        unsigned max_depth = json_bounds::kMaxDepth,
                                        std::size_t scan_from = kScanFromBytes);

}  // namespace mcph::json
