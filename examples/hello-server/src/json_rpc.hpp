// JSON-RPC 2.0 envelopes: error codes, the error type feature handlers throw, and serialisers that
// write a whole message in one pass (no intermediate DOM for the envelope).
#pragma once

#include <rapidjson/document.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace hello {

using rapidjson::Document;
using rapidjson::Value;
using Allocator = Document::AllocatorType;

namespace rpc {
constexpr int parse_error = -32700;
constexpr int invalid_request = -32600;
constexpr int method_not_found = -32601;
constexpr int invalid_params = -32602;
constexpr int internal_error = -32603;
constexpr int resource_not_found = -32002;  // MCP: resources/read of an unknown or unreadable resource
}  // namespace rpc

// Thrown by feature handlers; becomes a JSON-RPC error response.
class RpcError : public std::runtime_error {
public:
    RpcError(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
    int code() const noexcept { return code_; }

private:
    int code_;
};

// {"jsonrpc":"2.0","id":<id>,"result":<result>}
std::string result_message(const Value& id, const Value& result);
// Same, with a result that is already serialised JSON text (static lists).
std::string raw_result_message(const Value& id, std::string_view result_json);
// {"jsonrpc":"2.0","id":<id or null>,"error":{"code":..,"message":..}}, plus "data" when given.
std::string error_message(const Value* id, int code, std::string_view message, const Value* data = nullptr);
// {"jsonrpc":"2.0","method":<method>,"params":<params>}
std::string notification_message(std::string_view method, const Value& params);
// Compact JSON text of a value.
std::string to_json(const Value& value);

// A number as JavaScript's String(n) prints it: integers without ".0", shortest round-trip otherwise.
std::string format_number(double value);

}  // namespace hello
