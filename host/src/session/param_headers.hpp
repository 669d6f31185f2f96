// `x-mcp-header` (MCP 2026-07-28, Streamable HTTP "Custom Headers from Tool Parameters"): a tool's
// inputSchema may mark primitive parameters to be mirrored into `Mcp-Param-{name}` request
// headers. read_header_annotations() applies every rule of the spec to one inputSchema; a tool
// whose annotations break any of them must be left out of tools/list (the caller does that and
// logs invalid_reason). extract_param_headers() reads the annotated values from a call's
// arguments. Values are returned as text; encoding (Base64 for unsafe values) is the transport's.
#pragma once

#include <mcph/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace mcph::session {

struct ParamHeader {
    std::string name;               // the x-mcp-header value, e.g. "Region" (header Mcp-Param-Region)
    std::vector<std::string> path;  // the chain of `properties` keys from the schema root
};

struct HeaderAnnotations {
    std::vector<ParamHeader> headers;  // in schema order; empty when invalid
    std::string invalid_reason;        // names the rule broken and the property; empty when valid
    bool valid() const { return invalid_reason.empty(); }
};

HeaderAnnotations read_header_annotations(const JsonValue& input_schema);

// (annotation name, value text) — the name as the x-mcp-header gives it ("Region"); the transport adds the
// Mcp-Param- prefix and the encoding — for each annotated parameter present in `arguments`: a string
// as is, an integer in decimal, a boolean as "true"/"false". Omitted: absent, null, and values the
// annotation's rules exclude (non-integral numbers, integers outside ±(2^53−1), objects, arrays).
std::vector<std::pair<std::string, std::string>> extract_param_headers(const std::vector<ParamHeader>& headers,
                                                                       const JsonValue& arguments);

}  // namespace mcph::session
