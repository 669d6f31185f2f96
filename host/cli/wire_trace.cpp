#include "wire_trace.hpp"

#include <mcph/bounded_json.hpp>
#include <mcph/text.hpp>

#include <array>
#include <cstdlib>
#include <cstring>

namespace mcph::cli {
namespace {

// Lower case, without the separators spellings differ by (api_key, api-key, apiKey, x-api-key).
std::string normalized_key(std::string_view key) {
    std::string out;
    out.reserve(key.size());
    for (char c : key) {
        if (c == '_' || c == '-' || c == '.') continue;
        out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
    }
    return out;
}

bool ends_with(std::string_view text, std::string_view suffix) {
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// "Bearer abc", "Basic abc=": the scheme stays (it helps debugging), the credential goes.
bool is_authorization_value(std::string_view text) {
    for (std::string_view scheme : {"Bearer ", "Basic ", "bearer ", "basic "})
        if (text.size() > scheme.size() && text.substr(0, scheme.size()) == scheme) return true;
    return false;
}

// Cuts at most `max` bytes without splitting a UTF-8 sequence.
std::string_view utf8_prefix(std::string_view text, std::size_t max) {
    if (text.size() <= max) return text;
    std::size_t end = max;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    return text.substr(0, end);
}

std::string shown(std::string_view text, std::size_t max_bytes, std::size_t full_size) {
    std::string out(utf8_prefix(text, max_bytes));
    if (out.size() < text.size()) out += "\xE2\x80\xA6 (" + std::to_string(full_size) + " bytes)";
    return out;
}

}  // namespace

bool names_a_secret(std::string_view key) {
    const std::string k = normalized_key(key);
    if (k == "progresstoken") return false;
    static constexpr std::array<std::string_view, 10> kExact = {
        "authorization", "proxyauthorization", "cookie", "setcookie", "passwd",
        "passphrase",    "privatekey",         "credentials", "credential", "auth"};
    for (auto e : kExact)
        if (k == e) return true;
    static constexpr std::array<std::string_view, 5> kSuffixes = {"token", "secret", "password", "apikey", "sessionid"};
    for (auto s : kSuffixes)
        if (ends_with(k, s)) return true;
    return false;
}

void redact_secrets(JsonValue& value, rapidjson::MemoryPoolAllocator<>& allocator) {
    // Iterative: the parse bound (128 levels) already holds, but no recursion is needed either.
    std::vector<JsonValue*> stack{&value};
    while (!stack.empty()) {
        JsonValue* v = stack.back();
        stack.pop_back();
        if (v->IsObject()) {
            for (auto& m : v->GetObject()) {
                if (names_a_secret(std::string_view(m.name.GetString(), m.name.GetStringLength()))) m.value.SetString("***");
                else stack.push_back(&m.value);
            }
        } else if (v->IsArray()) {
            for (auto& e : v->GetArray()) stack.push_back(&e);
        } else if (v->IsString() && is_authorization_value(std::string_view(v->GetString(), v->GetStringLength()))) {
            const std::string_view text(v->GetString(), v->GetStringLength());
            const std::string scheme(text.substr(0, text.find(' ')));
            v->SetString((scheme + " ***").c_str(), allocator);
        }
    }
}

std::string wire_trace_line(std::string_view server, WireDirection direction, std::string_view message,
                            std::size_t max_bytes) {
    std::string line = "mcph: [trace] " + terminal_safe(server, LineBreaks::Escape) +
                       (direction == WireDirection::Out ? " \xE2\x86\x92 " : " \xE2\x86\x90 ");
    if (message.size() > kWireTraceParseBytes)
        return line + "(a message of " + std::to_string(message.size()) + " bytes, not shown)";
    Json doc;
    if (!json_bounds::parse(doc, message)) return line + "(not JSON) " + terminal_safe(shown(message, max_bytes, message.size()), LineBreaks::Escape);
    redact_secrets(doc, doc.GetAllocator());
    const std::string text = to_json(doc);
    // The size named is the message's on the wire, not the redacted copy's.
    return line + terminal_safe(shown(text, max_bytes, message.size()), LineBreaks::Escape);
}

bool wire_trace_requested(const Options& options) {
    if (options.debug) return true;
    const char* level = std::getenv("MCPH_LOG_LEVEL");
    return level && std::strcmp(level, "trace") == 0;
}

std::function<void(const std::string&, WireDirection, std::string_view)> wire_tracer(
    std::function<void(const std::string& line)> sink) {
    return [sink = std::move(sink)](const std::string& server, WireDirection direction, std::string_view message) {
        sink(wire_trace_line(server, direction, message));
    };
}

}  // namespace mcph::cli
