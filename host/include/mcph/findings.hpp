// What the tool scanner found in a server's text (tool definitions, server instructions, prompt
// and resource descriptions): typed data — a kind, where, and a short escaped excerpt — for
// displays and for policy ("withholdFlaggedTools"). Never English to be matched.
#pragma once

#include <mcph/export.hpp>
#include <mcph/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mcph {

enum class FindingKind {
    ControlCharacter,      // C0 (but \n \t \r), DEL or C1: terminal commands in text meant for a model
    InvalidUtf8,           // bytes that are not UTF-8
    InvisibleCharacter,    // zero-width and other default-ignorable / format characters
    TagCharacter,          // U+E0000–U+E007F: ASCII a person cannot see and a model reads
    BidiControl,           // reorders the displayed text
    OverlongText,          // longer than a person reviewing it will read
    InstructionMarker,     // <IMPORTANT>, "ignore previous instructions", <system>…: text aimed at the model
    CrossServerReference,  // names another server's tool (shadowing: "when send_email is used, bcc…")
    CredentialReference,   // names a credential file (~/.ssh/id_rsa, .aws/credentials, mcp.json…)
};

enum class FindingField {
    Name,
    Title,
    Description,
    InputSchema,   // `path` says where
    OutputSchema,  // `path` says where
    Annotations,   // `path` says where
    Instructions,  // the server's initialize instructions
    PromptDescription,
    ResourceDescription,
};

struct Finding {
    FindingKind kind = FindingKind::InstructionMarker;
    FindingField field = FindingField::Description;
    // Inside a schema or annotations: the JSON Pointer (RFC 6901) of the string, e.g.
    // "/properties/path/description"; with `in_key`, of the member whose name holds it.
    std::string path;
    bool in_key = false;
    std::size_t offset = 0;  // byte offset of the first occurrence in that string
    std::size_t count = 0;   // occurrences in that string (for OverlongText: its length in bytes)
    std::string excerpt;     // a short piece around the first occurrence, already terminal_safe
};

// Stable identifiers for JSON and logs: "control-character", "invalid-utf8", "invisible-character",
// "tag-character", "bidi-control", "overlong-text", "instruction-marker", "cross-server-reference",
// "credential-reference"; fields "name", "title", "description", "inputSchema", "outputSchema",
// "annotations", "instructions", "promptDescription", "resourceDescription".
MCPH_API const char* finding_kind_name(FindingKind kind);
MCPH_API const char* finding_field_name(FindingField field);
// For people: `description: tag-character x12 at byte 17: "…"`.
MCPH_API std::string describe(const Finding& finding);
// The scanner on one text of a server that is not a tool: its instructions, a prompt's or a
// resource's description (Instructions, PromptDescription, ResourceDescription; other fields are
// scanned as a description). Over-long past 8 KiB for instructions, 4 KiB otherwise.
MCPH_API std::vector<Finding> scan_server_text(std::string_view text, FindingField field);

// {"kind","field","path"?,"inKey"?,"offset","count","excerpt"}, and an array of them.
MCPH_API JsonValue finding_json(const Finding& finding, Json::AllocatorType& allocator);
MCPH_API JsonValue findings_json(const std::vector<Finding>& findings, Json::AllocatorType& allocator);

}  // namespace mcph
