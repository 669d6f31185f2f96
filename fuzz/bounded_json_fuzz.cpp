// The bounded JSON reader every parser of outside input goes through
// (plugin-api/include/mcph/bounded_json.hpp). Checked: any text either parses or fails with a typed
// outcome (never a stack overflow, however deep); a parsed document writes back within the bound,
// and what it writes parses again to the very same text. The host's message parser
// (host/src/json/message_parse.hpp, RapidJSON's SSE2 scans) must give the very same outcome, offset
// and tree as json_bounds::parse for every text.
#include "fuzz_support.hpp"
#include "json/message_parse.hpp"

#include <mcph/bounded_json.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    namespace jb = mcph::json_bounds;
    const std::string_view text = mcph::fuzz::as_text(data, size);
    // A small bound for odd first bytes, so both sides of it are reached with short inputs.
    const unsigned depth = size && (data[0] & 1) ? 1 + data[0] % 8 : jb::kMaxDepth;

    rapidjson::Document doc;
    const jb::ParseOutcome outcome = jb::parse(doc, text, depth);
    rapidjson::Document scanned;
    const jb::ParseOutcome scanned_outcome = mcph::json::parse_message(scanned, text, depth, 0);
    MCPH_FUZZ_CHECK(scanned_outcome.status == outcome.status);
    MCPH_FUZZ_CHECK(scanned_outcome.code == outcome.code);
    MCPH_FUZZ_CHECK(scanned_outcome.offset == outcome.offset);
    if (!outcome) {
        MCPH_FUZZ_CHECK(scanned.IsNull());
        MCPH_FUZZ_CHECK(doc.IsNull());
        MCPH_FUZZ_CHECK(!outcome.message().empty());
        MCPH_FUZZ_CHECK(outcome.offset <= text.size());
        return 0;
    }
    rapidjson::StringBuffer first;
    MCPH_FUZZ_CHECK(jb::write(doc, first, depth));
    // The same tree, compared as written (Value::operator== is not reflexive for duplicate keys).
    rapidjson::StringBuffer scanned_text;
    MCPH_FUZZ_CHECK(jb::write(scanned, scanned_text, depth));
    MCPH_FUZZ_CHECK(std::string_view(scanned_text.GetString(), scanned_text.GetSize()) ==
                    std::string_view(first.GetString(), first.GetSize()));
    rapidjson::Document again;
    const std::string_view written(first.GetString(), first.GetSize());
    // Full precision: the writer prints the shortest text that reads back exactly.
    MCPH_FUZZ_CHECK(jb::parse<rapidjson::kParseFullPrecisionFlag>(again, written, depth));
    rapidjson::StringBuffer second;
    MCPH_FUZZ_CHECK(jb::write(again, second, depth));
    MCPH_FUZZ_CHECK(written == std::string_view(second.GetString(), second.GetSize()));
    return 0;
}
