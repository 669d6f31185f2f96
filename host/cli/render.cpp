#include "render.hpp"

#include <mcph/bounded_json.hpp>
#include <mcph/text.hpp>

#include <rapidjson/document.h>

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstdint>

namespace mcph::cli {
namespace {

using Alloc = Json::AllocatorType;

// Warnings shown per tool in the summary list; --full shows all.
constexpr std::size_t kSummaryFindings = 5;

std::string member(const JsonValue& v, const char* key) {
    if (!v.IsObject()) return {};
    auto it = v.FindMember(key);
    return it != v.MemberEnd() && it->value.IsString() ? std::string(it->value.GetString(), it->value.GetStringLength())
                                                       : std::string();
}

// A member's text, escaped for one line.
std::string shown(const JsonValue& v, const char* key) { return one_line(member(v, key)); }

// Always with the length: a NUL inside a server's string is data, not its end.
JsonValue str(std::string_view s, Alloc& a) { return JsonValue(s.data(), static_cast<rapidjson::SizeType>(s.size()), a); }

// Multi-line outside text, escaped, every line indented.
void print_block(std::ostream& out, std::string_view text, const std::string& indent) {
    const std::string safe = terminal_safe(text);
    std::size_t start = 0;
    while (start <= safe.size()) {
        const std::size_t end = std::min(safe.find('\n', start), safe.size());
        out << indent << std::string_view(safe).substr(start, end - start) << "\n";
        start = end + 1;
    }
}

std::size_t base64_decoded_size(const std::string& b64) { return b64.size() / 4 * 3; }

void print_content_block(std::ostream& out, const JsonValue& block) {
    const std::string type = member(block, "type");
    if (type == "text") {
        out << terminal_safe(member(block, "text")) << "\n";
    } else if (type == "image" || type == "audio") {
        out << "[" << type << ": " << shown(block, "mimeType") << ", ~" << base64_decoded_size(member(block, "data"))
            << " bytes]\n";
    } else if (type == "resource" && block.HasMember("resource")) {
        const JsonValue& r = block["resource"];
        out << "[resource " << shown(r, "uri") << "]\n";
        if (r.IsObject() && r.HasMember("text")) out << terminal_safe(member(r, "text")) << "\n";
        else out << "[blob: " << shown(r, "mimeType") << ", ~" << base64_decoded_size(member(r, "blob")) << " bytes]\n";
    } else if (type == "resource_link") {
        out << "[link: " << shown(block, "uri") << (member(block, "name").empty() ? "" : " " + shown(block, "name"))
            << "]\n";
    } else {
        out << "[" << (type.empty() ? "unknown" : one_line(type)) << " content]\n";
    }
}

void print_findings(std::ostream& out, const std::vector<Finding>& findings, const std::string& indent, std::size_t max) {
    const std::size_t shown_count = std::min(findings.size(), max);
    for (std::size_t i = 0; i < shown_count; ++i) out << indent << "! warning: " << describe(findings[i]) << "\n";
    if (findings.size() > shown_count)
        out << indent << "! (+" << (findings.size() - shown_count) << " more findings, see `mcph tools --full`)\n";
}

void print_description_summary(std::ostream& out, const std::string& text) {
    const FirstLine first = first_line_of(text);
    out << "    " << one_line(first.line) << (first.cut ? "..." : "");
    if (first.more_lines) out << "  (+" << first.more_lines << " lines, see `mcph tools --full`)";
    else if (first.cut) out << "  (" << text.size() << " bytes, see `mcph tools --full`)";
    out << "\n";
}

std::string pretty_schema(const std::string& schema_text) {
    Json schema;
    if (!json_bounds::parse(schema, schema_text)) return schema_text;
    return to_pretty_json(schema);
}

void print_tool_full(std::ostream& out, const Tool& t) {
    if (!t.title.empty()) out << "    title: " << one_line(t.title) << "\n";
    if (!t.description.empty()) {
        out << "    description:\n";
        print_block(out, t.description, "        ");
    }
    out << "    input schema:\n";
    print_block(out, pretty_schema(t.input_schema), "        ");
    if (!t.output_schema.empty()) {
        out << "    output schema:\n";
        print_block(out, pretty_schema(t.output_schema), "        ");
    }
    if (!t.annotations.empty()) out << "    annotations: " << one_line(t.annotations) << "\n";
    print_findings(out, t.findings, "    ", t.findings.size());
}

// The default `tools` view shows whole descriptions, but a server chooses their size: beyond these
// bounds the rest is counted and left to `--full` (or --json), so one hostile tool cannot bury the
// list (a 200 KB description, ten thousand parameters).
constexpr std::size_t kDescribedBytes = 4096;
constexpr std::size_t kParameterBytes = 1024;
constexpr std::size_t kParametersShown = 64;

// Outside text wrapped to the width, at most `max_bytes` of it (cut on a character boundary).
void print_bounded(std::ostream& out, std::string_view text, const std::string& indent, std::size_t width,
                   std::size_t max_bytes) {
    if (text.size() <= max_bytes) {
        print_wrapped(out, terminal_safe(text), indent, width);
        return;
    }
    std::size_t cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    print_wrapped(out, terminal_safe(text.substr(0, cut)) + "...", indent, width);
    out << indent << "(" << text.size() << " bytes in all, see `mcph tools --full`)\n";
}

// "string", "integer|null", or "" for a schema without a type.
std::string type_text(const JsonValue& schema) {
    if (!schema.IsObject() || !schema.HasMember("type")) return schema.IsObject() && schema.HasMember("enum") ? "enum" : "";
    const JsonValue& t = schema["type"];
    if (t.IsString()) return t.GetString();
    std::string out;
    if (t.IsArray())
        for (const auto& e : t.GetArray())
            if (e.IsString()) out += (out.empty() ? "" : "|") + std::string(e.GetString());
    return out;
}

// The parameters of a tool, from its input schema's properties: name, type, required, description.
void print_parameters(std::ostream& out, const std::string& schema_text, std::size_t width) {
    Json schema;
    if (!json_bounds::parse(schema, schema_text) || !schema.IsObject() || !schema.HasMember("properties") ||
        !schema["properties"].IsObject() || schema["properties"].MemberCount() == 0)
        return;
    std::vector<std::string> required;
    if (schema.HasMember("required") && schema["required"].IsArray())
        for (const auto& r : schema["required"].GetArray())
            if (r.IsString()) required.emplace_back(r.GetString(), r.GetStringLength());
    out << "    parameters:\n";
    std::size_t shown_count = 0;
    for (const auto& p : schema["properties"].GetObject()) {
        if (shown_count++ == kParametersShown) {
            out << "      (+" << (schema["properties"].MemberCount() - kParametersShown)
                << " more parameters, see `mcph tools --full`)\n";
            break;
        }
        const std::string name(p.name.GetString(), p.name.GetStringLength());
        const std::string type = type_text(p.value);
        const bool is_required = std::find(required.begin(), required.end(), name) != required.end();
        out << "      " << one_line(name) << (type.empty() ? "" : "  " + one_line(type))
            << (is_required ? "  required" : "  optional") << "\n";
        const std::string description = member(p.value, "description");
        if (!description.empty()) print_bounded(out, description, "          ", width, kParameterBytes);
    }
}

void print_tool_described(std::ostream& out, const Tool& t, std::size_t width) {
    if (!t.title.empty() && !t.description.empty()) out << "    " << one_line(t.title) << "\n";
    const std::string& text = t.description.empty() ? t.title : t.description;
    if (!text.empty()) print_bounded(out, text, "    ", width, kDescribedBytes);
    print_parameters(out, t.input_schema, width);
    print_findings(out, t.findings, "    ", kSummaryFindings);
}

std::string withheld_hint(WithheldTool::Why why, const std::string& server) {
    return why == WithheldTool::Why::Flagged ? "the withholdFlaggedTools policy holds flagged tools back"
                                             : "run `mcph approve " + one_line(server) + "` after reviewing it";
}

}  // namespace

std::string one_line(std::string_view text) { return terminal_safe(text, LineBreaks::Escape); }

FirstLine first_line_of(std::string_view text, std::size_t max_bytes) {
    FirstLine out;
    const std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    if (newline != std::string_view::npos) {
        std::string_view rest = text.substr(newline + 1);
        while (!rest.empty() && rest.back() == '\n') rest.remove_suffix(1);  // a trailing newline is no line
        if (!rest.empty()) out.more_lines = static_cast<std::size_t>(std::count(rest.begin(), rest.end(), '\n')) + 1;
    }
    if (line.size() > max_bytes) {
        std::size_t cut = max_bytes;
        while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
        line = line.substr(0, cut);
        out.cut = true;
    }
    out.line = std::string(line);
    return out;
}

std::size_t terminal_width() {
    std::size_t width = 0;
    if (const char* columns = std::getenv("COLUMNS")) width = std::strtoul(columns, nullptr, 10);
    winsize ws{};
    if (width == 0 && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0) width = ws.ws_col;
    if (width == 0) width = 80;
    return std::clamp<std::size_t>(width, 40, 1000);
}

void print_wrapped(std::ostream& out, std::string_view text, const std::string& indent, std::size_t width) {
    const std::size_t room = width > indent.size() + 20 ? width - indent.size() : 20;
    std::size_t start = 0;
    while (start <= text.size()) {  // each line of the text, wrapped on its own
        const std::size_t end = std::min(text.find('\n', start), text.size());
        std::string_view line = text.substr(start, end - start);
        std::string current;
        std::size_t pos = 0;
        while (pos < line.size()) {
            const std::size_t space = std::min(line.find(' ', pos), line.size());
            const std::string_view word = line.substr(pos, space - pos);
            if (!current.empty() && current.size() + 1 + word.size() > room) {
                out << indent << current << "\n";
                current.clear();
            }
            if (!current.empty()) current += ' ';
            current += word;
            pos = space + 1;
        }
        out << indent << current << "\n";
        start = end + 1;
    }
}

void print_tools(std::ostream& out, const std::vector<Tool>& tools, ToolDetail detail, std::size_t width) {
    if (tools.empty()) out << "(no tools)\n";
    for (const Tool& t : tools) {
        out << one_line(t.mapped_name) << (t.destructive ? "  [destructive]" : "");
        if (!t.findings.empty()) out << "  [" << t.findings.size() << " warning(s)]";
        out << "\n";
        if (detail == ToolDetail::Full) {
            print_tool_full(out, t);
            continue;
        }
        if (detail == ToolDetail::Described) {
            print_tool_described(out, t, width);
            continue;
        }
        const std::string& text = t.description.empty() ? t.title : t.description;
        if (!text.empty()) print_description_summary(out, text);
        print_findings(out, t.findings, "    ", kSummaryFindings);
    }
}

void print_withheld(std::ostream& out, const std::vector<ServerStatus>& servers, ToolDetail detail) {
    for (const ServerStatus& s : servers)
        for (const WithheldTool& w : s.withheld_tools) {
            out << "WITHHELD " << one_line(s.name) << "/" << one_line(w.name) << ": " << one_line(w.reason) << " ("
                << withheld_hint(w.why, s.name) << ")\n";
            print_findings(out, w.findings, "    ", detail == ToolDetail::Full ? w.findings.size() : kSummaryFindings);
        }
}

void print_approved_definitions(std::ostream& out, const std::string& server, const std::vector<Tool>& tools) {
    std::size_t flagged = 0;
    for (const Tool& t : tools) flagged += !t.findings.empty();
    out << "pinned the definitions of " << tools.size() << " tool(s) of '" << one_line(server) << "'";
    if (flagged) out << "; the tool scanner flags " << flagged << " of them — read the warnings";
    out << ":\n";
    for (const Tool& t : tools) {
        out << "\n" << one_line(t.mapped_name.empty() ? t.name : t.mapped_name) << (t.destructive ? "  [destructive]" : "")
            << "\n";
        print_tool_full(out, t);
    }
}

void print_call_result(std::ostream& out, const CallToolResult& result) {
    if (result.is_error) out << "(the tool reported an error)\n";
    if (result.raw.IsObject() && result.raw.HasMember("content") && result.raw["content"].IsArray())
        for (const JsonValue& block : result.raw["content"].GetArray()) print_content_block(out, block);
    // Printed once: a server that sends structuredContent also sends it as text (the spec asks it
    // to, for older clients), so it is shown only when there is no text to show.
    bool has_text = false;
    if (result.raw.IsObject() && result.raw.HasMember("content") && result.raw["content"].IsArray())
        for (const JsonValue& block : result.raw["content"].GetArray()) has_text = has_text || member(block, "type") == "text";
    if (const JsonValue* s = result.structured(); s && !has_text) print_block(out, to_pretty_json(*s), "");
}

void print_resources(std::ostream& out, const std::vector<Resource>& resources) {
    if (resources.empty()) out << "(no resources)\n";
    for (const Resource& r : resources) {
        out << one_line(r.uri) << "  " << one_line(r.title.empty() ? r.name : r.title) << "  (" << one_line(r.server)
            << ")\n";
        print_findings(out, scan_server_text(r.description, FindingField::ResourceDescription), "    ", kSummaryFindings);
    }
}

void print_skills(std::ostream& out, const std::vector<Skill>& skills) {
    if (skills.empty()) out << "(no skills)\n";
    for (const Skill& k : skills) {
        out << one_line(k.name) << "  " << one_line(k.uri) << "  ";
        if (k.dynamic) out << "dynamic files (not verifiable)";
        else out << k.files.size() << (k.files.size() == 1 ? " file" : " files");
        out << "  (" << one_line(k.server) << ")\n";
        const FirstLine first = first_line_of(k.description);
        if (!first.line.empty())
            out << "    " << one_line(first.line) << (first.cut ? "..." : "")
                << (first.more_lines ? "  (+" + std::to_string(first.more_lines) + " lines, see `mcph skills --json`)" : "")
                << "\n";
    }
}

void print_read_result(std::ostream& out, const JsonValue& result) {
    if (!result.IsObject() || !result.HasMember("contents") || !result["contents"].IsArray()) {
        out << terminal_safe(to_pretty_json(result)) << "\n";
        return;
    }
    for (const JsonValue& c : result["contents"].GetArray()) {
        if (c.IsObject() && c.HasMember("text")) {
            const std::string text = member(c, "text");
            out << terminal_safe(text) << (text.empty() ? "" : "\n");
        } else {
            out << "[blob " << shown(c, "uri") << ": " << shown(c, "mimeType") << ", ~"
                << base64_decoded_size(member(c, "blob")) << " bytes]\n";
        }
    }
}

void print_templates(std::ostream& out, const std::vector<ResourceTemplate>& templates) {
    for (const ResourceTemplate& t : templates) {
        out << one_line(t.uri_template) << "  " << one_line(t.title.empty() ? t.name : t.title) << "  (" << one_line(t.server)
            << ")\n";
        print_findings(out, scan_server_text(t.description, FindingField::ResourceDescription), "    ", kSummaryFindings);
    }
}

void print_prompts(std::ostream& out, const std::vector<Prompt>& prompts) {
    if (prompts.empty()) out << "(no prompts)\n";
    for (const Prompt& p : prompts) {
        out << one_line(p.name) << "  (" << one_line(p.server) << ")";
        if (!p.description.empty()) {
            const FirstLine first = first_line_of(p.description);
            out << "  " << one_line(first.line) << (first.cut ? "..." : "");
            if (first.more_lines) out << "  (+" << first.more_lines << " lines)";
        }
        for (const auto& a : p.arguments) out << "\n    " << one_line(a.name) << (a.required ? " (required)" : "");
        out << "\n";
        print_findings(out, scan_server_text(p.description, FindingField::PromptDescription), "    ", kSummaryFindings);
    }
}

void print_prompt_result(std::ostream& out, const JsonValue& result) {
    if (!result.IsObject() || !result.HasMember("messages") || !result["messages"].IsArray()) {
        out << terminal_safe(to_pretty_json(result)) << "\n";
        return;
    }
    for (const JsonValue& m : result["messages"].GetArray()) {
        out << shown(m, "role") << ": ";
        if (m.IsObject() && m.HasMember("content")) print_content_block(out, m["content"]);
        else out << "\n";
    }
}

namespace {

std::size_t array_size(const JsonValue& v, const char* key) {
    return v.IsObject() && v.HasMember(key) && v[key].IsArray() ? v[key].Size() : 0;
}

// The "findings" arrays of the status JSON, one warning line each.
void print_status_findings(std::ostream& out, const JsonValue& holder, const char* key, const std::string& label) {
    if (!holder.IsObject()) return;
    if (!holder.HasMember(key) || !holder[key].IsArray()) return;
    for (const JsonValue& f : holder[key].GetArray()) {
        out << "    ! " << one_line(label) << ": " << shown(f, "kind") << " in " << shown(f, "field") << shown(f, "path");
        const std::uint64_t count = f.HasMember("count") && f["count"].IsUint64() ? f["count"].GetUint64() : 0;
        if (member(f, "kind") == "overlong-text") out << " (" << count << " bytes)";
        else if (count > 1) out << " x" << count;
        if (!member(f, "excerpt").empty()) out << ": \"" << shown(f, "excerpt") << "\"";
        out << "\n";
    }
}

void print_server(std::ostream& out, const JsonValue& s) {
    out << shown(s, "name") << "  [" << shown(s, "type") << ", " << shown(s, "scope") << "]  " << shown(s, "state");
    if (s.HasMember("attempt") && s["attempt"].IsInt() && s["attempt"].GetInt() > 0)
        out << " (reconnecting " << s["attempt"].GetInt() << "/" << s["maxAttempts"].GetInt() << ")";
    // A webapp connector from the cached list: the service did not answer this time.
    if (s.HasMember("stale") && s["stale"].IsBool() && s["stale"].GetBool()) out << "  (stale: from the cached connector list)";
    out << "\n";
    if (!member(s, "pluginSource").empty()) out << "    from plugin: " << shown(s, "pluginSource") << "\n";
    if (s.HasMember("serverInfo"))
        out << "    server: " << shown(s["serverInfo"], "name") << " " << shown(s["serverInfo"], "version")
            << ", protocol " << shown(s, "protocolVersion");
    if (!member(s, "era").empty()) out << " (" << shown(s, "era") << " era)";
    out << "\n";
    if (s.HasMember("subscription") && s["subscription"].IsObject() && member(s["subscription"], "state") != "none")
        out << "    subscription: " << shown(s["subscription"], "state") << "\n";
    if (s.HasMember("setAsideTools") && s["setAsideTools"].IsArray())
        for (const JsonValue& t : s["setAsideTools"].GetArray())
            out << "    ! tool set aside: " << shown(t, "name") << " (" << shown(t, "reason") << ")\n";
    if (s.HasMember("tools") && s["tools"].IsArray()) {
        out << "    tools (" << s["tools"].Size() << "):";
        for (const JsonValue& t : s["tools"].GetArray()) {
            out << " " << shown(t, "name") << (t.HasMember("destructive") ? " [destructive]" : "");
            if (const std::size_t n = array_size(t, "findings")) out << " [" << n << " warning(s)]";
        }
        out << "\n";
        for (const JsonValue& t : s["tools"].GetArray()) print_status_findings(out, t, "findings", member(t, "name"));
    }
    if (s.HasMember("withheldTools"))
        for (const JsonValue& t : s["withheldTools"].GetArray()) {
            const bool flagged = member(t, "why") == "flagged";
            out << "    WITHHELD " << shown(t, "name") << ": " << shown(t, "reason");
            if (flagged) out << " (the withholdFlaggedTools policy holds flagged tools back)\n";
            else out << " (run `mcph approve " << shown(s, "name") << "` after reviewing it)\n";
            print_status_findings(out, t, "findings", member(t, "name"));
        }
    if (s.HasMember("unapprovedChanges") && s["unapprovedChanges"].IsArray())  // instructions, prompts, resources that differ from the approval
        for (const JsonValue& c : s["unapprovedChanges"].GetArray())
            out << "    CHANGED " << shown(c, "kind") << (member(c, "name").empty() ? "" : " " + shown(c, "name")) << ": "
                << shown(c, "reason") << " (run `mcph approve " << shown(s, "name") << "` after reviewing it)\n";
    if (s.HasMember("resources")) out << "    resources: " << array_size(s, "resources") << "\n";
    if (s.HasMember("prompts")) out << "    prompts: " << array_size(s, "prompts") << "\n";
    if (!member(s, "instructions").empty()) {
        const FirstLine first = first_line_of(member(s, "instructions"));
        out << "    instructions: " << one_line(first.line) << (first.cut ? "..." : "");
        if (first.more_lines) out << "  (+" << first.more_lines << " lines, see `mcph status --json`)";
        out << "\n";
        print_status_findings(out, s, "instructionsFindings", "instructions");
    }
    if (!member(s, "error").empty()) out << "    error: " << one_line(first_line_of(member(s, "error"), 300).line) << "\n";
    if (s.HasMember("stderrTail") && s["stderrTail"].IsArray())
        for (const JsonValue& line : s["stderrTail"].GetArray())
            if (line.IsString())
                out << "    stderr| " << one_line(std::string_view(line.GetString(), line.GetStringLength())) << "\n";
}

void print_excluded(std::ostream& out, const JsonValue& status, const char* key, const char* title) {
    if (!status.HasMember(key) || status[key].Empty()) return;
    out << title << ":\n";
    for (const JsonValue& e : status[key].GetArray()) {
        out << "    " << (member(e, "name").empty() ? shown(e, "origin") : shown(e, "name"));
        if (!member(e, "scope").empty()) out << " [" << shown(e, "scope") << "]";
        out << ": " << shown(e, "reason") << "\n";
    }
}

}  // namespace

void print_status(std::ostream& out, const JsonValue& status) {
    if (status.HasMember("enterpriseExclusive") && status["enterpriseExclusive"].GetBool())
        out << "(the enterprise config is in force: servers from every other source are ignored)\n";
    for (const JsonValue& s : status["servers"].GetArray()) print_server(out, s);
    print_excluded(out, status, "unapproved", "awaiting approval");
    print_excluded(out, status, "denied", "denied by policy");
    print_excluded(out, status, "suppressed", "suppressed duplicates");
    print_excluded(out, status, "configProblems", "config problems");
    print_excluded(out, status, "shadowed", "replaced by another scope's definition");
    if (status.HasMember("webapp") && status["webapp"].IsObject()) {  // where the webapp connectors come from
        const JsonValue& w = status["webapp"];
        const bool stale = w.HasMember("stale") && w["stale"].IsBool() && w["stale"].GetBool();
        out << "webapp connectors: " << shown(w, "origin")
            << (stale ? "  (stale: the service did not answer, the cached list is used)" : "") << "\n";
        if (!member(w, "error").empty()) out << "    error: " << shown(w, "error") << "\n";
    }
    if (status.HasMember("secretStore") && status["secretStore"].IsObject())
        out << "credentials: " << shown(status["secretStore"], "kind") << " — " << shown(status["secretStore"], "detail") << "\n";
    out << "plugins:\n";
    for (const JsonValue& p : status["plugins"].GetArray()) {
        if (p.HasMember("notLoadedYet")) {  // named by its manifest: loaded when a server needs it
            out << "    on use  " << shown(p, "path") << "  (not loaded yet; serves";
            if (p.HasMember("transportTypes") && p["transportTypes"].IsArray())
                for (const JsonValue& t : p["transportTypes"].GetArray())
                    if (t.IsString()) out << " " << one_line(t.GetString());
            if (!member(p, "authBackend").empty()) out << " auth:" << shown(p, "authBackend");
            out << ")\n";
            continue;
        }
        out << "    " << (p["loaded"].GetBool() ? "loaded  " : "refused ") << shown(p, "name") << " "
            << shown(p, "version") << "  " << shown(p, "path");
        if (!member(p, "error").empty()) out << "\n        " << shown(p, "error");
        out << "\n";
    }
}

void print_plugins(std::ostream& out, const std::vector<PluginInfo>& plugins) {
    if (plugins.empty()) out << "(no plugin files found; check --plugin-dir and MCPH_PLUGIN_PATH)\n";
    for (const PluginInfo& p : plugins) {
        out << one_line(p.path.string()) << "\n";
        if (p.loaded) {
            out << "    loaded: " << one_line(p.name) << " " << one_line(p.version) << " (ABI " << p.abi_major << "."
                << p.abi_minor << ")";
            for (const auto& t : p.config_types) out << " type:" << one_line(t);
            if (!p.auth_backend.empty()) out << " auth:" << one_line(p.auth_backend);
            out << "\n";
            if (!p.error.empty()) out << "    note: " << one_line(p.error) << "\n";
        } else {
            out << "    refused: " << one_line(p.error) << "\n";
        }
    }
}

Json tools_json(const std::vector<Tool>& tools) {
    Json doc(rapidjson::kArrayType);
    auto& a = doc.GetAllocator();
    for (const Tool& t : tools) {
        JsonValue o(rapidjson::kObjectType);
        o.AddMember("name", str(t.mapped_name, a), a);
        o.AddMember("originalName", str(t.name, a), a);
        o.AddMember("server", str(t.server, a), a);
        if (!t.title.empty()) o.AddMember("title", str(t.title, a), a);
        o.AddMember("description", str(t.description, a), a);
        Json schema;
        if (json_bounds::parse(schema, t.input_schema)) o.AddMember("inputSchema", JsonValue(schema, a), a);
        Json output;
        if (!t.output_schema.empty() && json_bounds::parse(output, t.output_schema))
            o.AddMember("outputSchema", JsonValue(output, a), a);
        Json annotations;
        if (!t.annotations.empty() && json_bounds::parse(annotations, t.annotations))
            o.AddMember("annotations", JsonValue(annotations, a), a);
        if (!t.task_support.empty()) {
            JsonValue execution(rapidjson::kObjectType);
            execution.AddMember("taskSupport", str(t.task_support, a), a);
            o.AddMember("execution", execution, a);
        }
        if (t.destructive) o.AddMember("destructive", true, a);
        o.AddMember("findings", findings_json(t.findings, a), a);
        doc.PushBack(o, a);
    }
    return doc;
}

Json resources_json(const std::vector<Resource>& resources) {
    Json doc(rapidjson::kArrayType);
    auto& a = doc.GetAllocator();
    for (const Resource& r : resources) {
        JsonValue o(rapidjson::kObjectType);
        o.AddMember("uri", str(r.uri, a), a);
        o.AddMember("name", str(r.name, a), a);
        o.AddMember("server", str(r.server, a), a);
        if (!r.mime_type.empty()) o.AddMember("mimeType", str(r.mime_type, a), a);
        doc.PushBack(o, a);
    }
    return doc;
}

Json templates_json(const std::vector<ResourceTemplate>& templates) {
    Json doc(rapidjson::kArrayType);
    auto& a = doc.GetAllocator();
    for (const ResourceTemplate& t : templates) {
        JsonValue v(rapidjson::kObjectType);
        v.AddMember("server", str(t.server, a), a);
        v.AddMember("uriTemplate", str(t.uri_template, a), a);
        v.AddMember("name", str(t.name, a), a);
        if (!t.title.empty()) v.AddMember("title", str(t.title, a), a);
        if (!t.description.empty()) v.AddMember("description", str(t.description, a), a);
        if (!t.mime_type.empty()) v.AddMember("mimeType", str(t.mime_type, a), a);
        doc.PushBack(v, a);
    }
    return doc;
}

Json skills_json(const std::vector<Skill>& skills) {
    Json doc(rapidjson::kArrayType);
    auto& a = doc.GetAllocator();
    for (const Skill& k : skills) {
        JsonValue o(rapidjson::kObjectType);
        o.AddMember("name", str(k.name, a), a);
        o.AddMember("description", str(k.description, a), a);
        o.AddMember("uri", str(k.uri, a), a);
        o.AddMember("server", str(k.server, a), a);
        JsonValue files(rapidjson::kArrayType);
        for (const SkillFile& f : k.files) {
            JsonValue file(rapidjson::kObjectType);
            file.AddMember("uri", str(f.uri, a), a);
            file.AddMember("digest", str(f.digest, a), a);
            file.AddMember("size", f.size, a);
            files.PushBack(file, a);
        }
        o.AddMember("files", files, a);
        if (k.dynamic) o.AddMember("dynamic", true, a);
        doc.PushBack(o, a);
    }
    return doc;
}

Json loaded_skill_json(const LoadedSkill& skill) {
    Json doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("name", str(skill.skill.name, a), a);
    doc.AddMember("uri", str(skill.skill.uri, a), a);
    doc.AddMember("server", str(skill.skill.server, a), a);
    doc.AddMember("content", str(skill.content, a), a);
    return doc;
}

Json prompts_json(const std::vector<Prompt>& prompts) {
    Json doc(rapidjson::kArrayType);
    auto& a = doc.GetAllocator();
    for (const Prompt& p : prompts) {
        JsonValue o(rapidjson::kObjectType);
        o.AddMember("name", str(p.name, a), a);
        o.AddMember("server", str(p.server, a), a);
        o.AddMember("description", str(p.description, a), a);
        JsonValue args(rapidjson::kArrayType);
        for (const auto& arg : p.arguments) {
            JsonValue x(rapidjson::kObjectType);
            x.AddMember("name", str(arg.name, a), a);
            x.AddMember("required", arg.required, a);
            args.PushBack(x, a);
        }
        o.AddMember("arguments", args, a);
        doc.PushBack(o, a);
    }
    return doc;
}

}  // namespace mcph::cli
