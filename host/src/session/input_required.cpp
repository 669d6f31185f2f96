#include "session/input_required.hpp"

#include "json/json_access.hpp"

#include <mcph/error.hpp>

namespace mcph::session {

ResultType result_type(const JsonValue& result, const RequestLabel& request) {
    const JsonValue* type = json::member(result, "resultType");
    if (!type) return ResultType::Complete;
    if (!type->IsString()) throw Error(ErrorKind::Protocol, request.text() + ": resultType is not a string");
    const std::string_view value(type->GetString(), type->GetStringLength());
    if (value == "complete") return ResultType::Complete;
    if (value == "input_required") return ResultType::InputRequired;
    if (value == "task") return ResultType::Task;
    throw Error(ErrorKind::Protocol, request.text() + ": unknown resultType '" + std::string(value.substr(0, 64)) + "'");
}

bool supports_input_required(const std::string& method) {
    return method == "tools/call" || method == "prompts/get" || method == "resources/read";
}

InputRound answer_input_requests(const JsonValue& result, const InputAnswerer& answer,
                                 const std::function<void(const std::string&)>& warn, const std::string& context) {
    InputRound round;
    if (const JsonValue* state = json::member(result, "requestState")) {
        if (!state->IsString()) throw Error(ErrorKind::Protocol, context + ": requestState is not a string");
        if (state->GetStringLength() > kMaxRequestStateBytes)
            throw Error(ErrorKind::Protocol, context + ": requestState of " + std::to_string(state->GetStringLength()) +
                                                 " bytes exceeds the client's bound of " +
                                                 std::to_string(kMaxRequestStateBytes) + " bytes");
        round.request_state = std::string(state->GetString(), state->GetStringLength());
    }
    const JsonValue* requests = json::member(result, "inputRequests");
    if (requests && !requests->IsObject()) throw Error(ErrorKind::Protocol, context + ": inputRequests is not an object");
    if (!requests && !round.request_state)
        throw Error(ErrorKind::Protocol, context + ": input_required result carries neither inputRequests nor requestState");
    if (!requests) return round;
    if (requests->MemberCount() > kMaxInputRequestsPerRound)
        throw Error(ErrorKind::Protocol, context + ": " + std::to_string(requests->MemberCount()) +
                                             " input requests in one round exceed the client's bound of " +
                                             std::to_string(kMaxInputRequestsPerRound));
    auto& a = round.responses.GetAllocator();
    for (const auto& entry : requests->GetObject()) {
        const std::string key(entry.name.GetString(), entry.name.GetStringLength());
        const std::string method = json::string_or(entry.value, "method");
        ++round.asked;
        if (method.empty()) {
            warn(context + ": input request '" + key + "' has no method; left unanswered");
            continue;
        }
        static const JsonValue kEmpty(rapidjson::kObjectType);
        const JsonValue* params = json::object_member(entry.value, "params");
        try {
            Json answered = answer(method, params ? *params : kEmpty);
            round.responses.AddMember(JsonValue(key.c_str(), a), JsonValue(answered, a), a);
        } catch (const Error& e) {
            warn(context + ": input request '" + key + "' (" + method + ") was not answered: " + e.what());
        }
    }
    return round;
}

Json retry_params(const JsonValue& original, const InputRound& round) {
    Json params;
    params.CopyFrom(original, params.GetAllocator());
    if (!params.IsObject()) params.SetObject();
    auto& a = params.GetAllocator();
    params.RemoveMember("inputResponses");
    params.RemoveMember("requestState");
    if (round.asked > 0) params.AddMember("inputResponses", JsonValue(round.responses, a), a);
    if (round.request_state) params.AddMember("requestState", json::string_value(*round.request_state, a), a);
    return params;
}

}  // namespace mcph::session
