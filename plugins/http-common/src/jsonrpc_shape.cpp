#include "jsonrpc_shape.hpp"

#include <mcph/bounded_json.hpp>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace mcph::http {
namespace {

// Tracks only the members "id" and "method" of the message objects: the root object, or the
// objects directly inside a root array (a batch). Everything deeper is skipped.
class ShapeHandler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, ShapeHandler> {
public:
    explicit ShapeHandler(MessageShape& out) : out_(out) {}

    bool Null() { return scalar(nullptr, 0, false); }
    bool Bool(bool) { return scalar(nullptr, 0, false); }
    bool Int(int i) { return number(std::to_string(i)); }
    bool Uint(unsigned u) { return number(std::to_string(u)); }
    bool Int64(int64_t i) { return number(std::to_string(i)); }
    bool Uint64(uint64_t u) { return number(std::to_string(u)); }
    bool Double(double d) {
        rapidjson::StringBuffer b;
        rapidjson::Writer<rapidjson::StringBuffer> w(b);
        w.Double(d);
        return number(std::string(b.GetString(), b.GetSize()));
    }
    bool String(const char* s, rapidjson::SizeType len, bool) { return scalar(s, len, true); }

    bool Key(const char* s, rapidjson::SizeType len, bool) {
        if (at_message_level()) {
            std::string_view k(s, len);
            expect_ = k == "id" ? Expect::Id : k == "method" ? Expect::Method : Expect::None;
        }
        return true;
    }
    bool StartObject() {
        if (depth_ == 0 || (depth_ == 1 && root_is_array_)) begin_message();
        else value_is_container();
        ++depth_;
        return true;
    }
    bool EndObject(rapidjson::SizeType) {
        if (at_message_level()) end_message();
        --depth_;
        return true;
    }
    bool StartArray() {
        if (depth_ == 0) {
            root_is_array_ = true;
            saw_container_root_ = true;
        } else {
            value_is_container();
        }
        ++depth_;
        return true;
    }
    bool EndArray(rapidjson::SizeType) {
        --depth_;
        return true;
    }

    bool root_ok() const { return saw_container_root_; }

private:
    enum class Expect { None, Id, Method };

    bool at_message_level() const { return in_message_ && depth_ == message_depth_; }

    void begin_message() {
        if (depth_ == 0) saw_container_root_ = true;
        in_message_ = true;
        message_depth_ = depth_ + 1;
        has_method_ = false;
        id_.clear();
        expect_ = Expect::None;
    }
    void end_message() {
        in_message_ = false;
        if (id_.empty()) return;
        (has_method_ ? out_.request_ids : out_.response_ids).push_back(std::move(id_));
        id_.clear();
    }
    void value_is_container() {
        if (depth_ == 0) saw_container_root_ = true;
        if (at_message_level() && expect_ == Expect::Method) has_method_ = true;
        expect_ = Expect::None;  // an object or array id is not an id
    }
    bool number(std::string text) {
        if (at_message_level() && expect_ == Expect::Id) id_ = std::move(text);
        return scalar(nullptr, 0, false);
    }
    bool scalar(const char* s, rapidjson::SizeType len, bool is_string) {
        if (at_message_level()) {
            if (expect_ == Expect::Method) has_method_ = true;
            if (expect_ == Expect::Id && is_string) {
                rapidjson::StringBuffer b;
                rapidjson::Writer<rapidjson::StringBuffer> w(b);
                w.String(s, len);
                id_.assign(b.GetString(), b.GetSize());
            }
        }
        expect_ = Expect::None;
        return true;
    }

    MessageShape& out_;
    int depth_ = 0;
    int message_depth_ = 0;
    bool root_is_array_ = false;
    bool in_message_ = false;
    bool has_method_ = false;
    bool saw_container_root_ = false;
    Expect expect_ = Expect::None;
    std::string id_;
};

}  // namespace

MessageShape inspect_message(std::string_view json) {
    MessageShape shape;
    ShapeHandler handler(shape);
    rapidjson::MemoryStream stream(json.data(), json.size());
    rapidjson::Reader reader;
    // Iterative (constant stack) and depth-bounded: the recursive parser used a stack frame per
    // nesting level, so a body of nested '[' overflowed the transport thread's stack (found by
    // fuzz/jsonrpc_shape_fuzz.cpp); past the bound the message is not a valid one.
    mcph::json_bounds::DepthLimitedHandler<ShapeHandler> limited(handler, mcph::json_bounds::kMaxDepth);
    rapidjson::ParseResult ok = reader.Parse<rapidjson::kParseDefaultFlags | rapidjson::kParseIterativeFlag>(stream, limited);
    // MemoryStream reports '\0' at its end, so an embedded NUL would end the parse early: refuse it.
    shape.valid = ok && handler.root_ok() && stream.Tell() == json.size();
    if (!shape.valid) {
        shape.request_ids.clear();
        shape.response_ids.clear();
    }
    return shape;
}

std::string error_response(std::string_view id_json, std::string_view message, long http_status) {
    rapidjson::StringBuffer b;
    rapidjson::Writer<rapidjson::StringBuffer> w(b);
    w.StartObject();
    w.Key("jsonrpc");
    w.String("2.0");
    w.Key("id");
    w.RawValue(id_json.data(), id_json.size(), rapidjson::kStringType);
    w.Key("error");
    w.StartObject();
    w.Key("code");
    w.Int(kTransportErrorCode);
    w.Key("message");
    w.String(message.data(), static_cast<rapidjson::SizeType>(message.size()));
    // data.httpStatus is always there: 0 tells the host no HTTP response arrived at all (refused,
    // DNS, TLS, timeout), i.e. a connection failure rather than the server's answer.
    w.Key("data");
    w.StartObject();
    w.Key("httpStatus");
    w.Int64(http_status);
    w.EndObject();
    w.EndObject();
    w.EndObject();
    return std::string(b.GetString(), b.GetSize());
}

}  // namespace mcph::http
