#include "wire.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <iostream>

namespace fake {

Wire::Wire(const std::string& log_path) {
    if (!log_path.empty()) log_ = std::fopen(log_path.c_str(), "a");
}

Wire::~Wire() {
    if (log_) std::fclose(log_);
}

bool Wire::read_line(std::string& line) {
    if (!std::getline(std::cin, line)) return false;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
}

void Wire::log_received(std::string_view line) {
    if (!log_) return;
    std::fwrite(line.data(), 1, line.size(), log_);
    std::fputc('\n', log_);
    std::fflush(log_);
}

void Wire::write_raw(std::string_view line) {
    std::lock_guard lock(write_mutex_);
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
}

void Wire::write(const Value& message) { write_raw(to_json(message)); }

void Wire::respond(const Value& id, const Value& result) {
    Json msg(rapidjson::kObjectType);
    auto& a = msg.GetAllocator();
    msg.AddMember("jsonrpc", "2.0", a);
    msg.AddMember("id", Value(id, a), a);
    msg.AddMember("result", Value(result, a), a);
    write(msg);
}

void Wire::respond_error(const Value& id, int code, std::string_view message) {
    Json msg(rapidjson::kObjectType);
    auto& a = msg.GetAllocator();
    msg.AddMember("jsonrpc", "2.0", a);
    msg.AddMember("id", Value(id, a), a);
    Value error(rapidjson::kObjectType);
    error.AddMember("code", code, a);
    error.AddMember("message", Value(message.data(), static_cast<rapidjson::SizeType>(message.size()), a), a);
    msg.AddMember("error", error, a);
    write(msg);
}

void Wire::notify(std::string_view method, const Value& params) {
    Json msg(rapidjson::kObjectType);
    auto& a = msg.GetAllocator();
    msg.AddMember("jsonrpc", "2.0", a);
    msg.AddMember("method", Value(method.data(), static_cast<rapidjson::SizeType>(method.size()), a), a);
    msg.AddMember("params", Value(params, a), a);
    write(msg);
}

std::string to_json(const Value& value) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    value.Accept(writer);
    return std::string(buffer.GetString(), buffer.GetSize());
}

bool parse(std::string_view text, Json& out) {
    out.Parse(text.data(), text.size());
    return !out.HasParseError();
}

}  // namespace fake
