#include "json_rpc.hpp"

#include <mcph/bounded_json.hpp>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace hello {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void begin(Writer& w) {
    w.StartObject();
    w.Key("jsonrpc", 7);
    w.String("2.0", 3);
}

// Every value written came from a parsed request (at most json_bounds::kMaxDepth deep) wrapped in a
// few levels; the bound keeps RapidJSON's recursive writer off a hand-built deep tree all the same.
constexpr unsigned kWriteDepth = mcph::json_bounds::kMaxDepth + 32;

void put(const Value& value, Writer& w) {
    mcph::json_bounds::DepthLimitedHandler<Writer> limited(w, kWriteDepth);
    if (!value.Accept(limited))  // json-bounds-ok: the depth-limited handler
        throw std::runtime_error("JSON nested deeper than " + std::to_string(kWriteDepth) + " levels");
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
    put(id, w);
    w.Key("result", 6);
    put(result, w);
    return finish(w, sb);
}

std::string raw_result_message(const Value& id, std::string_view result_json) {
    rapidjson::StringBuffer sb;
    Writer w(sb);
    begin(w);
    w.Key("id", 2);
    put(id, w);
    w.Key("result", 6);
    w.RawValue(result_json.data(), result_json.size(), rapidjson::kObjectType);
    return finish(w, sb);
}

std::string error_message(const Value* id, int code, std::string_view message, const Value* data) {
    rapidjson::StringBuffer sb;
    Writer w(sb);
    begin(w);
    w.Key("id", 2);
    if (id)
        put(*id, w);
    else
        w.Null();
    w.Key("error", 5);
    w.StartObject();
    w.Key("code", 4);
    w.Int(code);
    w.Key("message", 7);
    w.String(message.data(), static_cast<rapidjson::SizeType>(message.size()));
    if (data) {
        w.Key("data", 4);
        put(*data, w);
    }
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
    put(params, w);
    return finish(w, sb);
}

std::string to_json(const Value& value) {
    rapidjson::StringBuffer sb;
    Writer w(sb);
    put(value, w);
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
