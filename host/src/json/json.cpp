#include "json/json_access.hpp"

#include <mcph/bounded_json.hpp>
#include <mcph/error.hpp>
#include <mcph/json.hpp>

#include <rapidjson/error/en.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace mcph {
namespace {

using json::kWriteDepth;

[[noreturn]] void too_deep_to_write() {
    throw Error(ErrorKind::Usage, "refusing to serialise JSON nested deeper than " + std::to_string(kWriteDepth) + " levels");
}

// About what a copy of `v` takes in a document's pool: a slot per member and element, and the
// bytes of each string (RapidJSON keeps short ones inside the value; counting them anyway errs
// large). The walk stops once `limit` is reached: past it the pool's chunk size is capped anyway.
std::size_t pool_footprint(const JsonValue& v, std::size_t limit) {
    if (v.IsString()) return v.GetStringLength() + 1;
    std::size_t n = 0;
    if (v.IsObject()) {
        for (const auto& m : v.GetObject()) {
            if (n >= limit) break;
            n += sizeof(m) + pool_footprint(m.name, limit) + pool_footprint(m.value, limit);
        }
    } else if (v.IsArray()) {
        for (const JsonValue& e : v.GetArray()) {
            if (n >= limit) break;
            n += sizeof(e) + pool_footprint(e, limit);
        }
    }
    return n;
}

}  // namespace

std::string to_json(const JsonValue& value) {
    rapidjson::StringBuffer buffer;
    if (!json_bounds::write(value, buffer, kWriteDepth)) too_deep_to_write();
    return std::string(buffer.GetString(), buffer.GetSize());
}

std::string to_pretty_json(const JsonValue& value) {
    rapidjson::StringBuffer buffer;
    rapidjson::PrettyWriter<rapidjson::StringBuffer> writer(buffer);
    writer.SetIndent(' ', 2);
    json_bounds::DepthLimitedHandler<rapidjson::PrettyWriter<rapidjson::StringBuffer>> limited(writer, kWriteDepth);
    if (!value.Accept(limited)) too_deep_to_write();  // json-bounds-ok: the depth-limited handler
    return std::string(buffer.GetString(), buffer.GetSize());
}

Json parse_json(std::string_view text, const char* what) {
    Json doc;
    const json_bounds::ParseOutcome outcome = json_bounds::parse(doc, text);
    if (outcome.status == json_bounds::ParseOutcome::Status::TooDeep)
        throw Error(ErrorKind::Usage, std::string("malformed ") + what + " at offset " + std::to_string(outcome.offset) +
                                          ": nested deeper than " + std::to_string(outcome.max_depth) + " levels");
    if (!outcome)
        throw Error(ErrorKind::Usage, std::string("malformed ") + what + " at offset " + std::to_string(outcome.offset) +
                                          ": " + rapidjson::GetParseError_En(outcome.code));
    return doc;
}

Json clone_json(const JsonValue& value) {
    Json doc;
    // Sized: a request's params are copied once per call (json_bounds::size_pool says why).
    json_bounds::size_pool(doc, pool_footprint(value, json_bounds::kMaxPoolChunk));
    if (!value.IsObject() && !value.IsArray()) {
        doc.CopyFrom(value, doc.GetAllocator());
        return doc;
    }
    // What CopyFrom does for a container (a Document as the SAX handler of an Accept), with the
    // handler's stack in this thread's retained block instead of a malloc and an allocator `new`.
    json_bounds::build_tree(doc, doc.GetAllocator(), [&](json_bounds::TreeBuilder& handler) {
        return value.Accept(handler);  // json-bounds-ok: CopyFrom's own recursion, on trees built under the bound
    });
    return doc;
}

}  // namespace mcph
