// Tools: add (numbers in, text + structuredContent out), echo (text back unchanged, used for the
// 1 MB benchmark payloads) and countdown (progress notifications, then "done").
#include "features.hpp"

#include <cmath>
#include <cstdint>
#include <string>

namespace hello {

namespace {

constexpr std::string_view kToolsList = R"({"tools":[)"
    R"({"name":"add","title":"Adder","description":"Adds two numbers",)"
    R"("inputSchema":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]},)"
    R"("outputSchema":{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}},)"
    R"({"name":"echo","title":"Echo","description":"Returns the given text unchanged",)"
    R"("inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}},)"
    R"({"name":"countdown","title":"Countdown","description":"Counts down, reporting progress when asked for it, then says done",)"
    R"("inputSchema":{"type":"object","properties":{"steps":{"type":"integer","default":3,"minimum":0,"maximum":1000},)"
    R"("delayMs":{"type":"integer","default":200,"minimum":0,"maximum":60000}}}})"
    R"(]})";

// A result object with one text content block.
void set_text_result(Document& result, Value&& text, bool is_error) {
    auto& a = result.GetAllocator();
    result.SetObject();
    Value block(rapidjson::kObjectType);
    block.AddMember("type", "text", a);
    block.AddMember("text", text, a);
    Value content(rapidjson::kArrayType);
    content.PushBack(block, a);
    result.AddMember("content", content, a);
    if (is_error) result.AddMember("isError", true, a);
}

void tool_error(Document& result, const std::string& message) {
    set_text_result(result, Value(message, result.GetAllocator()), true);
}

const Value* member(const Value& object, const char* name) {
    if (!object.IsObject()) return nullptr;
    auto it = object.FindMember(name);
    return it == object.MemberEnd() ? nullptr : &it->value;
}

// The result is written as text directly: RapidJSON's Grisu2 would print 0.1+0.2 as
// 0.30000000000000007 (round-trips, but is not the shortest form JavaScript prints).
void add(const Value& args, Document& result, std::string& raw_result) {
    const Value* a = member(args, "a");
    const Value* b = member(args, "b");
    if (!a || !b || !a->IsNumber() || !b->IsNumber()) {
        tool_error(result, "add: arguments 'a' and 'b' must both be numbers");
        return;
    }
    double sum = a->GetDouble() + b->GetDouble();
    if (!std::isfinite(sum)) {
        tool_error(result, "add: the sum is not a finite number");
        return;
    }
    const std::string n = format_number(sum);  // digits, '.', '-', 'e', '+' only: valid JSON as is
    raw_result.reserve(80 + 2 * n.size());
    raw_result.append(R"({"content":[{"type":"text","text":")").append(n).append(R"("}],"structuredContent":{"sum":)")
        .append(n).append("}}");
}

void echo(const Value& args, Document& result) {
    const Value* text = member(args, "text");
    if (!text || !text->IsString()) {
        tool_error(result, "echo: argument 'text' must be a string");
        return;
    }
    // Borrow the string from the request document: it outlives the serialisation of the result.
    set_text_result(result, Value(rapidjson::StringRef(text->GetString(), text->GetStringLength())), false);
}

// An integer argument with a default and a range; false if present but not such an integer.
bool integer_arg(const Value& args, const char* name, std::int64_t fallback, std::int64_t max, std::int64_t& out) {
    const Value* v = member(args, name);
    if (!v) {
        out = fallback;
        return true;
    }
    if (!v->IsNumber()) return false;
    double d = v->GetDouble();
    if (d != std::trunc(d) || d < 0 || d > static_cast<double>(max)) return false;
    out = static_cast<std::int64_t>(d);
    return true;
}

void countdown(const Value& params, const Value& args, Document& result, Reply& reply) {
    std::int64_t steps = 0, delay_ms = 0;
    if (!integer_arg(args, "steps", 3, 1000, steps) || !integer_arg(args, "delayMs", 200, 60000, delay_ms)) {
        tool_error(result, "countdown: 'steps' must be an integer in 0..1000 and 'delayMs' in 0..60000");
        return;
    }
    const Value* meta = member(params, "_meta");
    const Value* token = meta ? member(*meta, "progressToken") : nullptr;
    if (token && (token->IsString() || token->IsNumber())) {
        for (std::int64_t i = 1; i <= steps; ++i) {
            Document p(rapidjson::kObjectType);
            auto& a = p.GetAllocator();
            p.AddMember("progressToken", Value(*token, a), a);
            p.AddMember("progress", Value(i), a);
            p.AddMember("total", Value(steps), a);
            p.AddMember("message", Value("step " + std::to_string(i) + " of " + std::to_string(steps), a), a);
            reply.steps.push_back({std::chrono::milliseconds(delay_ms), notification_message("notifications/progress", p)});
        }
    } else {
        reply.response_delay = std::chrono::milliseconds(steps * delay_ms);
    }
    set_text_result(result, Value("done"), false);
}

}  // namespace

std::string_view tools_list_json() { return kToolsList; }

void call_tool(const Value& params, Document& result, std::string& raw_result, Reply& reply) {
    const Value* name = member(params, "name");
    if (!name || !name->IsString()) throw RpcError(rpc::invalid_params, "tools/call: 'name' must be a string");
    static const Value empty(rapidjson::kObjectType);
    const Value* args = member(params, "arguments");
    if (!args) args = &empty;
    if (!args->IsObject()) throw RpcError(rpc::invalid_params, "tools/call: 'arguments' must be an object");

    std::string_view tool(name->GetString(), name->GetStringLength());
    if (tool == "add") return add(*args, result, raw_result);
    if (tool == "echo") return echo(*args, result);
    if (tool == "countdown") return countdown(params, *args, result, reply);
    throw RpcError(rpc::invalid_params, "Unknown tool: " + std::string(tool));
}

}  // namespace hello
