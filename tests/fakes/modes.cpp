#include "modes.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <utility>

extern char** environ;  // POSIX: declared by no header

namespace fake {
namespace {

constexpr std::pair<std::string_view, Mode> kModes[] = {
    {"normal", Mode::Normal},          {"invalid-json", Mode::InvalidJson}, {"unknown-id", Mode::UnknownId},
    {"exit-mid-call", Mode::ExitMidCall}, {"never-answer", Mode::NeverAnswer}, {"deaf-call", Mode::DeafCall}, {"stderr-flood", Mode::StderrFlood},
    {"big-message", Mode::BigMessage}, {"bad-version", Mode::BadVersion},   {"no-init", Mode::NoInit},
    {"progress", Mode::Progress},      {"list-changed", Mode::ListChanged}, {"paginate", Mode::Paginate},
    {"bad-cursor", Mode::BadCursor},   {"deep-line", Mode::DeepLine},       {"deep-schema", Mode::DeepSchema},
    {"request-flood", Mode::RequestFlood}, {"deaf-flood", Mode::DeafFlood}, {"list-flood", Mode::ListFlood}, {"progress-forever", Mode::ProgressForever},
    {"silent-discover", Mode::SilentDiscover}, {"modern-only-init", Mode::ModernOnlyInit},
    {"listen-unacked", Mode::ListenUnacked}, {"unlisted-features", Mode::UnlistedFeatures}, {"memory", Mode::Memory},
    {"resource-updates", Mode::ResourceUpdates}, {"update-flood", Mode::UpdateFlood},
    {"env", Mode::Env},
    {"ask-roots", Mode::AskRoots},
};

constexpr std::string_view kSupportedVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26"};
constexpr std::size_t kDefaultBigMessageBytes = std::size_t{50} << 20;   // 50 MiB
constexpr std::size_t kDefaultStderrFloodBytes = std::size_t{100} << 20; // 100 MiB
constexpr int kExitMidCallCode = 3;
constexpr std::size_t kDeepLineBrackets = 1'000'000;
constexpr int kDeepSchemaLevels = 100'000;
constexpr std::size_t kDefaultRequestFlood = 100'000;
constexpr std::size_t kDefaultListFlood = 20'000;
constexpr int kExitAfterInitCode = 4;

// --exit-after-init-ms: a detached timer that ends the process as if it crashed.
void schedule_crash(int ms) {
    std::thread([ms] {
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        const std::string line =
            "fake-mcp-server: simulated crash " + std::to_string(ms) + " ms after initialize\n";
        [[maybe_unused]] ssize_t n = ::write(2, line.data(), line.size());
        std::_Exit(kExitAfterInitCode);
    }).detach();
}

const Value* member(const Value& object, const char* key) {
    if (!object.IsObject()) return nullptr;
    auto it = object.FindMember(key);
    return it == object.MemberEnd() ? nullptr : &it->value;
}

std::string_view string_member(const Value& object, const char* key) {
    const Value* v = member(object, key);
    return v && v->IsString() ? std::string_view(v->GetString(), v->GetStringLength()) : std::string_view();
}

// tools/call arguments.<key> as a byte count, or the fallback.
std::size_t size_argument(const Value& params, const char* key, std::size_t fallback) {
    const Value* args = member(params, "arguments");
    const Value* v = args ? member(*args, key) : nullptr;
    return v && v->IsUint64() ? static_cast<std::size_t>(v->GetUint64()) : fallback;
}

Value text(std::string_view s, Json::AllocatorType& a) {
    return Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), a);
}

Value tool(std::string_view name, std::string_view description, Json::AllocatorType& a) {
    Value t(rapidjson::kObjectType);
    t.AddMember("name", text(name, a), a);
    t.AddMember("description", text(description, a), a);
    Value schema(rapidjson::kObjectType);
    schema.AddMember("type", "object", a);
    Value props(rapidjson::kObjectType);
    Value bytes(rapidjson::kObjectType);
    bytes.AddMember("type", "integer", a);
    props.AddMember("bytes", bytes, a);
    schema.AddMember("properties", props, a);
    t.AddMember("inputSchema", schema, a);
    return t;
}

