#include "config/env_expansion.hpp"

#include <set>

#include "json/json_access.hpp"

#include <mcph/error.hpp>

#include <cstdlib>
#include <filesystem>

namespace mcph::config {
namespace {

bool is_name_char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

// VS Code input ids are free-form in practice ("api-key", "github.token").
bool is_input_id_char(char c) { return is_name_char(c) || c == '-' || c == '.'; }

// Each default inside a default is one more level of recursion: without a bound, a config value
// of nested "${A:-" overflowed the stack (found by fuzz/env_expansion_fuzz.cpp). Real definitions
// nest two or three.
constexpr size_t kMaxNesting = 32;

// A recursive-descent reader over one string. `evaluate` is false while reading a default that is
// not used, so `${SET:-${UNSET}}` does not fail on a variable nobody needs.
class Expander {
public:
    Expander(std::string_view text, const VariableLookup& lookup, const ExpansionContext& context)
        : text_(text), lookup_(lookup), context_(context) {}

    std::string run() { return read_text(/*in_default=*/false, /*evaluate=*/true); }

private:
    // Literal text and references, up to the end of the input or (inside a default) up to the '}'
    // that closes it, which is left for the caller to consume.
    std::string read_text(bool in_default, bool evaluate) {
        std::string out;
        while (pos_ < text_.size()) {
            const char c = text_[pos_];
            if (c == '$' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '{') {
                out += read_reference(evaluate);
            } else if (c == '}' && in_default) {
                return out;
            } else {
                out += c;
                ++pos_;
            }
        }
        return out;
    }

    // At "${": the reference up to and including its closing '}'.
    std::string read_reference(bool evaluate) {
        const size_t start = pos_;
        pos_ += 2;
        if (text_.compare(pos_, 2, "/}") == 0) {  // VS Code's ${/}
            pos_ += 2;
            return "/";
        }
        const size_t name_start = pos_;
        while (pos_ < text_.size() && is_name_char(text_[pos_])) ++pos_;
        const std::string_view name = text_.substr(name_start, pos_ - name_start);
        if (pos_ >= text_.size()) unterminated(start);
        const bool has_default = text_.compare(pos_, 2, ":-") == 0;
        if (!has_default && text_[pos_] == ':') return read_namespaced(start, name, evaluate);
        if (!has_default && text_[pos_] != '}') bad_reference(start);
        if (name.empty() || (name[0] >= '0' && name[0] <= '9')) bad_reference(start);
        if (!has_default) {
            ++pos_;
            if (!evaluate) return {};
            if (std::optional<std::string> predefined = predefined_value(name)) return *predefined;
            const std::optional<std::string> value = lookup_(name);
            if (!value) throw Error(ErrorKind::Usage, "${" + std::string(name) + "} is not set");
            return *value;
        }
        const std::optional<std::string> value = evaluate ? lookup_(name) : std::nullopt;
        pos_ += 2;
        if (++nesting_ > kMaxNesting) too_deep(start);
        const bool use_default = evaluate && (!value || value->empty());  // POSIX ":-": unset or empty
        std::string fallback = read_text(/*in_default=*/true, use_default);
        if (pos_ >= text_.size()) unterminated(start);
        ++pos_;
        --nesting_;
        if (!evaluate) return {};
        return use_default ? fallback : *value;
    }

    // VS Code's names that are not environment variables.
    std::optional<std::string> predefined_value(std::string_view name) const {
        if (name == "workspaceFolder") {
            if (!context_.workspace_folder.empty()) return context_.workspace_folder;
            std::error_code ec;
            return std::filesystem::current_path(ec).string();
        }
        if (name == "pathSeparator") return "/";
        if (name == "userHome") {
            std::optional<std::string> home = lookup_("HOME");
            if (!home) throw Error(ErrorKind::Usage, "${userHome}: HOME is not set");
            return home;
        }
        return std::nullopt;
    }

    // At the ':' of ${env:NAME} or ${input:id}: the rest of the reference.
    std::string read_namespaced(size_t start, std::string_view space, bool evaluate) {
        ++pos_;
        const size_t id_start = pos_;
        while (pos_ < text_.size() && is_input_id_char(text_[pos_])) ++pos_;
        if (pos_ >= text_.size()) unterminated(start);
        const std::string id(text_.substr(id_start, pos_ - id_start));
        if (text_[pos_] != '}' || id.empty()) bad_reference(start);
        ++pos_;
        if (space == "env") {
            if (!is_variable_name(id)) bad_reference(start);
            if (!evaluate) return {};
            const std::optional<std::string> value = lookup_(id);
            if (!value) throw Error(ErrorKind::Usage, "${env:" + id + "} is not set");
            return *value;
        }
        if (space == "input") {
            if (!evaluate) return {};
            if (!context_.input)
                throw Error(ErrorKind::Usage, "${input:" + id + "}: this configuration defines no \"inputs\"");
            return context_.input(id);
        }
        throw Error(ErrorKind::Usage, "bad variable reference at offset " + std::to_string(start) + ": unknown ${" +
                                          std::string(space) + ":...} (known: ${env:NAME}, ${input:id})");
    }

