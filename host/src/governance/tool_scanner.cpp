#include "governance/tool_scanner.hpp"

#include "tools/name_mapping.hpp"

#include <mcph/bounded_json.hpp>

#include <atomic>
#include <set>

namespace mcph::governance {
namespace {

// RFC 6901: '~' → "~0", '/' → "~1".
std::string pointer_token(std::string_view key) {
    std::string out;
    for (char c : key) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out.push_back(c);
    }
    return out;
}

// A JSON Pointer longer than this is cut (with "..."): a finding's location stays readable and a
// deep schema of long keys cannot make every location megabytes long.
constexpr std::size_t kMaxPathBytes = 512;

// Walks a schema or annotations document, scanning every string and every member name. The path is
// kept as a stack of keys and spelled out only for a string that has findings, so walking costs
// what the document costs, however deep and wide.
class JsonWalker {
public:
    JsonWalker(FindingField field, const ScanContext& context, std::vector<Finding>& out)
        : field_(field), context_(context), out_(out) {}

    // Depth is bounded by the parse (json_bounds::kMaxDepth), so recursion is safe here.
    void walk(const rapidjson::Value& v) {
        if (full()) return;
        if (v.IsString()) {
            scan(std::string_view(v.GetString(), v.GetStringLength()), false);
        } else if (v.IsObject()) {
            for (const auto& m : v.GetObject()) {
                keys_.push_back(std::string_view(m.name.GetString(), m.name.GetStringLength()));
                scan(keys_.back(), true);
                walk(m.value);
                keys_.pop_back();
                if (full()) return;
            }
        } else if (v.IsArray()) {
            rapidjson::SizeType i = 0;
            for (const auto& e : v.GetArray()) {
                const std::string index = std::to_string(i++);
                keys_.push_back(index);
                walk(e);
                keys_.pop_back();
                if (full()) return;
            }
        }
    }

    void scan(std::string_view s, bool key) {
        const std::size_t before = out_.size();
        scan_text(s, TextSite{field_, "", key, key ? kMaxNameBytes : kMaxSchemaStringBytes}, context_, out_);
        if (out_.size() == before) return;
        const std::string here = path();
        for (std::size_t i = before; i < out_.size(); ++i) out_[i].path = here;
    }

private:
    std::string path() const {
        std::string out;
        for (std::string_view key : keys_) {
            out += "/" + pointer_token(key);
            if (out.size() > kMaxPathBytes) {
                std::size_t cut = kMaxPathBytes;
                while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
                out.resize(cut);
                return out + "...";
            }
        }
        return out;
    }

    bool full() const { return out_.size() >= kMaxFindingsPerTool; }
    FindingField field_;
    const ScanContext& context_;
    std::vector<Finding>& out_;
    std::vector<std::string_view> keys_;  // array indices point into the strings of walk()'s frames
};

void scan_json_text(std::string_view text, FindingField field, const ScanContext& context, std::vector<Finding>& out) {
    if (text.empty()) return;
    JsonWalker walker(field, context, out);
    rapidjson::Document doc;
    // Text that is not JSON (a session keeps what it could not parse) is scanned as one string.
    if (!json_bounds::parse(doc, text)) return walker.scan(text, false);
    walker.walk(doc);
}

bool distinctive(std::string_view name) {
    return name.size() >= 5 && name.find_first_of("_-") != std::string_view::npos;
}

}  // namespace

ToolText tool_text(const Tool& tool) {
    return {tool.name, tool.title, tool.description, tool.input_schema, tool.output_schema, tool.annotations};
}

namespace {
std::atomic<std::uint64_t> g_tool_scans{0};
}  // namespace

std::uint64_t tool_scans() { return g_tool_scans.load(std::memory_order_relaxed); }

std::vector<Finding> scan_tool(const ToolText& tool, const ScanContext& context) {
    g_tool_scans.fetch_add(1, std::memory_order_relaxed);
    std::vector<Finding> out;
    static const ScanContext kNone;
    // The name is what the host maps and calls; sharing another server's name is not a reference.
    scan_text(tool.name, {FindingField::Name, "", false, kMaxNameBytes}, kNone, out);
    scan_text(tool.title, {FindingField::Title, "", false, kMaxTitleBytes}, context, out);
    scan_text(tool.description, {FindingField::Description, "", false, kMaxDescriptionBytes}, context, out);
    scan_json_text(tool.input_schema, FindingField::InputSchema, context, out);
    scan_json_text(tool.output_schema, FindingField::OutputSchema, context, out);
    scan_json_text(tool.annotations, FindingField::Annotations, context, out);
    if (out.size() > kMaxFindingsPerTool) out.resize(kMaxFindingsPerTool);
    return out;
}

std::vector<Finding> scan_instructions(std::string_view text, const ScanContext& context) {
    std::vector<Finding> out;
    scan_text(text, {FindingField::Instructions, "", false, kMaxInstructionsBytes}, context, out);
    return out;
}

}  // namespace mcph::governance

namespace mcph {

std::vector<Finding> scan_server_text(std::string_view text, FindingField field) {
    std::vector<Finding> out;
    const std::size_t max = field == FindingField::Instructions ? governance::kMaxInstructionsBytes
                                                                : governance::kMaxDescriptionBytes;
    governance::scan_text(text, {field, "", false, max}, {}, out);
    return out;
}

}  // namespace mcph

namespace mcph::governance {

ScanContext foreign_context(const std::vector<Tool>& own, const std::vector<Tool>& others) {
    std::set<std::string, std::less<>> mine;
    for (const Tool& t : own) mine.insert(t.name);
    ScanContext context;
    for (const Tool& t : others) {
        context.foreign_names.insert(tools::map_tool_name(t.server, t.name));
        context.foreign_names.insert(t.server + "/" + t.name);
        if (distinctive(t.name) && !mine.count(t.name)) context.foreign_names.insert(t.name);
    }
    return context;
}

}  // namespace mcph::governance
