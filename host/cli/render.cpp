#include "render.hpp"

#include <mcph/bounded_json.hpp>

#include <rapidjson/document.h>

namespace mcph::cli {
namespace {

std::string member(const JsonValue& v, const char* key) {
    if (!v.IsObject()) return {};
    auto it = v.FindMember(key);
    return it != v.MemberEnd() && it->value.IsString() ? std::string(it->value.GetString(), it->value.GetStringLength())
                                                       : std::string();
}

std::string first_line(const std::string& text, std::size_t max = 100) {
    std::string line = text.substr(0, text.find('\n'));
    return line.size() > max ? line.substr(0, max - 3) + "..." : line;
}

std::size_t base64_decoded_size(const std::string& b64) { return b64.size() / 4 * 3; }

void print_content_block(std::ostream& out, const JsonValue& block) {
    const std::string type = member(block, "type");
    if (type == "text") {
        out << member(block, "text") << "\n";
    } else if (type == "image" || type == "audio") {
        out << "[" << type << ": " << member(block, "mimeType") << ", ~" << base64_decoded_size(member(block, "data"))
            << " bytes]\n";
    } else if (type == "resource" && block.HasMember("resource")) {
        const JsonValue& r = block["resource"];
        out << "[resource " << member(r, "uri") << "]\n";
        if (r.HasMember("text")) out << member(r, "text") << "\n";
        else out << "[blob: " << member(r, "mimeType") << ", ~" << base64_decoded_size(member(r, "blob")) << " bytes]\n";
    } else if (type == "resource_link") {
        out << "[link: " << member(block, "uri") << (member(block, "name").empty() ? "" : " " + member(block, "name"))
            << "]\n";
    } else {
        out << "[" << (type.empty() ? "unknown" : type) << " content]\n";
    }
}

}  // namespace

void print_tools(std::ostream& out, const std::vector<Tool>& tools) {
    if (tools.empty()) out << "(no tools)\n";
    for (const Tool& t : tools) {
        out << t.mapped_name << (t.destructive ? "  [destructive]" : "");
        const std::string text = t.description.empty() ? t.title : t.description;
        if (!text.empty()) out << "\n    " << first_line(text);
        out << "\n";
    }
}

void print_call_result(std::ostream& out, const CallToolResult& result) {
    if (result.is_error) out << "(the tool reported an error)\n";
    if (result.raw.IsObject() && result.raw.HasMember("content") && result.raw["content"].IsArray())
        for (const JsonValue& block : result.raw["content"].GetArray()) print_content_block(out, block);
    if (const JsonValue* s = result.structured()) out << "structuredContent: " << to_json(*s) << "\n";
}

void print_resources(std::ostream& out, const std::vector<Resource>& resources) {
    if (resources.empty()) out << "(no resources)\n";
    for (const Resource& r : resources)
        out << r.uri << "  " << (r.title.empty() ? r.name : r.title) << "  (" << r.server << ")\n";
}

void print_read_result(std::ostream& out, const JsonValue& result) {
    if (!result.IsObject() || !result.HasMember("contents") || !result["contents"].IsArray()) {
        out << to_pretty_json(result) << "\n";
        return;
    }
    for (const JsonValue& c : result["contents"].GetArray()) {
        if (c.IsObject() && c.HasMember("text")) out << member(c, "text") << (member(c, "text").empty() ? "" : "\n");
        else out << "[blob " << member(c, "uri") << ": " << member(c, "mimeType") << ", ~"
                 << base64_decoded_size(member(c, "blob")) << " bytes]\n";
    }
}

void print_prompts(std::ostream& out, const std::vector<Prompt>& prompts) {
    if (prompts.empty()) out << "(no prompts)\n";
    for (const Prompt& p : prompts) {
        out << p.name << "  (" << p.server << ")";
        if (!p.description.empty()) out << "  " << first_line(p.description);
        for (const auto& a : p.arguments) out << "\n    " << a.name << (a.required ? " (required)" : "");
        out << "\n";
    }
}

void print_prompt_result(std::ostream& out, const JsonValue& result) {
    if (!result.IsObject() || !result.HasMember("messages") || !result["messages"].IsArray()) {
        out << to_pretty_json(result) << "\n";
        return;
    }
    for (const JsonValue& m : result["messages"].GetArray()) {
        out << member(m, "role") << ": ";
        if (m.IsObject() && m.HasMember("content")) print_content_block(out, m["content"]);
        else out << "\n";
    }
}

namespace {

void print_server(std::ostream& out, const JsonValue& s) {
    out << member(s, "name") << "  [" << member(s, "type") << ", " << member(s, "scope") << "]  " << member(s, "state");
    if (s.HasMember("attempt") && s["attempt"].GetInt() > 0)
        out << " (reconnecting " << s["attempt"].GetInt() << "/" << s["maxAttempts"].GetInt() << ")";
    out << "\n";
    if (!member(s, "pluginSource").empty()) out << "    from plugin: " << member(s, "pluginSource") << "\n";
    if (s.HasMember("serverInfo"))
        out << "    server: " << member(s["serverInfo"], "name") << " " << member(s["serverInfo"], "version")
            << ", protocol " << member(s, "protocolVersion") << "\n";
    if (s.HasMember("tools") && s["tools"].IsArray()) {
        out << "    tools (" << s["tools"].Size() << "):";
        for (const JsonValue& t : s["tools"].GetArray())
            out << " " << member(t, "name") << (t.HasMember("destructive") ? " [destructive]" : "");
        out << "\n";
    }
    if (s.HasMember("withheldTools"))
        for (const JsonValue& t : s["withheldTools"].GetArray())
            out << "    WITHHELD " << member(t, "name") << ": " << member(t, "reason") << " (run `mcph approve "
                << member(s, "name") << "` after reviewing it)\n";
    if (s.HasMember("resources")) out << "    resources: " << s["resources"].Size() << "\n";
    if (s.HasMember("prompts")) out << "    prompts: " << s["prompts"].Size() << "\n";
    if (!member(s, "instructions").empty()) out << "    instructions: " << first_line(member(s, "instructions")) << "\n";
    if (!member(s, "error").empty()) out << "    error: " << first_line(member(s, "error")) << "\n";
    if (s.HasMember("stderrTail"))
        for (const JsonValue& line : s["stderrTail"].GetArray()) out << "    stderr| " << line.GetString() << "\n";
}

void print_excluded(std::ostream& out, const JsonValue& status, const char* key, const char* title) {
    if (!status.HasMember(key) || status[key].Empty()) return;
    out << title << ":\n";
    for (const JsonValue& e : status[key].GetArray()) {
        out << "    " << (member(e, "name").empty() ? member(e, "origin") : member(e, "name"));
        if (!member(e, "scope").empty()) out << " [" << member(e, "scope") << "]";
        out << ": " << member(e, "reason") << "\n";
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
    out << "plugins:\n";
    for (const JsonValue& p : status["plugins"].GetArray()) {
        out << "    " << (p["loaded"].GetBool() ? "loaded  " : "refused ") << member(p, "name") << " "
            << member(p, "version") << "  " << member(p, "path");
        if (!member(p, "error").empty()) out << "\n        " << member(p, "error");
        out << "\n";
    }
}

void print_plugins(std::ostream& out, const std::vector<PluginInfo>& plugins) {
    if (plugins.empty()) out << "(no plugin files found; check --plugin-dir and MCPH_PLUGIN_PATH)\n";
    for (const PluginInfo& p : plugins) {
        out << p.path.string() << "\n";
        if (p.loaded) {
            out << "    loaded: " << p.name << " " << p.version << " (ABI " << p.abi_major << "." << p.abi_minor << ")";
            for (const auto& t : p.config_types) out << " type:" << t;
            if (!p.auth_backend.empty()) out << " auth:" << p.auth_backend;
            out << "\n";
            if (!p.error.empty()) out << "    note: " << p.error << "\n";
        } else {
            out << "    refused: " << p.error << "\n";
        }
    }
}

Json tools_json(const std::vector<Tool>& tools) {
    Json doc(rapidjson::kArrayType);
    auto& a = doc.GetAllocator();
    for (const Tool& t : tools) {
        JsonValue o(rapidjson::kObjectType);
        o.AddMember("name", JsonValue(t.mapped_name.c_str(), a), a);
        o.AddMember("originalName", JsonValue(t.name.c_str(), a), a);
        o.AddMember("server", JsonValue(t.server.c_str(), a), a);
        o.AddMember("description", JsonValue(t.description.c_str(), a), a);
        Json schema;
        if (mcph::json_bounds::parse(schema, t.input_schema)) o.AddMember("inputSchema", JsonValue(schema, a), a);
        if (t.destructive) o.AddMember("destructive", true, a);
        doc.PushBack(o, a);
    }
    return doc;
}

Json resources_json(const std::vector<Resource>& resources) {
    Json doc(rapidjson::kArrayType);
    auto& a = doc.GetAllocator();
    for (const Resource& r : resources) {
        JsonValue o(rapidjson::kObjectType);
        o.AddMember("uri", JsonValue(r.uri.c_str(), a), a);
        o.AddMember("name", JsonValue(r.name.c_str(), a), a);
        o.AddMember("server", JsonValue(r.server.c_str(), a), a);
        if (!r.mime_type.empty()) o.AddMember("mimeType", JsonValue(r.mime_type.c_str(), a), a);
        doc.PushBack(o, a);
    }
    return doc;
}

Json prompts_json(const std::vector<Prompt>& prompts) {
    Json doc(rapidjson::kArrayType);
    auto& a = doc.GetAllocator();
    for (const Prompt& p : prompts) {
        JsonValue o(rapidjson::kObjectType);
        o.AddMember("name", JsonValue(p.name.c_str(), a), a);
        o.AddMember("server", JsonValue(p.server.c_str(), a), a);
        o.AddMember("description", JsonValue(p.description.c_str(), a), a);
        JsonValue args(rapidjson::kArrayType);
        for (const auto& arg : p.arguments) {
            JsonValue x(rapidjson::kObjectType);
            x.AddMember("name", JsonValue(arg.name.c_str(), a), a);
            x.AddMember("required", arg.required, a);
            args.PushBack(x, a);
        }
        o.AddMember("arguments", args, a);
        doc.PushBack(o, a);
    }
    return doc;
}

}  // namespace mcph::cli
