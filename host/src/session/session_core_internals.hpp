// What the parts of SessionCore share (session_core.cpp: lifecycle and era; session_requests.cpp:
// requests, multi round-trip exchanges and the cache; session_features.cpp: lists and tools;
// session_server_messages.cpp: what servers send unasked; session_listen.cpp: subscriptions).
// Internal to those files.
#pragma once

#include "json/json_access.hpp"
#include "session/session_core.hpp"

#include <mcph/bounded_json.hpp>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

namespace mcph::detail::core_internal {
// Progress may keep a request alive past its timeout, but not forever (the spec says clients
// SHOULD enforce a maximum): ten timeouts at most unless the caller sets max_total_timeout.
constexpr int kProgressMaxTotalFactor = 10;
constexpr std::chrono::milliseconds kLongestDefaultTotal = std::chrono::hours(24 * 30);  // no clock overflow
// A caller finding another caller's session recovery under way waits for it this much beyond the
// connect timeout that bounds that recovery.
constexpr auto kRecoveryWaitSlack = std::chrono::milliseconds(2000);
// The least time between the starts of two refreshes of one list (list_changed floods).
constexpr auto kListRefreshSpacing = std::chrono::milliseconds(200);

// Set while a thread fetches the lists of a freshly recovered session: a request failing there
// with an expired session again must not start another recovery (one recovery per call).
inline thread_local bool t_in_recovery = false;

class RecoveryScope {
public:
    RecoveryScope() : previous_(t_in_recovery) { t_in_recovery = true; }
    ~RecoveryScope() { t_in_recovery = previous_; }
    RecoveryScope(const RecoveryScope&) = delete;
    RecoveryScope& operator=(const RecoveryScope&) = delete;

private:
    bool previous_;
};

inline std::chrono::milliseconds remaining(std::chrono::steady_clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    return std::max(left, std::chrono::milliseconds(1));
}

inline Json initialize_params(const std::string& version, const JsonValue& capabilities, const JsonValue& client_info) {
    Json params(rapidjson::kObjectType);
    auto& a = params.GetAllocator();
    params.AddMember("protocolVersion", json::string_value(version, a), a);
    params.AddMember("capabilities", JsonValue(capabilities, a), a);
    params.AddMember("clientInfo", JsonValue(client_info, a), a);
    return params;
}


// The name Mcp-Name mirrors: params.name (tools/call, prompts/get), params.uri (resources/read) or,
// for the Tasks extension, params.taskId (tasks/get, tasks/update, tasks/cancel).
inline std::string routed_name(const std::string& method, const JsonValue& params) {
    if (method == "tools/call" || method == "prompts/get") return json::string_or(params, "name");
    if (method == "resources/read") return json::string_or(params, "uri");
    if (method == "tasks/get" || method == "tasks/update" || method == "tasks/cancel")
        return json::string_or(params, "taskId");
    return {};
}

inline std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
    return out;
}

// HTTP-family transports answer a request that never got an HTTP response (refused, DNS, TLS) with
// a synthesized JSON-RPC error whose data.httpStatus is 0: for a connect, that is a connection
// failure, not the server's answer.
inline bool is_transport_failure(const Error& e) {
    if (e.kind() != ErrorKind::Remote || e.data_json().empty()) return false;
    Json data;
    if (!json_bounds::parse(data, e.data_json())) return false;
    return data.IsObject() && data.HasMember("httpStatus") && data["httpStatus"].IsInt() && data["httpStatus"].GetInt() == 0;
}

inline Json cursor_params(const std::string& cursor) {
    Json params(rapidjson::kObjectType);
    if (!cursor.empty()) params.AddMember("cursor", json::string_value(cursor, params.GetAllocator()), params.GetAllocator());
    return params;
}

inline LogLevel to_log_level(mcph_log_level level) { return static_cast<LogLevel>(level); }

// A request the transport lost or the server refused below JSON-RPC. An HTTP error whose body is a
// JSON-RPC error is the server's answer (modern servers say -32022 with a 400): keep its code and
// data, and the status. Otherwise the category says what it was.
inline Error request_failure_error(const transport::Failure& failure) {
    Json body;
    if (!failure.body.empty() && json_bounds::parse(body, failure.body) && body.IsObject()) {
        if (const JsonValue* error = json::object_member(body, "error")) {
            const JsonValue* code = json::member(*error, "code");
            const JsonValue* data = json::member(*error, "data");
            Error e(ErrorKind::Remote,
                    json::string_or(*error, "message", "server refused the request") + " (HTTP " +
                        std::to_string(failure.http_status) + ", JSON-RPC error " +
                        std::to_string(code && code->IsInt() ? code->GetInt() : 0) + ")",
                    code && code->IsInt() ? code->GetInt() : 0, data ? to_json(*data) : std::string());
            e.set_http_status(failure.http_status);
            return e;
        }
    }
    switch (failure.category) {
        case MCPH_FAILURE_HTTP_STATUS: {
            Error e(ErrorKind::Remote, failure.message, -32000,
                    "{\"httpStatus\":" + std::to_string(failure.http_status) + "}");
            e.set_http_status(failure.http_status);
            return e;
        }
        case MCPH_FAILURE_SESSION_EXPIRED: return Error(ErrorKind::Connection, failure.message, kSessionExpiredCode);
        case MCPH_FAILURE_RESET: return Error(ErrorKind::Connection, failure.message, kResponseStreamBrokenCode);
        case MCPH_FAILURE_TIMEOUT: return Error(ErrorKind::Timeout, failure.message);
        case MCPH_FAILURE_AUTH: return Error(ErrorKind::Connection, failure.message);
        default: return Error(ErrorKind::Connection, failure.message);
    }
}

// {"<key>": "<value>"}: the params of the one-string requests (logging/setLevel, resources/subscribe).
inline Json object_with(const char* key, const std::string& value) {
    Json params(rapidjson::kObjectType);
    params.AddMember(rapidjson::StringRef(key), json::string_value(value, params.GetAllocator()), params.GetAllocator());
    return params;
}

}  // namespace mcph::detail::core_internal