// A tools/list result: the named tools, and nextCursor when not empty.
Json tools_page(std::initializer_list<std::string_view> names, std::string_view next_cursor) {
    Json result(rapidjson::kObjectType);
    auto& a = result.GetAllocator();
    Value tools(rapidjson::kArrayType);
    for (std::string_view name : names) tools.PushBack(tool(name, "A tool of fake-mcp-server", a), a);
    result.AddMember("tools", tools, a);
    if (!next_cursor.empty()) result.AddMember("nextCursor", text(next_cursor, a), a);
    return result;
}

void flood_stderr(std::size_t total) {
    // 1 MiB of 1 KiB lines, written until `total` bytes are out.
    std::string chunk;
    std::string line(1023, 'E');
    line.replace(0, 24, "fake-mcp-server: flood  ");
    line.push_back('\n');
    while (chunk.size() + line.size() <= (std::size_t{1} << 20)) chunk += line;
    for (std::size_t written = 0; written < total;) {
        std::size_t n = std::min(chunk.size(), total - written);
        std::size_t done = std::fwrite(chunk.data(), 1, n, stderr);
        if (done == 0) return;  // the reader went away
        written += done;
    }
    std::fflush(stderr);
}

// The content text of big-message: a repeating a..z pattern, so truncation or corruption shows.
std::string big_text(std::size_t bytes) {
    std::string s(bytes, '\0');
    for (std::size_t i = 0; i < bytes; ++i) s[i] = static_cast<char>('a' + i % 26);
    return s;
}

}  // namespace

std::optional<Mode> parse_mode(std::string_view name) {
    for (const auto& [n, m] : kModes)
        if (n == name) return m;
    return std::nullopt;
}

const char* mode_names() {
    return "normal invalid-json unknown-id exit-mid-call never-answer deaf-call stderr-flood big-message bad-version "
           "no-init progress list-changed paginate bad-cursor deep-line deep-schema request-flood deaf-flood list-flood "
           "progress-forever silent-discover modern-only-init listen-unacked unlisted-features memory "
           "resource-updates update-flood env ask-roots";
}

void FakeServer::on_start() {
    if (mode_ == Mode::InvalidJson) wire_.write_raw("fake-mcp-server starting (this line is not JSON)");
}

void FakeServer::handle(const Json& message) {
    if (!message.IsObject()) return;
    const std::string_view method = string_member(message, "method");
    const Value* id = member(message, "id");
    static const Value kEmpty(rapidjson::kObjectType);
    const Value* params = member(message, "params");
    if (!params) params = &kEmpty;
    if (method.empty() && id && id->IsString() &&
        (std::string_view(id->GetString()) == "elicit" || std::string_view(id->GetString()) == "roots"))
        return on_elicitation_answer(message);
    if (method.empty() || !id || id->IsNull()) return;  // a notification, or a response to us: nothing to do

    if (method == "server/discover" && mode_ == Mode::SilentDiscover) return;  // read, never answered
    if (mode_ == Mode::ListenUnacked) {
        if (method == "server/discover") {
            Json discover;
            parse(R"({"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":true}}})",
                  discover);
            return wire_.respond(*id, discover);
        }
        if (method == "subscriptions/listen") return;  // held open, never acknowledged
    }
    if (method == "initialize" && mode_ == Mode::ModernOnlyInit) return refuse_legacy(*id, *params);
    if (method == "initialize") return on_initialize(*id, *params);
    if (method == "ping") return wire_.respond(*id, kEmpty);
    if (method == "tools/list") return on_tools_list(*id, *params);
    if (method == "tools/call") return on_tools_call(*id, *params);
    if (method == "prompts/list" && !options_.prompts_file.empty()) return on_prompts_list(*id);
    if ((mode_ == Mode::ResourceUpdates || mode_ == Mode::UpdateFlood) && method.substr(0, 10) == "resources/")
        return on_resource_request(*id, method, *params);
    if (method == "prompts/get" && mode_ == Mode::NeverAnswer) return;  // logged by main, never answered
    if ((method == "skills/list" || method == "skills/get" || method == "resources/read" || method == "resources/list") &&
        !options_.skills_file.empty())
        return on_skills_request(*id, method, *params);
    wire_.respond_error(*id, -32601, "method not found: " + std::string(method));
}

