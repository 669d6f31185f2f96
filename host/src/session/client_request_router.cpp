#include "session/client_request_router.hpp"

#include "json/json_access.hpp"
#include "session/server_requests.hpp"

#include <mcph/error.hpp>

namespace mcph::session {

using detail::default_roots;
using detail::elicitation_result;
using detail::roots_result;

ClientRequestRouter::ClientRequestRouter(std::string server_name, const ClientCallbacks& callbacks,
                                         const std::optional<std::vector<Root>>& roots,
                                         std::function<void(LogLevel, const std::string&)> log)
    : server_(std::move(server_name)), callbacks_(callbacks), roots_(roots), log_(std::move(log)) {}

bool ClientRequestRouter::take_prompt(const std::string& method, std::string* why) {
    const bool prompts = (method == "sampling/createMessage" && callbacks_.sampling) ||
                         (method == "elicitation/create" && callbacks_.elicitation);
    if (!prompts || budget_.try_take()) return true;
    *why = method + " refused without asking: server '" + server_ + "' exceeded " + std::to_string(budget_.burst()) +
           " prompts at once, then one per " +
           std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(budget_.refill()).count()) +
           " ms (the client's prompt rate limit)";
    if (refused_.fetch_add(1) % 1000 == 0 && log_) log_(LogLevel::Warn, *why);  // a flood is not a log flood
    return false;
}

Json ClientRequestRouter::answer(const std::string& method, const JsonValue& params) {
    std::string why;
    if (!take_prompt(method, &why)) throw Error(ErrorKind::Remote, why, kPromptRateLimitedCode);
    return answer_taken(method, params);
}

Json ClientRequestRouter::answer_taken(const std::string& method, const JsonValue& params) {
    if (method == "roots/list") {
        if (callbacks_.roots) return roots_result(callbacks_.roots(server_));
        return roots_result(roots_ ? *roots_ : default_roots());
    }
    if (method == "sampling/createMessage") {
        if (!callbacks_.sampling)
            throw Error(ErrorKind::Remote, "sampling declined: this application has no model to sample from", -1);
        return callbacks_.sampling(server_, params);
    }
    if (method == "elicitation/create") {
        ElicitationRequest request;
        request.server = server_;
        request.mode = json::string_or(params, "mode", "form");
        request.message = json::string_or(params, "message");
        request.url = json::string_or(params, "url");
        if (const JsonValue* schema = json::object_member(params, "requestedSchema"))
            request.requested_schema.CopyFrom(*schema, request.requested_schema.GetAllocator());
        else
            request.requested_schema.SetObject();
        // URL mode is put to the application only with the full URL to show; mcph never fetches it.
        const bool askable = request.mode == "form" || (request.mode == "url" && !request.url.empty());
        ElicitationResponse response;  // declined unless a callback accepts
        if (callbacks_.elicitation && askable) response = callbacks_.elicitation(request);
        return elicitation_result(request, std::move(response));
    }
    throw Error(ErrorKind::Remote, "method not found: " + method, -32601);
}

}  // namespace mcph::session
