// Resource notes://today: the notes file given by --notes, read on every resources/read.
#include "features.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace hello {

namespace {

constexpr std::string_view kNotesUri = "notes://today";

constexpr std::string_view kResourcesList = R"({"resources":[)"
    R"({"uri":"notes://today","name":"today","title":"Today's notes",)"
    R"("description":"Reads the local notes file given by --notes, default notes.txt","mimeType":"text/plain"})"
    R"(]})";

constexpr std::string_view kTemplatesList = R"({"resourceTemplates":[]})";

// Reads a whole file; false with errno's text in `error` on failure.
bool read_file(const std::string& path, std::string& out, std::string& error) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) {
        error = std::strerror(errno);
        return false;
    }
    char buf[65536];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
    bool ok = !std::ferror(f);
    if (!ok) error = std::strerror(errno);
    std::fclose(f);
    return ok;
}

}  // namespace

std::string_view resources_list_json() { return kResourcesList; }
std::string_view resource_templates_list_json() { return kTemplatesList; }

void read_resource(const Value& params, const std::string& notes_path, Document& result) {
    auto uri = params.IsObject() ? params.FindMember("uri") : Value::ConstMemberIterator();
    if (!params.IsObject() || uri == params.MemberEnd() || !uri->value.IsString())
        throw RpcError(rpc::invalid_params, "resources/read: 'uri' must be a string");
    std::string_view requested(uri->value.GetString(), uri->value.GetStringLength());
    if (requested != kNotesUri) throw RpcError(rpc::resource_not_found, "Resource not found: " + std::string(requested));

    std::string text, error;
    if (!read_file(notes_path, text, error))
        throw RpcError(rpc::resource_not_found, "cannot read notes file '" + notes_path + "': " + error);

    auto& a = result.GetAllocator();
    result.SetObject();
    Value item(rapidjson::kObjectType);
    item.AddMember("uri", Value(rapidjson::StringRef(kNotesUri.data(), kNotesUri.size())), a);
    item.AddMember("mimeType", "text/plain", a);
    item.AddMember("text", Value(text, a), a);
    Value contents(rapidjson::kArrayType);
    contents.PushBack(item, a);
    result.AddMember("contents", contents, a);
}

}  // namespace hello