// modern-only-init: initialize is refused the way a modern-only server refuses a version it does
// not speak (-32022, data.supported lists only 2026-07-28), although server/discover got -32601.
void FakeServer::refuse_legacy(const Value& id, const Value& params) {
    Json message(rapidjson::kObjectType);
    auto& a = message.GetAllocator();
    message.AddMember("jsonrpc", "2.0", a);
    message.AddMember("id", Value(id, a), a);
    Value error(rapidjson::kObjectType);
    error.AddMember("code", -32022, a);
    error.AddMember("message", "Unsupported protocol version", a);
    Value data(rapidjson::kObjectType);
    Value supported(rapidjson::kArrayType);
    supported.PushBack("2026-07-28", a);
    data.AddMember("supported", supported, a);
    data.AddMember("requested", text(string_member(params, "protocolVersion"), a), a);
    error.AddMember("data", data, a);
    message.AddMember("error", error, a);
    wire_.write(message);
}

void FakeServer::on_initialize(const Value& id, const Value& params) {
    if (mode_ == Mode::NoInit) return;
    if (options_.init_delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(options_.init_delay_ms));
    std::string_view version = "2025-11-25";
    const std::string_view asked = string_member(params, "protocolVersion");
    for (std::string_view v : kSupportedVersions)
        if (v == asked) version = v;
    if (mode_ == Mode::BadVersion) version = "1999-01-01";

    Json result(rapidjson::kObjectType);
    auto& a = result.GetAllocator();
    result.AddMember("protocolVersion", text(version, a), a);
    Value caps(rapidjson::kObjectType);
    Value tools(rapidjson::kObjectType);
    if (mode_ == Mode::ListChanged || mode_ == Mode::ListFlood || !options_.tools_file.empty())
        tools.AddMember("listChanged", true, a);
    caps.AddMember("tools", tools, a);
    if (!options_.prompts_file.empty() || mode_ == Mode::UnlistedFeatures)
        caps.AddMember("prompts", Value(rapidjson::kObjectType), a);
    // unlisted-features: the list methods fall through to -32601 below (a server that says it has
    // resources and prompts but answers "Method not found": one bad server among good ones).
    if (mode_ == Mode::UnlistedFeatures) caps.AddMember("resources", Value(rapidjson::kObjectType), a);
    if (mode_ == Mode::ResourceUpdates || mode_ == Mode::UpdateFlood) {
        Value resources(rapidjson::kObjectType);
        resources.AddMember("subscribe", true, a);
        caps.AddMember("resources", resources, a);
    }
    if (!options_.skills_file.empty()) {
        caps.AddMember("resources", Value(rapidjson::kObjectType), a);
        Value extensions(rapidjson::kObjectType);
        extensions.AddMember("io.modelcontextprotocol/skills", Value(rapidjson::kObjectType), a);
        caps.AddMember("extensions", extensions, a);
    }
    result.AddMember("capabilities", caps, a);
    Value info(rapidjson::kObjectType);
    info.AddMember("name", "fake-mcp-server", a);
    info.AddMember("version", "0.1.0", a);
    result.AddMember("serverInfo", info, a);
    if (options_.instructions) result.AddMember("instructions", text(*options_.instructions, a), a);
    if (!options_.instructions_file.empty()) {  // read afresh: a test changes them between connects
        std::ifstream in(options_.instructions_file, std::ios::binary);
        std::stringstream content;
        content << in.rdbuf();
        result.AddMember("instructions", text(content.str(), a), a);
    }
    if (mode_ == Mode::InvalidJson) wire_.write_raw("{\"jsonrpc\":\"2.0\",\"id\":");
    wire_.respond(id, result);
    trace_.event("ready");
    if (options_.exit_after_init_ms && !crash_scheduled_) {
        crash_scheduled_ = true;
        schedule_crash(*options_.exit_after_init_ms);
    }
}

bool FakeServer::read_tools_file(Json& tools, std::string& error) const {
    const Value* cached = tools_file_tools(error);
    if (!cached) return false;
    tools.CopyFrom(*cached, tools.GetAllocator());
    return true;
}

