#include "elicitation_form.hpp"

#include <mcph/text.hpp>

#include <rapidjson/document.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <regex>

// The answers are checked here, field by field, rather than with the host's JSON Schema validator:
// that validator is internal to libmcph (not public API the CLI may link), and the elicitation
// schema is deliberately small — a flat object of primitive properties with a handful of keywords
// (minLength/maxLength, format, minimum/maximum, enum/oneOf, minItems/maxItems) — so checking each
// answer as it is typed also says *which* bound it broke, and the field is asked again at once.

namespace mcph::cli {
namespace {

// A form is read by a person: a schema with more fields or choices than this is refused whole
// (declined, naming the bound) rather than scrolled past.
constexpr std::size_t kMaxFields = 100;
constexpr std::size_t kMaxChoices = 500;
constexpr int kMaxEditRounds = 3;

std::string str(const JsonValue& v, const char* key) {
    if (!v.IsObject()) return {};
    auto it = v.FindMember(key);
    return it != v.MemberEnd() && it->value.IsString() ? std::string(it->value.GetString(), it->value.GetStringLength())
                                                       : std::string();
}

std::optional<double> num(const JsonValue& v, const char* key) {
    if (!v.IsObject()) return std::nullopt;
    auto it = v.FindMember(key);
    if (it == v.MemberEnd() || !it->value.IsNumber()) return std::nullopt;
    return it->value.GetDouble();
}

std::optional<std::size_t> count(const JsonValue& v, const char* key) {
    auto n = num(v, key);
    if (!n || *n < 0 || *n > 1e9) return std::nullopt;
    return static_cast<std::size_t>(*n);
}

std::string form_line(const std::string& s) { return terminal_safe(s, LineBreaks::Escape); }

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos) return {};
    return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// Choices of `enum` (labels from the legacy `enumNames`) or of `oneOf`/`anyOf` {const, title}.
bool read_choices(const JsonValue& schema, std::vector<Choice>& out) {
    if (!schema.IsObject()) return false;
    if (auto e = schema.FindMember("enum"); e != schema.MemberEnd() && e->value.IsArray()) {
        auto names = schema.FindMember("enumNames");
        const bool named = names != schema.MemberEnd() && names->value.IsArray() && names->value.Size() == e->value.Size();
        for (rapidjson::SizeType i = 0; i < e->value.Size(); ++i) {
            if (!e->value[i].IsString()) return false;
            std::string value(e->value[i].GetString(), e->value[i].GetStringLength());
            std::string label = named && names->value[i].IsString() ? names->value[i].GetString() : value;
            out.push_back({value, label});
        }
        return !out.empty();
    }
    for (const char* key : {"oneOf", "anyOf"}) {
        auto list = schema.FindMember(key);
        if (list == schema.MemberEnd() || !list->value.IsArray()) continue;
        for (const auto& option : list->value.GetArray()) {
            auto c = option.IsObject() ? option.FindMember("const") : option.MemberEnd();
            if (!option.IsObject() || c == option.MemberEnd() || !c->value.IsString()) return false;
            std::string value(c->value.GetString(), c->value.GetStringLength());
            std::string title = str(option, "title");
            out.push_back({value, title.empty() ? value : title});
        }
        return !out.empty();
    }
    return false;
}

bool read_field(const std::string& name, const JsonValue& schema, FormField& f, std::string& error) {
    f.name = name;
    f.title = str(schema, "title");
    if (f.title.empty()) f.title = name;
    f.description = str(schema, "description");
    const std::string type = str(schema, "type");
    if (schema.IsObject() && schema.HasMember("default")) f.default_value.CopyFrom(schema["default"], f.default_value.GetAllocator());
    if (type == "array") {
        f.kind = FormField::Kind::MultiSelect;
        f.min_items = count(schema, "minItems");
        f.max_items = count(schema, "maxItems");
        auto items = schema.FindMember("items");
        if (items == schema.MemberEnd() || !read_choices(items->value, f.choices)) {
            error = "field '" + name + "' is an array that is not a list of enum choices";
            return false;
        }
    } else if (read_choices(schema, f.choices)) {
        f.kind = FormField::Kind::SingleSelect;
    } else if (type == "string" || type.empty()) {
        f.kind = FormField::Kind::String;
        f.format = str(schema, "format");
        f.min_length = count(schema, "minLength");
        f.max_length = count(schema, "maxLength");
    } else if (type == "number" || type == "integer") {
        f.kind = type == "number" ? FormField::Kind::Number : FormField::Kind::Integer;
        f.minimum = num(schema, "minimum");
        f.maximum = num(schema, "maximum");
    } else if (type == "boolean") {
        f.kind = FormField::Kind::Boolean;
    } else {
        error = "field '" + name + "' has type '" + type + "', which a form cannot ask";
        return false;
    }
    if (f.choices.size() > kMaxChoices) {
        error = "field '" + name + "' offers " + std::to_string(f.choices.size()) + " choices (at most " +
                std::to_string(kMaxChoices) + ")";
        return false;
    }
    return true;
}

// Counts code points, as JSON Schema's minLength/maxLength do.
std::size_t length(const std::string& s) {
    return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

bool valid_date(const std::string& s) {
    static const std::regex shape(R"(\d{4}-\d{2}-\d{2})");
    if (!std::regex_match(s, shape)) return false;
    const std::chrono::year_month_day d{std::chrono::year(std::stoi(s.substr(0, 4))),
                                        std::chrono::month(static_cast<unsigned>(std::stoi(s.substr(5, 2)))),
                                        std::chrono::day(static_cast<unsigned>(std::stoi(s.substr(8, 2))))};
    return d.ok();
}

// The RFC 3339 shapes JSON Schema's formats name; a person's typo is caught, not every corner.
std::string format_problem(const std::string& format, const std::string& s) {
    if (format == "email") {
        static const std::regex email(R"([^@\s]+@[^@\s]+\.[^@\s]+)");
        return std::regex_match(s, email) ? "" : "an email address, like name@example.com";
    }
    if (format == "uri") {
        static const std::regex uri(R"([A-Za-z][A-Za-z0-9+.\-]*:[^\s]+)");
        return std::regex_match(s, uri) ? "" : "an absolute URI, like https://example.com/page";
    }
    if (format == "date") return valid_date(s) ? "" : "a date, YYYY-MM-DD";
    if (format == "date-time") {
        static const std::regex time(R"((\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2}))");
        const auto t = s.find_first_of("Tt");
        const bool ok = t == 10 && valid_date(s.substr(0, 10)) && std::regex_match(s.substr(11), time);
        return ok ? "" : "a date and time, like 2025-11-25T14:30:00Z";
    }
    return "";
}

std::optional<std::string> pick(const FormField& f, const std::string& answer) {
    for (std::size_t i = 0; i < f.choices.size(); ++i)
        if (answer == std::to_string(i + 1) || answer == f.choices[i].value) return f.choices[i].value;
    return std::nullopt;
}

std::string choice_numbers(const FormField& f) {
    return "one of the numbers 1-" + std::to_string(f.choices.size()) + " or a value shown";
}

// 1000, not 1000.0: a bound as the person would type it.
std::string num_text(double v) {
    if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
    return to_json(JsonValue(v));
}

std::string range_text(const FormField& f) {
    if (f.minimum && f.maximum) return " from " + num_text(*f.minimum) + " to " + num_text(*f.maximum);
    if (f.minimum) return " of at least " + num_text(*f.minimum);
    if (f.maximum) return " of at most " + num_text(*f.maximum);
    return "";
}

std::optional<Json> parse_number(const FormField& f, const std::string& answer, std::string& why) {
    char* end = nullptr;
    const double v = std::strtod(answer.c_str(), &end);
    const bool integer = f.kind == FormField::Kind::Integer;
    const bool not_number = end == answer.c_str() || *end != '\0' || !std::isfinite(v);
    const bool not_whole = integer && !not_number && (v != std::floor(v) || std::fabs(v) > 9.007199254740992e15);
    const bool outside = (f.minimum && v < *f.minimum) || (f.maximum && v > *f.maximum);
    if (not_number || not_whole || outside) {
        why = std::string(integer ? "a whole number" : "a number") + range_text(f);
        return std::nullopt;
    }
    Json out;
    if (integer) out.SetInt64(static_cast<int64_t>(v));
    else out.SetDouble(v);
    return out;
}

std::optional<Json> parse_multi(const FormField& f, const std::string& answer, std::string& why) {
    Json out(rapidjson::kArrayType);
    std::size_t start = 0;
    while (start <= answer.size()) {
        const auto comma = answer.find(',', start);
        const std::string part = trim(answer.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        start = comma == std::string::npos ? answer.size() + 1 : comma + 1;
        if (part.empty()) continue;
        auto value = pick(f, part);
        if (!value) {
            why = "choices separated by commas, each " + choice_numbers(f) + " ('" + form_line(part) + "' is not one)";
            return std::nullopt;
        }
        bool seen = false;
        for (const auto& v : out.GetArray()) seen = seen || *value == v.GetString();
        if (!seen) out.PushBack(JsonValue(value->c_str(), out.GetAllocator()), out.GetAllocator());
    }
    const std::size_t n = out.Size();
    if ((f.min_items && n < *f.min_items) || (f.max_items && n > *f.max_items)) {
        why = "between " + std::to_string(f.min_items.value_or(0)) + " and " +
              (f.max_items ? std::to_string(*f.max_items) : std::string("any number of")) + " choices";
        return std::nullopt;
    }
    return out;
}

std::string describe_kind(const FormField& f) {
    switch (f.kind) {
        case FormField::Kind::Boolean: return "yes/no";
        case FormField::Kind::Number:
        case FormField::Kind::Integer: {
            std::string s = f.kind == FormField::Kind::Integer ? "whole number" : "number";
            s += range_text(f);
            return s;
        }
        case FormField::Kind::SingleSelect: return "one choice: its number or its value";
        case FormField::Kind::MultiSelect: {
            std::string s = "choices separated by commas";
            if (f.min_items) s += ", at least " + std::to_string(*f.min_items);
            if (f.max_items) s += ", at most " + std::to_string(*f.max_items);
            return s;
        }
        case FormField::Kind::String: break;
    }
    std::string s = "text";
    if (!f.format.empty()) s += ", " + form_line(f.format);
    if (f.min_length) s += ", at least " + std::to_string(*f.min_length) + " characters";
    if (f.max_length) s += ", at most " + std::to_string(*f.max_length) + " characters";
    return s;
}

void show_field(const FormField& f, std::ostream& out) {
    out << "\n  " << form_line(f.title);
    if (f.title != f.name) out << " [" << form_line(f.name) << "]";
    out << (f.required ? "  (required)" : "  (optional)") << "\n";
    if (!f.description.empty()) out << "    " << form_line(f.description) << "\n";
    for (std::size_t i = 0; i < f.choices.size(); ++i) {
        out << "    " << (i + 1) << ") " << form_line(f.choices[i].label);
        if (f.choices[i].label != f.choices[i].value) out << "  (" << form_line(f.choices[i].value) << ")";
        out << "\n";
    }
    out << "    " << describe_kind(f);
    if (!f.default_value.IsNull()) out << "; empty line: the default " << form_line(to_json(f.default_value));
    else if (!f.required) out << "; empty line: leave it out";
    out << "\n";
}

// The answer to one field: false at end of input or after too many wrong answers (`cancelled` says which).
bool ask_field(const FormField& f, const LineReader& read_line, std::ostream& out, Json& content, bool& cancelled) {
    show_field(f, out);
    auto& a = content.GetAllocator();
    content.RemoveMember(f.name.c_str());
    for (int attempt = 0; attempt < kMaxAttemptsPerField; ++attempt) {
        out << "  > " << std::flush;
        const std::optional<std::string> line = read_line();
        if (!line) {
            cancelled = true;
            return false;
        }
        const std::string answer = f.kind == FormField::Kind::String ? *line : trim(*line);
        if (answer.empty()) {
            if (!f.default_value.IsNull()) {
                content.AddMember(JsonValue(f.name.c_str(), a), JsonValue(f.default_value, a), a);
                return true;
            }
            if (!f.required) return true;
            out << "    this field is required\n";
            continue;
        }
        std::string why;
        if (std::optional<Json> value = parse_answer(f, answer, why)) {
            content.AddMember(JsonValue(f.name.c_str(), a), JsonValue(*value, a), a);
            return true;
        }
        out << "    not accepted: type " << why << "\n";
    }
    out << "  too many answers not accepted for '" << form_line(f.title) << "': the form is declined\n";
    return false;
}

std::string lower_action(const std::string& s) { return lower(trim(s)); }

}  // namespace

std::vector<FormField> read_form_fields(const JsonValue& schema, std::string& error) {
    std::vector<FormField> fields;
    if (!schema.IsObject()) return fields;
    auto props = schema.FindMember("properties");
    if (props == schema.MemberEnd()) return fields;
    if (!props->value.IsObject()) {
        error = "requestedSchema.properties is not an object";
        return {};
    }
    if (props->value.MemberCount() > kMaxFields) {
        error = "the form has " + std::to_string(props->value.MemberCount()) + " fields (at most " +
                std::to_string(kMaxFields) + ")";
        return {};
    }
    for (const auto& p : props->value.GetObject()) {
        FormField f;
        if (!read_field(std::string(p.name.GetString(), p.name.GetStringLength()), p.value, f, error)) return {};
        fields.push_back(std::move(f));
    }
    if (auto req = schema.FindMember("required"); req != schema.MemberEnd() && req->value.IsArray())
        for (const auto& r : req->value.GetArray())
            for (auto& f : fields)
                if (r.IsString() && f.name == r.GetString()) f.required = true;
    return fields;
}

std::optional<Json> parse_answer(const FormField& f, const std::string& answer, std::string& why) {
    Json out;
    switch (f.kind) {
        case FormField::Kind::Boolean: {
            const std::string a = lower(answer);
            if (a == "y" || a == "yes" || a == "true") out.SetBool(true);
            else if (a == "n" || a == "no" || a == "false") out.SetBool(false);
            else {
                why = "yes or no (y/yes/true or n/no/false)";
                return std::nullopt;
            }
            return out;
        }
        case FormField::Kind::Number:
        case FormField::Kind::Integer: return parse_number(f, answer, why);
        case FormField::Kind::SingleSelect: {
            auto value = pick(f, answer);
            if (!value) {
                why = choice_numbers(f);
                return std::nullopt;
            }
            out.SetString(value->c_str(), out.GetAllocator());
            return out;
        }
        case FormField::Kind::MultiSelect: return parse_multi(f, answer, why);
        case FormField::Kind::String: break;
    }
    const std::size_t n = length(answer);
    if ((f.min_length && n < *f.min_length) || (f.max_length && n > *f.max_length)) {
        why = "text of " + std::to_string(f.min_length.value_or(0)) + " to " +
              (f.max_length ? std::to_string(*f.max_length) : std::string("any number of")) + " characters";
        return std::nullopt;
    }
    if (std::string p = format_problem(f.format, answer); !p.empty()) {
        why = p;
        return std::nullopt;
    }
    out.SetString(answer.c_str(), static_cast<rapidjson::SizeType>(answer.size()), out.GetAllocator());
    return out;
}

ElicitationResponse ask_form(const ElicitationRequest& request, const LineReader& read_line, std::ostream& out) {
    ElicitationResponse response;
    response.content.SetObject();
    out << "\n[" << form_line(request.server) << "] asks: " << terminal_safe(request.message) << "\n";
    std::string error;
    const std::vector<FormField> fields = read_form_fields(request.requested_schema, error);
    if (!error.empty()) {
        out << "  this form cannot be asked on a terminal (" << form_line(error) << "): declined\n";
        return response;  // decline
    }
    for (int round = 0; round < kMaxEditRounds; ++round) {
        for (const auto& f : fields) {
            bool cancelled = false;
            if (!ask_field(f, read_line, out, response.content, cancelled)) {
                response.action = cancelled ? "cancel" : "decline";
                if (cancelled) out << "\n  cancelled\n";
                response.content.SetObject();
                return response;
            }
        }
        // The spec asks that the person can review the answers before they are sent.
        out << "\n  Answers to send:\n";
        for (const auto& f : fields) {
            auto it = response.content.FindMember(f.name.c_str());
            out << "    " << form_line(f.title) << ": "
                << (it == response.content.MemberEnd() ? std::string("(left out)") : form_line(to_json(it->value))) << "\n";
        }
        out << "  Send them? [y = send, e = edit, n or empty line = decline; Ctrl-D cancels] " << std::flush;
        const std::optional<std::string> confirm = read_line();
        if (!confirm) {
            response.action = "cancel";
            out << "\n  cancelled\n";
            return response;
        }
        const std::string c = lower_action(*confirm);
        if (c == "e" || c == "edit") continue;
        response.action = c == "y" || c == "yes" ? "accept" : "decline";
        if (response.action != "accept") response.content.SetObject();
        return response;
    }
    response.content.SetObject();
    out << "  edited " << kMaxEditRounds << " times: the form is declined\n";
    return response;
}

ElicitationResponse ask_url(const ElicitationRequest& request, const LineReader& read_line, std::ostream& out,
                            const std::function<bool(const std::string&)>& open_url) {
    ElicitationResponse response;
    response.content.SetObject();
    // Where the link goes, shown apart from the server's message, which may claim anything.
    static const std::regex authority(R"(^[A-Za-z][A-Za-z0-9+.\-]*://(?:[^/?#@]*@)?([^/?#:]*|\[[^\]]*\]))");
    std::smatch m;
    const std::string host = std::regex_search(request.url, m, authority) ? m[1].str() : std::string();
    out << "\n[" << form_line(request.server) << "] asks you to visit a web page: " << terminal_safe(request.message)
        << "\n  URL:  " << form_line(request.url) << "\n  host: " << (host.empty() ? "(none)" : form_line(host))
        << "\n  mcph does not open it unless you say so.\n"
        << "  [o = open it in your browser, y = I will visit it myself, n or empty line = decline; Ctrl-D cancels] "
        << std::flush;
    const std::optional<std::string> answer = read_line();
    if (!answer) {
        response.action = "cancel";
        return response;
    }
    const std::string a = lower_action(*answer);
    if (a == "o" || a == "open") {
        response.action = open_url && open_url(request.url) ? "accept" : "decline";
    } else {
        response.action = a == "y" || a == "yes" ? "accept" : "decline";
    }
    return response;
}

}  // namespace mcph::cli