    static bool is_variable_name(std::string_view id) {
        if (id.empty() || (id[0] >= '0' && id[0] <= '9')) return false;
        for (char c : id)
            if (!is_name_char(c)) return false;
        return true;
    }

    [[noreturn]] void unterminated(size_t at) const {
        throw Error(ErrorKind::Usage, "unterminated \"${\" at offset " + std::to_string(at) + " (expected a closing '}')");
    }

    [[noreturn]] void too_deep(size_t at) const {
        throw Error(ErrorKind::Usage, "${...:-default} nested deeper than " + std::to_string(kMaxNesting) +
                                          " levels at offset " + std::to_string(at));
    }

    [[noreturn]] void bad_reference(size_t at) const {
        throw Error(ErrorKind::Usage, "bad variable reference at offset " + std::to_string(at) +
                                          ": expected ${NAME}, ${NAME:-default}, ${env:NAME} or ${input:id} with NAME made of "
                                          "letters, digits and _");
    }

    std::string_view text_;
    const VariableLookup& lookup_;
    const ExpansionContext& context_;
    size_t pos_ = 0;
    size_t nesting_ = 0;  // defaults being read, one inside the other
};

struct Expansion {
    Json::AllocatorType& allocator;
    const std::string& server;
    const VariableLookup& lookup;
    const ExpansionContext& context;
};

void expand_string(JsonValue& value, const Expansion& x, const std::string& field) {
    if (!value.IsString()) return;  // parse_server_config reports the wrong type, naming the field
    try {
        const std::string expanded = expand_variables(json::view(value), x.lookup, x.context);
        value.SetString(expanded.data(), static_cast<rapidjson::SizeType>(expanded.size()), x.allocator);
    } catch (const Error& e) {
        throw Error(ErrorKind::Usage, "server '" + x.server + "': " + field + ": " + e.what());
    }
}

void expand_member(JsonValue& entry, const char* field, const Expansion& x) {
    auto it = entry.FindMember(field);
    if (it != entry.MemberEnd()) expand_string(it->value, x, field);
}

void expand_array(JsonValue& entry, const char* field, const Expansion& x) {
    auto it = entry.FindMember(field);
    if (it == entry.MemberEnd() || !it->value.IsArray()) return;
    rapidjson::SizeType i = 0;
    for (JsonValue& item : it->value.GetArray())
        expand_string(item, x, std::string(field) + "[" + std::to_string(i++) + "]");
}

// Values only: names of environment variables and headers are taken literally.
void expand_map(JsonValue& entry, const char* field, const Expansion& x) {
    auto it = entry.FindMember(field);
    if (it == entry.MemberEnd() || !it->value.IsObject()) return;
    for (auto& m : it->value.GetObject())
        expand_string(m.value, x, std::string(field) + "." + std::string(json::view(m.name)));
}

}  // namespace

std::optional<std::string> lookup_process_environment(std::string_view name) {
    const char* value = std::getenv(std::string(name).c_str());
    if (!value) return std::nullopt;
    return std::string(value);
}

std::string expand_variables(std::string_view text, const VariableLookup& lookup, const ExpansionContext& context) {
    return Expander(text, lookup, context).run();
}

void expand_server_entry(JsonValue& entry, Json::AllocatorType& allocator, const std::string& server,
                         const VariableLookup& lookup, const ExpansionContext& context) {
    if (!entry.IsObject()) return;
    const Expansion x{allocator, server, lookup, context};
    expand_member(entry, "command", x);
    expand_array(entry, "args", x);
    expand_map(entry, "env", x);
    expand_member(entry, "url", x);
    expand_map(entry, "headers", x);
    expand_member(entry, "cwd", x);
    expand_member(entry, "envFile", x);
    expand_array(entry, "roots", x);
}

std::vector<std::string> variables_read_by(const JsonValue& entry) {
    std::set<std::string> names;
    const VariableLookup record = [&names](std::string_view name) -> std::optional<std::string> {
        names.emplace(name);
        return std::string();  // empty: every ${A:-default} also reads its default's variables
    };
    ExpansionContext context;
    context.workspace_folder = "/";
    context.input = [](std::string_view) { return std::string(); };  // inputs are answers, not the environment
    Json copy;
    copy.CopyFrom(entry, copy.GetAllocator());
    try {
        expand_server_entry(copy, copy.GetAllocator(), "", record, context);
    } catch (const Error&) {
        // A syntax error ends the scan; what was read so far is still worth showing.
    }
    return {names.begin(), names.end()};
}

}  // namespace mcph::config