namespace {
// The whole file into `out` (its memory reused from call to call); false when unreadable.
bool read_file_into(const std::string& path, std::string& out) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) return false;
    const std::streamoff size = in.tellg();
    if (size < 0) return false;
    out.resize(static_cast<size_t>(size));
    in.seekg(0);
    return static_cast<bool>(in.read(out.data(), size));
}
}  // namespace

const Value* FakeServer::tools_file_tools(std::string& error) const {
    if (!read_file_into(options_.tools_file, tools_read_)) {
        error = "cannot read tools file '" + options_.tools_file + "'";
        return nullptr;
    }
    if (!tools_read_once_ || tools_read_ != tools_bytes_) {
        tools_read_once_ = true;
        tools_bytes_.swap(tools_read_);
        tools_error_.clear();
        tools_doc_ = Json();
        Json doc;
        if (!parse(tools_bytes_, doc)) {
            tools_error_ = "tools file '" + options_.tools_file + "' is not valid JSON";
        } else {
            // {"tools": [...]} is accepted too
            const Value& tools = doc.IsObject() && doc.HasMember("tools") ? doc["tools"] : static_cast<const Value&>(doc);
            tools_doc_.CopyFrom(tools, tools_doc_.GetAllocator());
            if (!tools_doc_.IsArray()) tools_error_ = "tools file '" + options_.tools_file + "' must hold a JSON array of tools";
        }
        // Fill in what MCP requires and the file may leave out.
        auto& a = tools_doc_.GetAllocator();
        if (tools_error_.empty()) {
            for (auto& t : tools_doc_.GetArray()) {
                if (!t.IsObject() || !t.HasMember("name") || !t["name"].IsString()) {
                    tools_error_ = "tools file '" + options_.tools_file + "': every tool needs a string \"name\"";
                    break;
                }
                if (!t.HasMember("inputSchema")) {
                    Value schema(rapidjson::kObjectType);
                    schema.AddMember("type", "object", a);
                    t.AddMember("inputSchema", schema, a);
                }
            }
        }
    }
    if (!tools_error_.empty()) {
        error = tools_error_;
        return nullptr;
    }
    return &tools_doc_;
}

void FakeServer::on_skills_request(const Value& id, std::string_view method, const Value& params) {
    std::ifstream in(options_.skills_file, std::ios::binary);
    std::stringstream content;
    content << in.rdbuf();
    Json doc;
    const Value* skills = nullptr;
    const Value* files = nullptr;
    if (in && parse(content.str(), doc)) {
        skills = member(doc, "skills");
        files = member(doc, "files");
    }
    if (!skills || !skills->IsArray() || !files || !files->IsObject())
        return wire_.respond_error(id, -32603, "skills file '" + options_.skills_file + "' needs a \"skills\" array and a \"files\" object");
    Json result(rapidjson::kObjectType);
    auto& a = result.GetAllocator();
    if (method == "resources/list") {
        result.AddMember("resources", Value(rapidjson::kArrayType), a);
    } else if (method == "skills/list") {
        result.AddMember("skills", Value(*skills, a), a);
    } else if (method == "skills/get") {
        const std::string_view uri = string_member(params, "uri");
        for (const Value& entry : skills->GetArray())
            if (!uri.empty() && string_member(entry, "uri") == uri) result.AddMember("skill", Value(entry, a), a);
        if (!result.HasMember("skill")) return wire_.respond_error(id, -32602, "unknown skill: " + std::string(uri));
    } else {
        const std::string_view uri = string_member(params, "uri");
        const Value* text_value = member(*files, std::string(uri).c_str());
        if (!text_value || !text_value->IsString()) return wire_.respond_error(id, -32002, "resource not found: " + std::string(uri));
        Value item(rapidjson::kObjectType);
        item.AddMember("uri", text(uri, a), a);
        item.AddMember("mimeType", "text/markdown", a);
        item.AddMember("text", Value(*text_value, a), a);
        Value contents(rapidjson::kArrayType);
        contents.PushBack(item, a);
        result.AddMember("contents", contents, a);
    }
    wire_.respond(id, result);
}

