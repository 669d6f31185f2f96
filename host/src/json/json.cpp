#include <mcph/error.hpp>
#include <mcph/json.hpp>

#include <rapidjson/error/en.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace mcph {

std::string to_json(const JsonValue& value) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    value.Accept(writer);
    return std::string(buffer.GetString(), buffer.GetSize());
}

std::string to_pretty_json(const JsonValue& value) {
    rapidjson::StringBuffer buffer;
    rapidjson::PrettyWriter<rapidjson::StringBuffer> writer(buffer);
    writer.SetIndent(' ', 2);
    value.Accept(writer);
    return std::string(buffer.GetString(), buffer.GetSize());
}

Json parse_json(std::string_view text, const char* what) {
    Json doc;
    doc.Parse(text.data(), text.size());
    if (doc.HasParseError()) {
        throw Error(ErrorKind::Usage, std::string("malformed ") + what + " at offset " +
                                          std::to_string(doc.GetErrorOffset()) + ": " +
                                          rapidjson::GetParseError_En(doc.GetParseError()));
    }
    return doc;
}

Json clone_json(const JsonValue& value) {
    Json doc;
    doc.CopyFrom(value, doc.GetAllocator());
    return doc;
}

}  // namespace mcph
