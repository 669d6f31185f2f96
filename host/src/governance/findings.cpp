// Names and the one-line description of a Finding (mcph/findings.hpp).
#include "json/json_access.hpp"

#include <mcph/findings.hpp>
#include <mcph/text.hpp>

#include <cstdint>

namespace mcph {

const char* finding_kind_name(FindingKind kind) {
    switch (kind) {
        case FindingKind::ControlCharacter: return "control-character";
        case FindingKind::InvalidUtf8: return "invalid-utf8";
        case FindingKind::InvisibleCharacter: return "invisible-character";
        case FindingKind::TagCharacter: return "tag-character";
        case FindingKind::BidiControl: return "bidi-control";
        case FindingKind::OverlongText: return "overlong-text";
        case FindingKind::InstructionMarker: return "instruction-marker";
        case FindingKind::CrossServerReference: return "cross-server-reference";
        case FindingKind::CredentialReference: return "credential-reference";
    }
    return "unknown";
}

const char* finding_field_name(FindingField field) {
    switch (field) {
        case FindingField::Name: return "name";
        case FindingField::Title: return "title";
        case FindingField::Description: return "description";
        case FindingField::InputSchema: return "inputSchema";
        case FindingField::OutputSchema: return "outputSchema";
        case FindingField::Annotations: return "annotations";
        case FindingField::Instructions: return "instructions";
        case FindingField::PromptDescription: return "promptDescription";
        case FindingField::ResourceDescription: return "resourceDescription";
    }
    return "unknown";
}

std::string describe(const Finding& f) {
    std::string where = finding_field_name(f.field);
    // The path is made of the server's property names: escaped like any of its text.
    if (!f.path.empty()) where += terminal_safe(f.path, LineBreaks::Escape) + (f.in_key ? " (property name)" : "");
    std::string what = finding_kind_name(f.kind);
    if (f.kind == FindingKind::OverlongText) what += " (" + std::to_string(f.count) + " bytes)";
    else if (f.count > 1) what += " x" + std::to_string(f.count);
    std::string out = where + ": " + what + " at byte " + std::to_string(f.offset);
    if (!f.excerpt.empty()) out += ": \"" + f.excerpt + "\"";
    return out;
}

JsonValue finding_json(const Finding& f, Json::AllocatorType& a) {
    JsonValue o(rapidjson::kObjectType);
    o.AddMember("kind", rapidjson::StringRef(finding_kind_name(f.kind)), a);
    o.AddMember("field", rapidjson::StringRef(finding_field_name(f.field)), a);
    if (!f.path.empty()) o.AddMember("path", json::string_value(f.path, a), a);
    if (f.in_key) o.AddMember("inKey", true, a);
    o.AddMember("offset", static_cast<std::uint64_t>(f.offset), a);
    o.AddMember("count", static_cast<std::uint64_t>(f.count), a);
    o.AddMember("excerpt", json::string_value(f.excerpt, a), a);
    return o;
}

JsonValue findings_json(const std::vector<Finding>& findings, Json::AllocatorType& a) {
    JsonValue out(rapidjson::kArrayType);
    for (const Finding& f : findings) out.PushBack(finding_json(f, a), a);
    return out;
}

}  // namespace mcph