void FakeServer::on_resource_request(const Value& id, std::string_view method, const Value& params) {
    static constexpr std::string_view kCounterUri = "fake://counter";
    static int version = 0;  // how many updates were sent: what a read shows
    Json result(rapidjson::kObjectType);
    auto& a = result.GetAllocator();
    const std::string_view uri = string_member(params, "uri");
    if (method == "resources/list") {
        Value entry(rapidjson::kObjectType);
        entry.AddMember("uri", text(kCounterUri, a), a);
        entry.AddMember("name", "counter", a);
        Value list(rapidjson::kArrayType);
        list.PushBack(entry, a);
        result.AddMember("resources", list, a);
        return wire_.respond(id, result);
    }
    if (method == "resources/read") {
        if (uri != kCounterUri) return wire_.respond_error(id, -32002, "resource not found: " + std::string(uri));
        Value item(rapidjson::kObjectType);
        item.AddMember("uri", text(uri, a), a);
        item.AddMember("text", text("version " + std::to_string(version), a), a);
        Value contents(rapidjson::kArrayType);
        contents.PushBack(item, a);
        result.AddMember("contents", contents, a);
        return wire_.respond(id, result);
    }
    if (method == "resources/unsubscribe") return wire_.respond(id, result);
    if (method != "resources/subscribe") return wire_.respond_error(id, -32601, "method not found: " + std::string(method));
    wire_.respond(id, result);
    const int updates = mode_ == Mode::UpdateFlood ? options_.flood_updates : 3;
    Json note(rapidjson::kObjectType);
    note.AddMember("uri", text(uri, note.GetAllocator()), note.GetAllocator());
    for (int i = 0; i < updates; ++i) {
        ++version;
        wire_.notify("notifications/resources/updated", note);
    }
}

void FakeServer::on_prompts_list(const Value& id) {
    std::ifstream in(options_.prompts_file, std::ios::binary);
    std::stringstream content;
    content << in.rdbuf();
    Json prompts;
    if (!in || !parse(content.str(), prompts) || !prompts.IsArray())
        return wire_.respond_error(id, -32603, "prompts file '" + options_.prompts_file + "' must hold a JSON array");
    Json result(rapidjson::kObjectType);
    result.AddMember("prompts", Value(prompts, result.GetAllocator()), result.GetAllocator());
    wire_.respond(id, result);
}

bool FakeServer::knows_tool(std::string_view name) const {
    if (options_.tools_file.empty() && mode_ == Mode::Memory) return name == "remember" || name == "recall";
    if (options_.tools_file.empty()) return name == "work" || mode_ == Mode::ListChanged || mode_ == Mode::ListFlood;
    std::string error;
    const Value* tools = tools_file_tools(error);
    if (!tools) return false;
    for (const auto& t : tools->GetArray())
        if (string_member(t, "name") == name) return true;
    return false;
}

void FakeServer::on_tools_list(const Value& id, const Value& params) {
    // Only where a test counts them: other tests read the trace as start/ready pairs.
    if (mode_ == Mode::ListFlood) trace_.event("tools-list");
    if (mode_ == Mode::DeepSchema) {
        // Written by hand: RapidJSON's own writer would recurse 100,000 levels here too.
        std::string line = "{\"jsonrpc\":\"2.0\",\"id\":" + to_json(id) + ",\"result\":{\"tools\":[{\"name\":\"work\",\"inputSchema\":";
        for (int i = 0; i < kDeepSchemaLevels; ++i) line += "{\"a\":";
        line += "1";
        line.append(kDeepSchemaLevels, '}');
        line += "}]}}";
        return wire_.write_raw(line);
    }
    if (!options_.tools_file.empty()) {
        Json tools;
        std::string error;
        if (!read_tools_file(tools, error)) return wire_.respond_error(id, -32603, error);
        for (auto& t : tools.GetArray()) t.RemoveMember("structuredContent");  // the call's result, not the Tool's
        Json result(rapidjson::kObjectType);
        result.AddMember("tools", Value(tools, result.GetAllocator()), result.GetAllocator());
        return wire_.respond(id, result);
    }
    const std::string_view cursor = string_member(params, "cursor");
    switch (mode_) {
        case Mode::Paginate:
            if (cursor.empty()) return wire_.respond(id, tools_page({"work"}, "page-2"));
            if (cursor == "page-2") return wire_.respond(id, tools_page({"page-two"}, "page-3"));
            if (cursor == "page-3") return wire_.respond(id, tools_page({"page-three"}, ""));
            return wire_.respond_error(id, -32602, "invalid cursor '" + std::string(cursor) + "'");
        case Mode::BadCursor:
            return wire_.respond(id, tools_page({"work"}, "stuck"));
        case Mode::Memory:
            return wire_.respond(id, tools_page({"remember", "recall"}, ""));
        case Mode::ListChanged:
        case Mode::ListFlood:
            if (tools_changed_) return wire_.respond(id, tools_page({"work", "fresh-tool"}, ""));
            return wire_.respond(id, tools_page({"work"}, ""));
        default:
            return wire_.respond(id, tools_page({"work"}, ""));
    }
}

