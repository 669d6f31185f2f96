// Agent files are read here rather than through frontmatter.hpp: that parser converts a skill's
// whole frontmatter to JSON without positions and words its errors for SKILL.md, while a bad agent
// file must be reported at the line of the bad entry. The YAML is yaml-cpp's and the YAML-to-JSON
// rules are the ones skills use (yaml_json.hpp).
#include "extensions/agent_file.hpp"

#include "extensions/yaml_json.hpp"
#include "json/json_access.hpp"

#include <mcph/json.hpp>

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <set>

namespace mcph::extensions {
namespace {

// A problem at a line of the file; caught by parse_agent_file.
struct Problem {
    int line;
    std::string message;
};

struct Split {
    std::string_view yaml;
    std::string_view body;
    int closing_line = 0;  // the line number of the closing '---'
};

Split split(std::string_view text, const AgentFileLimits& limits) {
    text = without_bom(text);
    std::size_t next = 0;
    if (line_at(text, 0, next) != "---") throw Problem{1, "the file does not open with a YAML frontmatter block ('---')"};
    const std::size_t yaml_begin = next;
    int line = 2;
    for (std::size_t pos = yaml_begin; pos < text.size(); pos = next, ++line) {
        if (pos - yaml_begin > limits.max_frontmatter_bytes)
            throw Problem{line, "the frontmatter is not closed within " + std::to_string(limits.max_frontmatter_bytes) + " bytes"};
        if (is_closing_frontmatter_line(line_at(text, pos, next))) return {text.substr(yaml_begin, pos - yaml_begin), text.substr(next), line};
    }
    throw Problem{1, "the frontmatter opened at line 1 is not closed (no second '---' line)"};
}

// The YAML starts at line 2 of the file; yaml-cpp counts from 0 within it.
int line_of(const YAML::Mark& mark) { return mark.is_null() ? 0 : mark.line + 2; }
int line_of(const YAML::Node& node) { return line_of(node.Mark()); }

// YAML to JSON for inline server configs, bounded in nodes (aliases expanded) and depth; a broken
// bound or key is reported at its line.
YamlToJson::OnViolation agent_errors(const AgentFileLimits& limits) {
    return [&limits](YamlToJson::Violation v, const YAML::Node& at, const std::string& key) {
        switch (v) {
            case YamlToJson::Violation::TooManyNodes:
                throw Problem{line_of(at), "the frontmatter has more than " + std::to_string(limits.max_nodes) +
                                               " nodes (aliases expanded)"};
            case YamlToJson::Violation::TooDeep:
                throw Problem{line_of(at), "the frontmatter nests deeper than " + std::to_string(limits.max_depth) + " levels"};
            case YamlToJson::Violation::NonScalarKey: throw Problem{line_of(at), "a key that is not a scalar"};
            case YamlToJson::Violation::RepeatedKey: throw Problem{line_of(at), "the key '" + key + "' is repeated"};
        }
    };
}

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
    ServerReader(const AgentFileLimits& limits, YamlToJson& converter, std::vector<OverlayServer>& out)
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
    YamlToJson& converter_;
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
    YamlToJson converter({limits.max_nodes, limits.max_depth}, scratch.GetAllocator(), agent_errors(limits));
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
