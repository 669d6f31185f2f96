// Prompt review-code: one user message asking for a review of the `code` argument.
#include "features.hpp"

#include <string>

namespace hello {

namespace {

constexpr std::string_view kPromptsList = R"({"prompts":[)"
    R"({"name":"review-code","title":"Code review","description":"Asks for a review of a piece of code",)"
    R"("arguments":[{"name":"code","description":"The code to review","required":true}]})"
    R"(]})";

}  // namespace

std::string_view prompts_list_json() { return kPromptsList; }

void get_prompt(const Value& params, Document& result) {
    if (!params.IsObject()) throw RpcError(rpc::invalid_params, "prompts/get: params must be an object");
    auto name = params.FindMember("name");
    if (name == params.MemberEnd() || !name->value.IsString())
        throw RpcError(rpc::invalid_params, "prompts/get: 'name' must be a string");
    if (std::string_view(name->value.GetString(), name->value.GetStringLength()) != "review-code")
        throw RpcError(rpc::invalid_params, std::string("Unknown prompt: ") + name->value.GetString());
    auto args = params.FindMember("arguments");
    const Value* code = nullptr;
    if (args != params.MemberEnd() && args->value.IsObject()) {
        auto c = args->value.FindMember("code");
        if (c != args->value.MemberEnd()) code = &c->value;
    }
    if (!code || !code->IsString())
        throw RpcError(rpc::invalid_params, "prompts/get review-code: missing required argument 'code'");

    auto& a = result.GetAllocator();
    std::string text = "Please review the following code and point out problems:\n";
    text.append(code->GetString(), code->GetStringLength());
    Value content(rapidjson::kObjectType);
    content.AddMember("type", "text", a);
    content.AddMember("text", Value(text, a), a);
    Value message(rapidjson::kObjectType);
    message.AddMember("role", "user", a);
    message.AddMember("content", content, a);
    Value messages(rapidjson::kArrayType);
    messages.PushBack(message, a);
    result.SetObject();
    result.AddMember("description", "Code review request", a);
    result.AddMember("messages", messages, a);
}

}  // namespace hello