namespace {
// {"NAME": "value", ...} of environ: what the client gave this process (the inheritEnv tests).
std::string environment_json() {
    Json env(rapidjson::kObjectType);
    auto& a = env.GetAllocator();
    for (char** entry = environ; entry && *entry; ++entry) {
        const std::string_view line(*entry);
        const std::size_t eq = line.find('=');
        if (eq == std::string_view::npos) continue;
        Value name = text(line.substr(0, eq), a);
        if (!env.HasMember(name)) env.AddMember(name, text(line.substr(eq + 1), a), a);
    }
    return to_json(env);
}
}  // namespace

void FakeServer::answer_work(const Value& id, std::string_view s) {
    Json result(rapidjson::kObjectType);
    auto& a = result.GetAllocator();
    Value content(rapidjson::kArrayType);
    Value block(rapidjson::kObjectType);
    block.AddMember("type", "text", a);
    block.AddMember("text", text(s, a), a);
    content.PushBack(block, a);
    result.AddMember("content", content, a);
    wire_.respond(id, result);
}

bool FakeServer::answer_structured(const Value& id, const std::string& name) {
    std::string error;
    const Value* tools = options_.tools_file.empty() ? nullptr : tools_file_tools(error);
    if (!tools) return false;
    for (const auto& t : tools->GetArray()) {
        const Value* structured = string_member(t, "name") == name ? member(t, "structuredContent") : nullptr;
        if (!structured) continue;
        Json result(rapidjson::kObjectType);
        auto& a = result.GetAllocator();
        Value content(rapidjson::kArrayType);
        Value block(rapidjson::kObjectType);
        block.AddMember("type", "text", a);
        block.AddMember("text", text(name + " done", a), a);
        content.PushBack(block, a);
        result.AddMember("content", content, a);
        result.AddMember("structuredContent", Value(*structured, a), a);
        wire_.respond(id, result);
        return true;
    }
    return false;
}

void FakeServer::answer_hostile_text(const Value& id, const Value& params) {
    std::ifstream in(options_.text_file, std::ios::binary);
    std::stringstream content;
    content << in.rdbuf();
    const std::string bytes = content.str();  // written as they are: the Writer does not validate UTF-8
    Json log(rapidjson::kObjectType);
    auto& a = log.GetAllocator();
    log.AddMember("level", "warning", a);
    log.AddMember("logger", text(bytes, a), a);
    log.AddMember("data", text(bytes, a), a);
    wire_.notify("notifications/message", log);
    const Value* meta = member(params, "_meta");
    if (const Value* token = meta ? member(*meta, "progressToken") : nullptr) {
        Json p(rapidjson::kObjectType);
        auto& pa = p.GetAllocator();
        p.AddMember("progressToken", Value(*token, pa), pa);
        p.AddMember("progress", 1, pa);
        p.AddMember("message", text(bytes, pa), pa);
        wire_.notify("notifications/progress", p);
    }
    std::fwrite(bytes.data(), 1, bytes.size(), stderr);
    std::fputc('\n', stderr);
    std::fflush(stderr);
    answer_work(id, bytes);
}

