// Agent files are parsed here rather than through frontmatter.hpp: that parser converts a skill's
// whole frontmatter to JSON without positions and words its errors for SKILL.md, while a bad agent
// file must be reported at the line of the bad entry. The YAML itself is still yaml-cpp's.
#include "extensions/agent_file.hpp"

#include "json/json_access.hpp"

#include <mcph/json.hpp>

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <set>

namespace mcph::extensions {
namespace {

// A problem at a line of the file; caught by parse_agent_file.
struct Problem {
    int line;
    std::string message;
};

// One line of `text` from `pos` (without "\n" or "\r\n"); `next` is where the line after starts.
std::string_view line_at(std::string_view text, std::size_t pos, std::size_t& next) {
    std::size_t end = text.find('\n', pos);
    next = end == std::string_view::npos ? text.size() : end + 1;
    std::string_view line = text.substr(pos, (end == std::string_view::npos ? text.size() : end) - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return line;
}

bool is_closing_line(std::string_view line) {
    return line.substr(0, 3) == "---" && line.find_first_not_of(" \t", 3) == std::string_view::npos;
}

struct Split {
    std::string_view yaml;
    std::string_view body;
    int closing_line = 0;  // the line number of the closing '---'
};

Split split(std::string_view text, const AgentFileLimits& limits) {
    constexpr std::string_view kBom = "\xEF\xBB\xBF";
    if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
    std::size_t next = 0;
    if (line_at(text, 0, next) != "---") throw Problem{1, "the file does not open with a YAML frontmatter block ('---')"};
    const std::size_t yaml_begin = next;
    int line = 2;
    for (std::size_t pos = yaml_begin; pos < text.size(); pos = next, ++line) {
        if (pos - yaml_begin > limits.max_frontmatter_bytes)
            throw Problem{line, "the frontmatter is not closed within " + std::to_string(limits.max_frontmatter_bytes) + " bytes"};
        if (is_closing_line(line_at(text, pos, next))) return {text.substr(yaml_begin, pos - yaml_begin), text.substr(next), line};
    }
    throw Problem{1, "the frontmatter opened at line 1 is not closed (no second '---' line)"};
}

// The YAML starts at line 2 of the file; yaml-cpp counts from 0 within it.
int line_of(const YAML::Mark& mark) { return mark.is_null() ? 0 : mark.line + 2; }
int line_of(const YAML::Node& node) { return line_of(node.Mark()); }

bool is_core_null(const std::string& s) { return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL"; }

// A plain scalar by the YAML 1.2 core schema, as far as a server config needs it: null, booleans,
// integers and finite decimals; anything else (octal, hex, .inf) stays text. from_chars over the
// whole text, never a regex (std::regex recurses per character).
JsonValue resolve_plain(const std::string& s, Json::AllocatorType& a) {
    if (is_core_null(s)) return JsonValue(rapidjson::kNullType);
    if (s == "true" || s == "True" || s == "TRUE") return JsonValue(true);
    if (s == "false" || s == "False" || s == "FALSE") return JsonValue(false);
    const char* begin = s.data() + (s[0] == '+' ? 1 : 0);
    const char* end = s.data() + s.size();
    std::int64_t integer = 0;
    if (auto r = std::from_chars(begin, end, integer); r.ec == std::errc() && r.ptr == end) return JsonValue(integer);
    const bool numeric_start = (*begin >= '0' && *begin <= '9') || *begin == '-' || *begin == '.';
    double number = 0;
    if (auto r = std::from_chars(begin, end, number, std::chars_format::general);
        numeric_start && r.ec == std::errc() && r.ptr == end && std::isfinite(number))
        return JsonValue(number);
    return json::string_value(s, a);
}

// YAML to JSON for inline server configs, bounded in nodes (aliases expanded) and depth.
class Converter {
public:
    Converter(const AgentFileLimits& limits, Json::AllocatorType& a) : limits_(limits), a_(a) {}

    JsonValue convert(const YAML::Node& node, std::size_t depth) {
        count(node, depth);
        switch (node.Type()) {
            case YAML::NodeType::Null:
            case YAML::NodeType::Undefined: return JsonValue(rapidjson::kNullType);
            case YAML::NodeType::Scalar:
                // "!" marks a quoted scalar: a string whatever it looks like.
                if (node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str") return json::string_value(node.Scalar(), a_);
                return resolve_plain(node.Scalar(), a_);
            case YAML::NodeType::Sequence: {
                JsonValue out(rapidjson::kArrayType);
                for (const YAML::Node& item : node) out.PushBack(convert(item, depth + 1), a_);
                return out;
            }
            case YAML::NodeType::Map: {
                JsonValue out(rapidjson::kObjectType);
                for (const auto& kv : node) {
                    if (!kv.first.IsScalar()) throw Problem{line_of(kv.first), "a key that is not a scalar"};
                    const std::string& key = kv.first.Scalar();
                    if (json::member(out, key.c_str())) throw Problem{line_of(kv.first), "the key '" + key + "' is repeated"};
                    out.AddMember(json::string_value(key, a_), convert(kv.second, depth + 1), a_);
                }
                return out;
            }
        }
        return JsonValue(rapidjson::kNullType);
    }

    // Counts a node against the bounds without converting it (the fields read directly).
    void count(const YAML::Node& node, std::size_t depth) {
        if (++nodes_ > limits_.max_nodes)
            throw Problem{line_of(node), "the frontmatter has more than " + std::to_string(limits_.max_nodes) + " nodes (aliases expanded)"};
        if (depth > limits_.max_depth)
            throw Problem{line_of(node), "the frontmatter nests deeper than " + std::to_string(limits_.max_depth) + " levels"};
    }

    // Every node below `node`, for the bounds (a huge alias tree in a field nobody reads).
    void walk(const YAML::Node& node, std::size_t depth) {
        count(node, depth);
        if (node.IsSequence())
            for (const YAML::Node& item : node) walk(item, depth + 1);
        if (node.IsMap())
            for (const auto& kv : node) {
                walk(kv.first, depth + 1);
                walk(kv.second, depth + 1);
            }
    }

private:
    const AgentFileLimits& limits_;
    Json::AllocatorType& a_;
    std::size_t nodes_ = 0;
};

std::string scalar_string(const YAML::Node& node, const std::string& field) {
    if (!node.IsScalar()) throw Problem{line_of(node), "'" + field + "' must be a string"};
    return node.Scalar();
}

void check_name(const YAML::Node& at, const std::string& name, const std::string& what, const AgentFileLimits& limits) {
    if (!valid_agent_name(name, limits.max_name))
        throw Problem{line_of(at), what + " '" + name + "' is not a name: 1 to " + std::to_string(limits.max_name) +
                                       " of A-Z a-z 0-9 . _ -, not starting with '.' or '-'"};
}

// "Read, Grep" (Claude Code's form) or a YAML list.
std::vector<std::string> tool_list(const YAML::Node& node) {
    std::vector<std::string> out;
    if (node.IsNull()) return out;
    if (node.IsScalar()) {
        const std::string& text = node.Scalar();
        std::size_t pos = 0;
        while (pos <= text.size()) {
            std::size_t comma = text.find(',', pos);
            if (comma == std::string::npos) comma = text.size();
            std::string item = text.substr(pos, comma - pos);
            const auto first = item.find_first_not_of(" \t");
            if (first != std::string::npos) out.push_back(item.substr(first, item.find_last_not_of(" \t") - first + 1));
            pos = comma + 1;
        }
        return out;
    }
    if (!node.IsSequence()) throw Problem{line_of(node), "'tools' must be a comma-separated string or a list of tool names"};
    for (const YAML::Node& item : node) out.push_back(scalar_string(item, "tools"));
    return out;
}

class ServerReader {
public:
    ServerReader(const AgentFileLimits& limits, Converter& converter, std::vector<OverlayServer>& out)
        : limits_(limits), converter_(converter), out_(out) {}

    void read(const YAML::Node& node) {
        if (node.IsNull()) return;
        if (node.IsMap()) {  // {name: config, ...}: every entry inline
            for (const auto& kv : node) add_inline(kv.first, kv.second);
            return;
        }
        if (!node.IsSequence())
            throw Problem{line_of(node), "'mcpServers' must be a list of server names and inline definitions"};
        for (const YAML::Node& item : node) read_item(item);
    }

private:
    void read_item(const YAML::Node& item) {
        if (item.IsScalar()) {  // a reference to the parent's server
            const std::string& name = item.Scalar();
            check_name(item, name, "mcpServers reference", limits_);
            claim(item, name);
            out_.push_back({name, "", ""});
            return;
        }
        if (!item.IsMap())
            throw Problem{line_of(item), "an mcpServers entry must be a server name or an inline definition (an object)"};
        // {name: {config}} — Claude Code's form.
        if (item.size() == 1 && item.begin()->second.IsMap()) {
            add_inline(item.begin()->first, item.begin()->second);
            return;
        }
        // {name: x, command: ...} — one object naming itself.
        const YAML::Node name = item["name"];
        if (!name || !name.IsScalar())
            throw Problem{line_of(item), "an inline mcpServers entry must be {<name>: {<config>}} or an object with a 'name'"};
        Json config = to_json_object(item);
        config.RemoveMember("name");
        push_inline(name, name.Scalar(), config);
    }

    void add_inline(const YAML::Node& key, const YAML::Node& value) {
        if (!key.IsScalar()) throw Problem{line_of(key), "an inline server's name must be a string"};
        if (!value.IsMap()) throw Problem{line_of(value), "inline server '" + key.Scalar() + "' must be a config object"};
        push_inline(key, key.Scalar(), to_json_object(value));
    }

    void push_inline(const YAML::Node& at, const std::string& name, const Json& config) {
        check_name(at, name, "inline server", limits_);
        claim(at, name);
        out_.push_back({"", name, to_json(config)});
    }

    Json to_json_object(const YAML::Node& node) {
        Json doc;
        JsonValue value = converter_.convert(node, 2);
        static_cast<JsonValue&>(doc).Swap(value);
        return doc;
    }

    void claim(const YAML::Node& at, const std::string& name) {
        if (out_.size() >= limits_.max_servers)
            throw Problem{line_of(at), "more than " + std::to_string(limits_.max_servers) + " mcpServers entries"};
        if (!names_.insert(name).second) throw Problem{line_of(at), "mcpServers names '" + name + "' twice"};
    }

    const AgentFileLimits& limits_;
    Converter& converter_;
    std::vector<OverlayServer>& out_;
    std::set<std::string> names_;
};

AgentDefinition parse(std::string_view text, const AgentFileLimits& limits) {
    if (text.size() > limits.max_file_bytes)
        throw Problem{0, "the file is over " + std::to_string(limits.max_file_bytes) + " bytes"};
    const Split parts = split(text, limits);
    YAML::Node root;
    try {
        root = YAML::Load(std::string(parts.yaml));  // yaml-cpp guards its own recursion (DeepRecursion)
    } catch (const YAML::Exception& e) {
        throw Problem{line_of(e.mark), "the frontmatter is not valid YAML: " + e.msg};
    }
    if (!root.IsMap()) throw Problem{2, "the frontmatter is not a YAML mapping (name: ..., description: ...)"};
    Json scratch;
    Converter converter(limits, scratch.GetAllocator());
    AgentDefinition agent;
    std::set<std::string> keys;
    bool named = false;
    for (const auto& kv : root) {
        if (!kv.first.IsScalar()) throw Problem{line_of(kv.first), "a frontmatter key that is not a scalar"};
        const std::string& key = kv.first.Scalar();
        if (!keys.insert(key).second) throw Problem{line_of(kv.first), "the key '" + key + "' is repeated"};
        if (key == "mcpServers") {
            converter.count(kv.second, 1);
            ServerReader(limits, converter, agent.servers).read(kv.second);
            continue;
        }
        converter.walk(kv.second, 1);
        if (key == "name") {
            agent.name = scalar_string(kv.second, "name");
            check_name(kv.second, agent.name, "agent name", limits);
            named = true;
        } else if (key == "description") {
            agent.description = kv.second.IsNull() ? "" : scalar_string(kv.second, "description");
        } else if (key == "tools") {
            agent.tools = tool_list(kv.second);
        }
        // Other fields (model, color, ...) belong to the application running the agent.
    }
    if (!named) throw Problem{2, "the frontmatter has no 'name'"};
    agent.prompt = std::string(parts.body);
    return agent;
}

}  // namespace

bool valid_agent_name(std::string_view name, std::size_t max_name) {
    if (name.empty() || name.size() > max_name || name[0] == '.' || name[0] == '-') return false;
    for (char c : name)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
            return false;
    return true;
}

AgentFileResult parse_agent_file(std::string_view text, const std::string& origin, const AgentFileLimits& limits) {
    AgentFileResult out;
    try {
        out.agent = parse(text, limits);
    } catch (const Problem& p) {
        out.line = p.line;
        out.error = origin + (p.line > 0 ? ", line " + std::to_string(p.line) : std::string()) + ": " + p.message;
    } catch (const YAML::Exception& e) {  // a conversion yaml-cpp refuses (e.g. a bad node access)
        out.line = line_of(e.mark);
        out.error = origin + (out.line > 0 ? ", line " + std::to_string(out.line) : std::string()) + ": " + e.msg;
    }
    return out;
}

}  // namespace mcph::extensions
