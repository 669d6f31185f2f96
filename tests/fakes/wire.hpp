// The fake server's wire: newline-delimited JSON-RPC on stdin/stdout, plus the optional
// --log file that records every received line (so a test can see what the client sent).
#pragma once

#include <rapidjson/document.h>

#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>

namespace fake {

using Json = rapidjson::Document;
using Value = rapidjson::Value;

class Wire {
public:
    explicit Wire(const std::string& log_path);
    ~Wire();
    Wire(const Wire&) = delete;
    Wire& operator=(const Wire&) = delete;

    // Reads one line from stdin (without the newline); false at EOF.
    bool read_line(std::string& line);
    // Appends the line to the --log file, if any, and flushes it.
    void log_received(std::string_view line);

    // Writes one line to stdout as-is (a newline is appended) and flushes. Thread-safe: the flood
    // modes write from a second thread while the main loop keeps reading.
    void write_raw(std::string_view line);
    // Serialises and writes one message.
    void write(const Value& message);
    // {"jsonrpc":"2.0","id":<id>,"result":<result>}
    void respond(const Value& id, const Value& result);
    // {"jsonrpc":"2.0","id":<id>,"error":{"code":..,"message":..}}
    void respond_error(const Value& id, int code, std::string_view message);
    // {"jsonrpc":"2.0","method":..,"params":..}
    void notify(std::string_view method, const Value& params);

private:
    std::FILE* log_ = nullptr;
    std::mutex write_mutex_;
};

// Serialises compactly (never contains a raw newline).
std::string to_json(const Value& value);
// Parses `text` into a document; returns false if it is not valid JSON.
bool parse(std::string_view text, Json& out);

}  // namespace fake