void FakeServer::ask_elicitation(const Value& id) {
    std::ifstream in(options_.elicit_file, std::ios::binary);
    std::stringstream content;
    content << in.rdbuf();
    Json params;
    if (!in || !parse(content.str(), params) || !params.IsObject())
        return wire_.respond_error(id, -32603, "elicit file '" + options_.elicit_file + "' must hold a JSON object");
    if (options_.elicit_delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(options_.elicit_delay_ms));
    pending_elicitation_call_.CopyFrom(id, pending_elicitation_call_.GetAllocator());
    Json request(rapidjson::kObjectType);
    auto& a = request.GetAllocator();
    request.AddMember("jsonrpc", "2.0", a);
    request.AddMember("id", "elicit", a);
    request.AddMember("method", "elicitation/create", a);
    request.AddMember("params", Value(params, a), a);
    wire_.write(request);
}

void FakeServer::ask_roots(const Value& id) {
    pending_elicitation_call_.CopyFrom(id, pending_elicitation_call_.GetAllocator());
    wire_.write_raw(R"({"jsonrpc":"2.0","id":"roots","method":"roots/list","params":{}})");
}

void FakeServer::on_elicitation_answer(const Json& message) {
    if (pending_elicitation_call_.IsNull()) return;
    const Value* answer = member(message, "result");
    if (!answer) answer = member(message, "error");
    static const Value kNull;
    answer_work(pending_elicitation_call_, to_json(answer ? *answer : kNull));
    pending_elicitation_call_.SetNull();
}

void FakeServer::on_tools_call(const Value& id, const Value& params) {
    const std::string name(string_member(params, "name"));
    if (!knows_tool(name))
        return wire_.respond_error(id, -32602, "unknown tool '" + std::string(string_member(params, "name")) + "'");
    if (!options_.text_file.empty() && mode_ != Mode::ExitMidCall) return answer_hostile_text(id, params);
    if (!options_.elicit_file.empty()) return ask_elicitation(id);
    if (mode_ == Mode::AskRoots) return ask_roots(id);
    if (answer_structured(id, name)) return;
    switch (mode_) {
        case Mode::Memory: {
            const Value* args = member(params, "arguments");
            const std::string key(args ? string_member(*args, "key") : std::string_view());
            if (name == "remember") {
                memory_[key] = std::string(args ? string_member(*args, "value") : std::string_view());
                return answer_work(id, "remembered " + key);
            }
            auto it = memory_.find(key);
            return answer_work(id, it == memory_.end() ? "nothing remembered under " + key : key + " = " + it->second);
        }
        case Mode::InvalidJson:
            wire_.write_raw("this is not JSON at all");
            wire_.write_raw("]]]");
            answer_work(id, name + " done");
            wire_.write_raw("{\"unterminated\": \"string");
            return;
        case Mode::UnknownId: {
            Json wrong;
            if (id.IsInt64())
                wrong.SetInt64(id.GetInt64() + 1000);
            else
                wrong.SetString("no-such-request", wrong.GetAllocator());
            answer_work(wrong, "wrong answer");
            answer_work(id, name + " done");
            return;
        }
        case Mode::ExitMidCall:
            if (!options_.text_file.empty()) {  // the hostile bytes as the last words on stderr
                std::ifstream in(options_.text_file, std::ios::binary);
                std::fputs((std::stringstream() << in.rdbuf()).str().c_str(), stderr);
                std::fputc('\n', stderr);
            }
            std::fputs("fake-mcp-server: simulated crash while handling tools/call\n", stderr);
            std::fflush(stderr);
            std::fflush(stdout);
            std::_Exit(kExitMidCallCode);
        case Mode::NeverAnswer:
            return;  // logged by main, never answered
        case Mode::DeafCall:
            for (;;) ::pause();  // the main loop stops here: stdin is never read again (SIGTERM ends us)
        case Mode::StderrFlood:
            flood_stderr(size_argument(params, "bytes", kDefaultStderrFloodBytes));
            return answer_work(id, name + " done");
        case Mode::BigMessage:
            return answer_work(id, big_text(size_argument(params, "bytes", kDefaultBigMessageBytes)));
        case Mode::Progress: {
            const Value* meta = member(params, "_meta");
            const Value* token = meta ? member(*meta, "progressToken") : nullptr;
            for (int step = 1; token && step <= 3; ++step) {
                Json p(rapidjson::kObjectType);
                auto& a = p.GetAllocator();
                p.AddMember("progressToken", Value(*token, a), a);
                p.AddMember("progress", step, a);
                p.AddMember("total", 3, a);
                p.AddMember("message", text("step " + std::to_string(step) + " of 3", a), a);
                wire_.notify("notifications/progress", p);
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            }
            return answer_work(id, name + " done");
        }
        case Mode::ListChanged: {
            answer_work(id, name + " done");
            if (!tools_changed_) {
                tools_changed_ = true;
                static const Value kEmpty(rapidjson::kObjectType);
                wire_.notify("notifications/tools/list_changed", kEmpty);
            }
            return;
        }
        case Mode::DeepLine:
            wire_.write_raw(std::string(kDeepLineBrackets, '['));
            return answer_work(id, name + " done");
        case Mode::RequestFlood:
            return in_background(id, params, &FakeServer::flood_requests);
        case Mode::DeafFlood:
            return flood_requests(id, params);  // on the main loop: stdin is not read meanwhile
        case Mode::ListFlood:
            return in_background(id, params, &FakeServer::flood_list_changed);
        case Mode::ProgressForever:
            return in_background(id, params, &FakeServer::progress_forever);
        case Mode::Env:
            return answer_work(id, environment_json());
        default:
            return answer_work(id, name + " done");
    }
}

