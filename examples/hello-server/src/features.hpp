// The server's features: tools (add, echo, countdown), the notes://today resource and the
// review-code prompt. Each takes the request's params and fills a result object, or throws RpcError.
#pragma once

#include "json_rpc.hpp"
#include "reply.hpp"

#include <string>
#include <string_view>

namespace hello {

// tools ------------------------------------------------------------------------------------------
// The tools/list result, serialised once.
std::string_view tools_list_json();
// tools/call. Tool failures (bad arguments) are results with isError:true; an unknown tool or a
// missing name is RpcError(-32602). The result lands in `result`, or as JSON text in `raw_result`
// when that is non-empty. `reply` receives countdown's progress notifications.
void call_tool(const Value& params, Document& result, std::string& raw_result, Reply& reply);

// resources --------------------------------------------------------------------------------------
std::string_view resources_list_json();
std::string_view resource_templates_list_json();
// resources/read: notes://today reads `notes_path`; RpcError(-32002) if unknown or unreadable.
void read_resource(const Value& params, const std::string& notes_path, Document& result);

// prompts ----------------------------------------------------------------------------------------
std::string_view prompts_list_json();
// prompts/get: review-code with its required `code` argument; RpcError(-32602) otherwise.
void get_prompt(const Value& params, Document& result);

}  // namespace hello
