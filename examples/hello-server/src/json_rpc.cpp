#include "json_rpc.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <charconv>
#include <cmath>

namespace hello {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void begin(Writer& w) {
    w.StartObject();
    w.Key("jsonrpc", 7);
    w.String("2.0", 3);
}

std::string finish(Writer& w, rapidjson::StringBuffer& sb) {
    w.EndObject();
    return std::string(sb.GetString(), sb.GetSize());
}

}  // namespace

std::string result_message(const Value& id, const Value& result) {
    rapidjson::StringBuffer sb;
    Writer w(sb);
    begin(w);
    w.Key("id", 2);
    id.Accept(w);
    w.Key("result", 6);
    result.Accept(w);
    return finish(w, sb);
}

std::string raw_result_message(const Value& id, std::string_view result_json) {
    rapidjson::StringBuffer sb;
    Writer w(sb);
    begin(w);
    w.Key("id", 2);
    id.Accept(w);
    w.Key("result", 6);
    w.RawValue(result_json.data(), result_json.size(), rapidjson::kObjectType);
    return finish(w, sb);
}

std::string error_message(const Value* id, int code, std::string_view message) {
    rapidjson::StringBuffer sb;
    Writer w(sb);
    begin(w);
    w.Key("id", 2);
    if (id)
        id->Accept(w);
    else
        w.Null();
    w.Key("error", 5);
    w.StartObject();
    w.Key("code", 4);
    w.Int(code);
    w.Key("message", 7);
    w.String(message.data(), static_cast<rapidjson::SizeType>(message.size()));
    w.EndObject();
    return finish(w, sb);
}

std::string notification_message(std::string_view method, const Value& params) {
    rapidjson::StringBuffer sb;
    Writer w(sb);
    begin(w);
    w.Key("method", 6);
    w.String(method.data(), static_cast<rapidjson::SizeType>(method.size()));
    w.Key("params", 6);
    params.Accept(w);
    return finish(w, sb);
}

std::string to_json(const Value& value) {
    rapidjson::StringBuffer sb;
    Writer w(sb);
    value.Accept(w);
    return std::string(sb.GetString(), sb.GetSize());
}

std::string format_number(double value) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
    if (value == 0) return "0";  // also -0, as JavaScript prints it
    char buf[64];
    std::to_chars_result r;
    if (value == std::trunc(value) && std::fabs(value) < 1e21)
        r = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed);  // all digits, no ".0"
    else
        r = std::to_chars(buf, buf + sizeof buf, value);  // shortest round-trip form
    return std::string(buf, r.ptr);
}

}  // namespace hello