FakeServer::~FakeServer() {
    // stdin closed: the client is gone. A flood thread may still be writing through `wire_`, which
    // is about to be destroyed, so end the process here rather than join a thread that never ends.
    if (!background_.empty()) std::_Exit(0);
}

void FakeServer::in_background(const Value& id, const Value& params,
                               void (FakeServer::*body)(const Value& id, const Value& params)) {
    auto copy = std::make_shared<Json>();
    copy->SetObject();
    copy->AddMember("id", Value(id, copy->GetAllocator()), copy->GetAllocator());
    copy->AddMember("params", Value(params, copy->GetAllocator()), copy->GetAllocator());
    background_.emplace_back([this, copy, body] { (this->*body)((*copy)["id"], (*copy)["params"]); });
}

// `arguments.count` (default 100,000) requests as fast as the pipe takes them, cycling through
// the three server→client methods, then the call's answer.
void FakeServer::flood_requests(const Value& id, const Value& params) {
    const std::size_t count = size_argument(params, "count", kDefaultRequestFlood);
    static const char* const kRequests[] = {
        R"("method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5}})",
        R"("method":"elicitation/create","params":{"message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}})",
        R"("method":"roots/list","params":{}})",
    };
    for (std::size_t i = 0; i < count; ++i)
        wire_.write_raw("{\"jsonrpc\":\"2.0\",\"id\":\"flood-" + std::to_string(i) + "\"," + kRequests[i % 3]);
    answer_work(id, "work done");
}

// `arguments.count` (default 20,000) list_changed notifications, then the list changes for real
// (`fresh-tool` appears) with one last notification, then the call's answer.
void FakeServer::flood_list_changed(const Value& id, const Value& params) {
    const std::size_t count = size_argument(params, "count", kDefaultListFlood);
    static const Value kEmpty(rapidjson::kObjectType);
    for (std::size_t i = 0; i < count; ++i) wire_.notify("notifications/tools/list_changed", kEmpty);
    tools_changed_ = true;
    wire_.notify("notifications/tools/list_changed", kEmpty);
    answer_work(id, "work done");
}

// Progress every 100 ms for the request's progressToken, for ever: only the client's maximum
// total time can end this call.
void FakeServer::progress_forever(const Value& id, const Value& params) {
    (void)id;
    const Value* meta = member(params, "_meta");
    const Value* token = meta ? member(*meta, "progressToken") : nullptr;
    if (!token) return;
    for (int step = 1;; ++step) {
        Json p(rapidjson::kObjectType);
        auto& a = p.GetAllocator();
        p.AddMember("progressToken", Value(*token, a), a);
        p.AddMember("progress", step, a);
        p.AddMember("message", text("still working, step " + std::to_string(step), a), a);
        wire_.notify("notifications/progress", p);
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

}  // namespace fake
