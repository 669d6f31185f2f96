#include "mcp_handler.hpp"

#include "features.hpp"

#include <mcph/bounded_json.hpp>

#include <cstdio>
#include <exception>

namespace hello {

namespace {

constexpr std::string_view kLatestVersion = "2025-11-25";
constexpr std::string_view kSupportedVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26"};

constexpr const char* kInstructions =
    "hello-mcp is a small example server. Use the `add` tool to add two numbers, `echo` to get text "
    "back unchanged and `countdown` to watch progress notifications; read notes://today for today's "
    "notes; use the review-code prompt to ask for a code review.";

std::string_view view(const Value& s) { return {s.GetString(), s.GetStringLength()}; }

}  // namespace

bool is_supported_protocol_version(std::string_view version) {
    for (auto v : kSupportedVersions)
        if (v == version) return true;
    return false;
}

McpHandler::Message McpHandler::parse(std::string_view text) {
    Message m;
    // Iterative and depth-bounded: a client's 1,000,000 '[' must not overflow this server's stack.
    if (!mcph::json_bounds::parse<rapidjson::kParseFullPrecisionFlag>(m.doc, text)) {
        m.error_code = rpc::parse_error;
        m.error = "Parse error";
        return m;
    }
    m.error_code = rpc::invalid_request;
    if (!m.doc.IsObject()) {
        m.error = m.doc.IsArray() ? "Invalid Request: JSON-RPC batches are not supported" : "Invalid Request: not an object";
        return m;
    }
    auto jsonrpc = m.doc.FindMember("jsonrpc");
    if (jsonrpc == m.doc.MemberEnd() || !jsonrpc->value.IsString() || view(jsonrpc->value) != "2.0") {
        m.error = "Invalid Request: jsonrpc must be \"2.0\"";
        return m;
    }
    auto id = m.doc.FindMember("id");
    bool has_id = id != m.doc.MemberEnd();
    if (has_id && (id->value.IsString() || id->value.IsNumber())) m.id = &id->value;
    auto method = m.doc.FindMember("method");
    if (method != m.doc.MemberEnd()) {
        if (!method->value.IsString()) {
            m.error = "Invalid Request: method must be a string";
            return m;
        }
        if (has_id && !m.id) {
            m.error = "Invalid Request: id must be a string or a number";
            return m;
        }
        m.method = view(method->value);
        m.kind = has_id ? Kind::Request : Kind::Notification;
        m.error_code = 0;
        return m;
    }
    if (has_id && (m.doc.HasMember("result") || m.doc.HasMember("error"))) {
        m.kind = Kind::Response;
        m.error_code = 0;
        return m;
    }
    m.error = "Invalid Request: neither a request, a notification nor a response";
    return m;
}

void McpHandler::initialize(const Value& params, Document& result) {
    if (!params.IsObject()) throw RpcError(rpc::invalid_params, "initialize: params must be an object");
    auto pv = params.FindMember("protocolVersion");
    if (pv == params.MemberEnd() || !pv->value.IsString())
        throw RpcError(rpc::invalid_params, "initialize: 'protocolVersion' must be a string");
    std::string_view asked = view(pv->value);
    protocol_version_ = std::string(is_supported_protocol_version(asked) ? asked : kLatestVersion);

    auto& a = result.GetAllocator();
    result.SetObject();
    result.AddMember("protocolVersion", Value(protocol_version_, a), a);
    Value caps(rapidjson::kObjectType);
    caps.AddMember("tools", Value(rapidjson::kObjectType), a);
    caps.AddMember("resources", Value(rapidjson::kObjectType), a);
    caps.AddMember("prompts", Value(rapidjson::kObjectType), a);
    result.AddMember("capabilities", caps, a);
    Value info(rapidjson::kObjectType);
    info.AddMember("name", "hello-mcp", a);
    info.AddMember("version", "0.1.0", a);
    result.AddMember("serverInfo", info, a);
    result.AddMember("instructions", rapidjson::StringRef(kInstructions), a);
}

Reply McpHandler::handle(Message& m) {
    Reply reply;
    switch (m.kind) {
    case Kind::Invalid:
        reply.response = error_message(nullptr, m.error_code, m.error);
        return reply;
    case Kind::Response:
        return reply;  // this server sends no requests; nothing to match
    case Kind::Notification: {
        if (m.method == "notifications/initialized") {
            initialized_ = true;
        } else if (m.method == "notifications/cancelled") {
            auto params = m.doc.FindMember("params");
            if (params != m.doc.MemberEnd() && params->value.IsObject()) {
                auto rid = params->value.FindMember("requestId");
                if (rid != params->value.MemberEnd()) reply.cancelled_key = to_json(rid->value);
            }
        }
        return reply;  // other notifications are ignored, as JSON-RPC asks
    }
    case Kind::Request:
        break;
    }

    static const Value no_params(rapidjson::kObjectType);
    auto p = m.doc.FindMember("params");
    const Value& params = p == m.doc.MemberEnd() ? no_params : p->value;
    const Value& id = *m.id;
    try {
        if (!params.IsObject()) throw RpcError(rpc::invalid_params, "params must be an object");
        const std::string_view method = m.method;
        Document result;
        if (method == "tools/call") {
            std::string raw;
            call_tool(params, result, raw, reply);
            reply.response = raw.empty() ? result_message(id, result) : raw_result_message(id, raw);
            if (reply.deferred()) reply.request_key = to_json(id);
        } else if (method == "tools/list") {
            reply.response = raw_result_message(id, tools_list_json());
        } else if (method == "ping") {
            reply.response = raw_result_message(id, "{}");
        } else if (method == "initialize") {
            initialize(params, result);
            reply.response = result_message(id, result);
        } else if (method == "resources/list") {
            reply.response = raw_result_message(id, resources_list_json());
        } else if (method == "resources/templates/list") {
            reply.response = raw_result_message(id, resource_templates_list_json());
        } else if (method == "resources/read") {
            read_resource(params, options_.notes_path, result);
            reply.response = result_message(id, result);
        } else if (method == "prompts/list") {
            reply.response = raw_result_message(id, prompts_list_json());
        } else if (method == "prompts/get") {
            get_prompt(params, result);
            reply.response = result_message(id, result);
        } else {
            throw RpcError(rpc::method_not_found, "Method not found: " + std::string(method));
        }
    } catch (const RpcError& e) {
        reply = Reply{};
        reply.response = error_message(&id, e.code(), e.what());
    } catch (const std::exception& e) {
        reply = Reply{};
        reply.response = error_message(&id, rpc::internal_error, std::string("Internal error: ") + e.what());
    }
    if (options_.verbose) std::fprintf(stderr, "hello-server: %.*s\n", static_cast<int>(m.method.size()), m.method.data());
    return reply;
}

}  // namespace hello
