#include "mcp_headers.hpp"

#include <openssl/evp.h>

#include <stdexcept>

namespace mcph::http {
namespace {

bool is_visible(unsigned char c) { return c >= 0x21 && c <= 0x7e; }
bool is_blank(unsigned char c) { return c == ' ' || c == '\t'; }

// Base64 from OpenSSL's EVP_EncodeBlock rather than by hand: libcrypto is already in the process
// (Debian's libcurl is built against OpenSSL), and it is the audited implementation.
// EVP_EncodeBlock writes no line breaks, pads with '=' and NUL-terminates.
std::string base64(std::string_view bytes) {
    std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
    int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                            reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
    out.resize(n > 0 ? static_cast<size_t>(n) : 0);
    return out;
}

// "starts with =?base64? and ends with ?=", checked separately: "=?base64?=" matches too (the two
// markers share its '?'), and a server testing prefix and suffix would try to decode it.
bool looks_like_sentinel(std::string_view v) { return v.starts_with(kBase64Prefix) && v.ends_with(kBase64Suffix); }

// The Tasks extension's tasks/get, tasks/update and tasks/cancel name their task (params.taskId),
// as the official SDK's server requires.
bool names_a_target(std::string_view method) {
    return method == "tools/call" || method == "resources/read" || method == "prompts/get" ||
           method == "tasks/get" || method == "tasks/update" || method == "tasks/cancel";
}

}  // namespace

bool is_plain_header_value(std::string_view value) {
    if (value.empty()) return true;
    if (is_blank(static_cast<unsigned char>(value.front())) || is_blank(static_cast<unsigned char>(value.back())))
        return false;
    for (unsigned char c : value)
        if (!is_visible(c) && !is_blank(c)) return false;
    return !looks_like_sentinel(value);
}

std::string encode_header_value(std::string_view value) {
    if (is_plain_header_value(value)) return std::string(value);
    return std::string(kBase64Prefix) + base64(value) + std::string(kBase64Suffix);
}

bool is_header_token(std::string_view name) {
    if (name.empty()) return false;
    for (unsigned char c : name) {
        bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (!alnum && std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) == std::string_view::npos)
            return false;
    }
    return true;
}

HeaderPairs request_metadata_headers(std::string_view method, std::string_view name,
                                     const std::vector<std::pair<std::string_view, std::string_view>>& params) {
    HeaderPairs out;
    if (!method.empty()) out.emplace_back("Mcp-Method", encode_header_value(method));
    if (!name.empty() && names_a_target(method)) out.emplace_back("Mcp-Name", encode_header_value(name));
    for (const auto& [param, value] : params) {
        if (!is_header_token(param))
            throw std::invalid_argument("the x-mcp-header name '" + std::string(param.substr(0, 200)) +
                                        "' is not an HTTP token");
        out.emplace_back("Mcp-Param-" + std::string(param), encode_header_value(value));
    }
    return out;
}

}  // namespace mcph::http
