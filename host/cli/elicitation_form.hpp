// A form-mode elicitation (MCP 2025-11-25, client/elicitation) asked line by line on a terminal:
// the requestedSchema's flat properties read into typed fields, each answer checked against its
// field and asked again when wrong, and the person's accept / decline / cancel mapped to the
// spec's actions. The reader and the writer are parameters so the form is tested without a pty.
#pragma once

#include <mcph/callbacks.hpp>
#include <mcph/json.hpp>

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace mcph::cli {

// One choice of an enum field: the value sent and what is shown (the title, else the value).
struct Choice {
    std::string value;
    std::string label;
};

struct FormField {
    enum class Kind { String, Number, Integer, Boolean, SingleSelect, MultiSelect };
    std::string name;
    std::string title;        // the schema's title, else the property name
    std::string description;
    Kind kind = Kind::String;
    bool required = false;
    std::string format;       // string: email, uri, date, date-time (others are not checked)
    std::optional<std::size_t> min_length, max_length;  // string
    std::optional<double> minimum, maximum;             // number, integer
    std::optional<std::size_t> min_items, max_items;    // multi-select
    std::vector<Choice> choices;                        // single and multi-select
    Json default_value;  // null when the schema has none
};

// The fields of a requestedSchema, in the schema's order; an unsupported property (a nested
// object, an array that is not of enum strings) makes `error` name it — the form is then declined.
std::vector<FormField> read_form_fields(const JsonValue& requested_schema, std::string& error);

// Checks one typed answer (not empty) against a field: the JSON value to send, or nullopt with
// `why` set to what to type instead.
std::optional<Json> parse_answer(const FormField& field, const std::string& answer, std::string& why);

// Reads one line; nullopt at end of input (Ctrl-D).
using LineReader = std::function<std::optional<std::string>()>;

// Wrong answers to one field before the form gives up and declines (a person, not a loop).
constexpr int kMaxAttemptsPerField = 5;

// Asks the whole form: the message, then each field (title, description, required marker,
// default, numbered choices), then the answers for review and a confirm step. Every server text
// is written through terminal_safe.
ElicitationResponse ask_form(const ElicitationRequest& request, const LineReader& read_line, std::ostream& out);

// A URL-mode elicitation: the message, the full URL and its host shown escaped; opened only when
// the person types `o` (then `open_url` is called), accepted with `y`, declined with `n` or an
// empty line, cancelled at end of input.
ElicitationResponse ask_url(const ElicitationRequest& request, const LineReader& read_line, std::ostream& out,
                            const std::function<bool(const std::string&)>& open_url);

}  // namespace mcph::cli
