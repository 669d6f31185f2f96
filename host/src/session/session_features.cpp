// SessionCore, features: tools, resources, prompts (paginated, cached, refreshed after changes),
// tools/call with output-schema validation and tasks, tools set aside for invalid x-mcp-header.
#include "session/session_core.hpp"

#include "extensions/tasks.hpp"
#include "session/feature_parsing.hpp"
#include "session/pagination.hpp"
#include "session/session_core_internals.hpp"

namespace mcph::detail {

using namespace core_internal;

std::vector<Tool> SessionCore::fetch_tools() {
    require_capability("tools", "tools");
    std::vector<Tool> tools;
    session::for_each_page_item(
        "tools/list from '" + settings_.server_name + "'", "tools",
        [this](const std::string& cursor) { return cached_call("tools/list", cursor_params(cursor)); },
        [](const JsonValue& item) { return std::optional<std::string>(json::string_or(item, "name")); },
        [&](const JsonValue& item) {
            if (auto tool = parse_tool(settings_.server_name, item)) tools.push_back(std::move(*tool));
        },
        [this](const std::string& warning) { log(LogLevel::Warn, warning); });
    set_aside_invalid_header_tools(tools);
    output_schemas_.set_tools(tools);
    {
        std::lock_guard lock(state_mutex_);
        tools_ = tools;
    }
    tools_generation_->fetch_add(1, std::memory_order_acq_rel);
    return tools;
}

std::vector<Resource> SessionCore::fetch_resources() {
    require_capability("resources", "resources");
    std::vector<Resource> out;
    session::for_each_page_item(
        "resources/list from '" + settings_.server_name + "'", "resources",
        [this](const std::string& cursor) { return cached_call("resources/list", cursor_params(cursor)); },
        [](const JsonValue& item) { return std::optional<std::string>(json::string_or(item, "uri")); },
        [&](const JsonValue& item) {
            if (auto r = parse_resource(settings_.server_name, item)) out.push_back(std::move(*r));
        },
        [this](const std::string& warning) { log(LogLevel::Warn, warning); });
    std::lock_guard lock(state_mutex_);
    resources_ = out;
    return out;
}

std::vector<ResourceTemplate> SessionCore::fetch_resource_templates() {
    require_capability("resources", "resource templates");
    std::vector<ResourceTemplate> out;
    session::for_each_page_item(
        "resources/templates/list from '" + settings_.server_name + "'", "resourceTemplates",
        [this](const std::string& cursor) { return cached_call("resources/templates/list", cursor_params(cursor)); },
        [](const JsonValue& item) { return std::optional<std::string>(json::string_or(item, "uriTemplate")); },
        [&](const JsonValue& item) {
            if (auto r = parse_resource_template(settings_.server_name, item)) out.push_back(std::move(*r));
        },
        [this](const std::string& warning) { log(LogLevel::Warn, warning); });
    return out;
}

std::vector<Prompt> SessionCore::fetch_prompts() {
    require_capability("prompts", "prompts");
    std::vector<Prompt> out;
    session::for_each_page_item(
        "prompts/list from '" + settings_.server_name + "'", "prompts",
        [this](const std::string& cursor) { return cached_call("prompts/list", cursor_params(cursor)); },
        [](const JsonValue& item) { return std::optional<std::string>(json::string_or(item, "name")); },
        [&](const JsonValue& item) {
            if (auto p = parse_prompt(settings_.server_name, item)) out.push_back(std::move(*p));
        },
        [this](const std::string& warning) { log(LogLevel::Warn, warning); });
    std::lock_guard lock(state_mutex_);
    prompts_ = out;
    return out;
}

CallToolResult SessionCore::call_tool(const std::string& name, const JsonValue& arguments, const RequestOptions& options) {
    Json params(rapidjson::kObjectType);
    auto& a = params.GetAllocator();
    params.AddMember("name", json::string_value(name, a), a);
    if (arguments.IsObject()) {
        // The caller's arguments outlive this synchronous call, and the params die with it: long
        // strings (a 1 MiB payload) are referred to, not copied here nor by the retry's clone.
        std::optional<JsonValue> borrowed = json::borrowing_copy(arguments, a, json::kWriteDepth - 2);
        if (!borrowed)
            throw Error(ErrorKind::Usage, "tools/call arguments of '" + name + "' are nested deeper than " +
                                              std::to_string(json::kWriteDepth - 2) +
                                              " levels or hold a number that is not finite; not sent");
        params.AddMember("arguments", *borrowed, a);
    } else if (!arguments.IsNull())
        throw Error(ErrorKind::Usage, "tool arguments must be a JSON object");
    // 2025-11-25 experimental tasks: a tool that requires it (or allows it, when the caller prefers
    // tasks) is called task-augmented on a server that offers task-augmented tools/call.
    bool as_task = false;
    // The tool's taskSupport is looked up only on a server offering task-augmented calls, and in
    // place: copying the cached list made every call cost O(tools) (bench: 15 -> 170 us at 500 tools).
    if (!modern() && extensions::server_offers_tool_tasks(facts()->capabilities)) {
        std::string support;
        {
            std::lock_guard lock(state_mutex_);
            for (const Tool& t : tools_)
                if (t.name == name) support = t.task_support;
        }
        as_task = support == "required" || (support == "optional" && options.prefer_task);
    }
    CallToolResult result;
    if (as_task) {
        params.AddMember("task", JsonValue(rapidjson::kObjectType), a);
        const std::string context = "tools/call of '" + name + "' from '" + settings_.server_name + "'";
        Json created = answer("tools/call", std::move(params), extensions::task_poll_options(options), {});
        const RequestOptions poll = extensions::task_poll_options(options);
        result.raw = extensions::run_task(
            created, extensions::task_run_for(extensions::TaskDialect::Legacy, context, options,
                                              settings_.request_timeout, [this, poll](const std::string& m, Json p) {
                                                  return request(m, std::move(p), poll).get();
                                              }));
    } else {
        result.raw = call("tools/call", std::move(params), options);
    }
    if (!result.raw.IsObject()) throw Error(ErrorKind::Protocol, "tools/call result is not an object");
    result.is_error = json::bool_or(result.raw, "isError", false);
    if (!json::array_member(result.raw, "content") && !result.structured())
        throw Error(ErrorKind::Protocol, "tools/call result of '" + name + "' has no content");
    std::string problem = output_schemas_.validate(name, result);
    if (!problem.empty()) throw Error(ErrorKind::Protocol, problem);
    return result;
}

// Over a transport that mirrors parameters into headers (Streamable HTTP), a tool whose
// x-mcp-header annotations break the spec's rules is left out — that tool only, never the server
// — with a warning and its reason kept for status. The valid annotations are kept per tool.
void SessionCore::set_aside_invalid_header_tools(std::vector<Tool>& tools) {
    std::unordered_map<std::string, std::vector<session::ParamHeader>> headers;
    std::vector<std::pair<std::string, std::string>> set_aside;
    if (transport_traits_.load() & MCPH_TRAIT_HTTP_HEADERS) {
        std::erase_if(tools, [&](const Tool& tool) {
            Json schema;
            json_bounds::parse(schema, tool.input_schema);  // written by us from a bounded tree
            session::HeaderAnnotations annotations = session::read_header_annotations(schema);
            if (!annotations.valid()) {
                log(LogLevel::Warn, "tool '" + tool.name + "' set aside: invalid x-mcp-header annotation (" +
                                        annotations.invalid_reason + ")");
                set_aside.emplace_back(tool.name, annotations.invalid_reason);
                return true;
            }
            if (!annotations.headers.empty()) headers.emplace(tool.name, std::move(annotations.headers));
            return false;
        });
    }
    std::lock_guard lock(state_mutex_);
    param_headers_ = std::move(headers);
    set_aside_tools_ = std::move(set_aside);
}

std::vector<std::pair<std::string, std::string>> SessionCore::set_aside_tools() const {
    std::lock_guard lock(state_mutex_);
    return set_aside_tools_;
}

std::vector<Tool> SessionCore::cached_tools() const {
    std::lock_guard lock(state_mutex_);
    return tools_;
}

std::vector<Resource> SessionCore::cached_resources() const {
    std::lock_guard lock(state_mutex_);
    return resources_;
}

std::vector<Prompt> SessionCore::cached_prompts() const {
    std::lock_guard lock(state_mutex_);
    return prompts_;
}

void SessionCore::refresh_lists() {
    for (const char* which : {"tools", "resources", "prompts"})
        if (has_capability(which)) refresh_list(which);
}

bool SessionCore::refresh_list(const std::string& which) {
    try {
        if (which == "tools") fetch_tools();
        else if (which == "resources") fetch_resources();
        else if (which == "prompts") fetch_prompts();
        return true;
    } catch (const Error& e) {
        log(LogLevel::Warn, "could not list " + which + ": " + e.what());
        return false;
    }
}

session::ListRefreshGate& SessionCore::refresh_gate(const std::string& which) {
    return refresh_gates_[which == "tools" ? 0 : which == "resources" ? 1 : 2];
}

// One refresh in flight per list kind; notifications arriving meanwhile set its dirty flag and
// cost one more refresh after it, however many there were. Two refreshes start at least
// kListRefreshSpacing apart (a timer on the loop; no thread is held while waiting).
void SessionCore::schedule_refresh(const std::string& which) {
    if (refresh_gate(which).request()) start_refresh(which);
}

void SessionCore::start_refresh(const std::string& which) {
    const auto delay = refresh_gate(which).start_delay(std::chrono::steady_clock::now(), kListRefreshSpacing);
    std::weak_ptr<SessionCore> weak = weak_from_this();
    // The refresh waits for responses, so it must not run on the transport thread.
    auto run = [weak, which] {
        if (auto self = weak.lock()) self->run_refresh(which);
    };
    if (delay <= std::chrono::steady_clock::duration::zero()) {
        runtime_.run_background(run);
        return;
    }
    auto timer = std::make_shared<boost::asio::steady_timer>(runtime_.loop(), delay);
    timer->async_wait([weak, which, timer, run](const boost::system::error_code& ec) {
        auto self = weak.lock();
        if (!self) return;
        if (ec) self->refresh_gate(which).abandon();
        else self->runtime_.run_background(run);
    });
}

void SessionCore::run_refresh(const std::string& which) {
    session::ListRefreshGate& gate = refresh_gate(which);
    if (!connected()) {
        gate.abandon();
        return;
    }
    if (refresh_list(which) && settings_.callbacks.on_list_changed)
        settings_.callbacks.on_list_changed(settings_.server_name, which);
    if (gate.finish()) start_refresh(which);  // notifications came meanwhile: once more, later
}

}  // namespace mcph::detail
