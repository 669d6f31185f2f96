#include "config/jsonc.hpp"

#include <mcph/bounded_json.hpp>
#include <mcph/error.hpp>

namespace mcph::config {

TextPosition position_of(std::string_view text, std::size_t offset) {
    TextPosition out;
    const std::size_t end = offset < text.size() ? offset : text.size();
    for (std::size_t i = 0; i < end; ++i) {
        if (text[i] == '\n') {
            ++out.line;
            out.column = 1;
        } else {
            ++out.column;
        }
    }
    return out;
}

Json parse_config_json(std::string_view text, const std::string& origin) {
    constexpr unsigned kFlags = rapidjson::kParseCommentsFlag | rapidjson::kParseTrailingCommasFlag;
    Json doc;
    const json_bounds::ParseOutcome outcome = json_bounds::parse<kFlags>(doc, text);
    if (outcome) return doc;
    const TextPosition at = position_of(text, outcome.offset);
    const std::string reason = outcome.status == json_bounds::ParseOutcome::Status::TooDeep
                                   ? "nested deeper than " + std::to_string(outcome.max_depth) + " levels"
                                   : std::string(rapidjson::GetParseError_En(outcome.code));
    throw Error(ErrorKind::Usage, origin + ": malformed JSON at offset " + std::to_string(outcome.offset) + " (line " +
                                      std::to_string(at.line) + ", column " + std::to_string(at.column) + "): " + reason);
}

}  // namespace mcph::config
