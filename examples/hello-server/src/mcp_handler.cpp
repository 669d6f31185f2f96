#include "mcp_handler.hpp"

#include "features.hpp"

#include <mcph/bounded_json.hpp>

#include <cstdio>
#include <exception>

namespace hello {

namespace {

constexpr std::string_view kLatestVersion = "2025-11-25";
constexpr std::string_view kSupportedVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26"};  // initialize
constexpr int kUnsupportedProtocolVersion = -32022;  // schema 2026-07-28 UNSUPPORTED_PROTOCOL_VERSION
constexpr const char* kProtocolVersionKey = "io.modelcontextprotocol/protocolVersion";

constexpr const char* kInstructions =
    "hello-mcp is a small example server. Use the `add` tool to add two numbers, `echo` to get text "
    "back unchanged and `countdown` to watch progress notifications; read notes://today for today's "
    "notes; use the review-code prompt to ask for a code review.";

std::string_view view(const Value& s) { return {s.GetString(), s.GetStringLength()}; }

bool is_legacy_version(std::string_view version) {
    for (auto v : kSupportedVersions)
        if (v == version) return true;
    return false;
}

// The fields every 2026-07-28 result carries, and the cache fields of the cacheable ones (this
// server promises nothing about freshness: ttlMs 0, private), spliced at the front of a result
// object this server serialised itself. Text, not a DOM: the benchmark's hot path stays one pass.
std::string modern_result(std::string_view method, std::string_view result_json) {
    const bool cacheable = method == "tools/list" || method == "prompts/list" || method == "resources/list" ||
                           method == "resources/templates/list" || method == "resources/read" ||
                           method == "server/discover";
    std::string out = R"({"resultType":"complete",)";
    if (cacheable) out += R"("ttlMs":0,"cacheScope":"private",)";
    out += R"("_meta":{"io.modelcontextprotocol/serverInfo":{"name":"hello-mcp","version":"0.1.0"}})";
    std::string_view rest = result_json.substr(1);  // after the '{'
    if (!rest.empty() && rest.front() != '}') out += ',';  // this server writes no whitespace
    out.append(rest.data(), rest.size());
    return out;
}

std::string serialise(const Value& v) { return to_json(v); }

}  // namespace

bool is_supported_protocol_version(std::string_view version) {
    return version == kModernVersion || is_legacy_version(version);
}

std::string unsupported_version_message(const Value* id, std::string_view requested) {
    Document data(rapidjson::kObjectType);
    auto& a = data.GetAllocator();
    Value supported(rapidjson::kArrayType);
    supported.PushBack(Value(rapidjson::StringRef(kModernVersion.data(), kModernVersion.size())), a);
    data.AddMember("supported", supported, a);
    data.AddMember("requested", Value(requested.data(), static_cast<rapidjson::SizeType>(requested.size()), a), a);
    return error_message(id, kUnsupportedProtocolVersion,
                         "Unsupported protocol version " + std::string(requested) + "; supported: 2026-07-28", &data);
}

namespace {
// envelope_version of `doc` (a parsed request or notification), empty when absent or not a string.
std::string_view envelope_version_of(const Document& doc) {
    auto params = doc.FindMember("params");
    if (params == doc.MemberEnd() || !params->value.IsObject()) return {};
    auto meta = params->value.FindMember("_meta");
    if (meta == params->value.MemberEnd() || !meta->value.IsObject()) return {};
    auto version = meta->value.FindMember(kProtocolVersionKey);
    if (version == meta->value.MemberEnd() || !version->value.IsString()) return {};
    return view(version->value);
}
}  // namespace

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
        m.envelope_version = envelope_version_of(m.doc);
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
    protocol_version_ = std::string(is_legacy_version(asked) ? asked : kLatestVersion);

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

void McpHandler::discover(Document& result) {
    auto& a = result.GetAllocator();
    result.SetObject();
    Value versions(rapidjson::kArrayType);
    versions.PushBack(Value(rapidjson::StringRef(kModernVersion.data(), kModernVersion.size())), a);
    result.AddMember("supportedVersions", versions, a);
    Value caps(rapidjson::kObjectType);
    caps.AddMember("tools", Value(rapidjson::kObjectType), a);
    caps.AddMember("resources", Value(rapidjson::kObjectType), a);
    caps.AddMember("prompts", Value(rapidjson::kObjectType), a);
    result.AddMember("capabilities", caps, a);
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
    const std::string_view method = m.method;
    if (m.modern() && m.envelope_version != kModernVersion) {
        reply.response = unsupported_version_message(&id, m.envelope_version);
        return reply;
    }
    // A 2025-era result goes out as built; a 2026-07-28 one gets resultType (and cache fields).
    auto raw_reply = [&](std::string_view json) {
        return m.modern() ? raw_result_message(id, modern_result(method, json)) : raw_result_message(id, json);
    };
    auto dom_reply = [&](const Document& result) {
        return m.modern() ? raw_result_message(id, modern_result(method, serialise(result))) : result_message(id, result);
    };
    try {
        if (!params.IsObject()) throw RpcError(rpc::invalid_params, "params must be an object");
        Document result;
        if (method == "tools/call") {
            std::string raw;
            call_tool(params, result, raw, reply);
            reply.response = raw.empty() ? dom_reply(result) : raw_reply(raw);
            if (reply.deferred()) reply.request_key = to_json(id);
        } else if (method == "tools/list") {
            reply.response = raw_reply(tools_list_json());
        } else if (method == "ping") {
            reply.response = raw_reply("{}");
        } else if (method == "server/discover") {
            discover(result);
            reply.response = raw_result_message(id, modern_result(method, serialise(result)));
        } else if (method == "initialize" && !m.modern()) {
            initialize(params, result);
            reply.response = result_message(id, result);
        } else if (method == "resources/list") {
            reply.response = raw_reply(resources_list_json());
        } else if (method == "resources/templates/list") {
            reply.response = raw_reply(resource_templates_list_json());
        } else if (method == "resources/read") {
            read_resource(params, options_.notes_path, result);
            reply.response = dom_reply(result);
        } else if (method == "prompts/list") {
            reply.response = raw_reply(prompts_list_json());
        } else if (method == "prompts/get") {
            get_prompt(params, result);
            reply.response = dom_reply(result);
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
