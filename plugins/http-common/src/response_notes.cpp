#include "response_notes.hpp"

#include "curl_handles.hpp"

#include <mcph/bounded_json.hpp>

#include <algorithm>
#include <cctype>
#include <ctime>

namespace mcph::http {
namespace {

// Printable ASCII only, at most `max` bytes: header values are quoted into one-line messages.
std::string printable(std::string_view s, size_t max = 200) {
    std::string out;
    for (char c : s.substr(0, max)) out += c >= 0x20 && c < 0x7f ? c : ' ';
    if (s.size() > max) out += "...";
    return out;
}

std::string trimmed(std::string s) {
    auto blank = [](unsigned char c) { return std::isspace(c) != 0; };
    s.erase(s.begin(), std::find_if_not(s.begin(), s.end(), blank));
    s.erase(std::find_if_not(s.rbegin(), s.rend(), blank).base(), s.end());
    return s;
}

}  // namespace

std::string redirect_note(CURL* easy, long status) {
    if (status < 300 || status >= 400) return {};
    std::string note = " (redirects are not followed: requests carry credentials";
    if (std::optional<std::string> location = response_header(easy, "Location"))
        note += "; Location: " + printable(trimmed(*location));
    return note + ")";
}

std::optional<std::chrono::milliseconds> retry_after(CURL* easy) {
    std::optional<std::string> raw = response_header(easy, "Retry-After");
    if (!raw) return std::nullopt;
    std::string v = trimmed(*raw);
    if (v.empty()) return std::nullopt;
    long long seconds = 0;
    if (std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c) != 0; })) {
        if (v.size() > 9) return kMaxRetryAfter;  // absurd: clamp without overflowing
        seconds = std::stoll(v);
    } else {
        time_t when = curl_getdate(v.c_str(), nullptr);  // RFC 9110 HTTP-date
        if (when < 0) return std::nullopt;
        seconds = std::max<long long>(0, static_cast<long long>(when - std::time(nullptr)));
    }
    return std::min(std::chrono::milliseconds(seconds * 1000), kMaxRetryAfter);
}

std::string content_encoding(CURL* easy) {
    std::optional<std::string> raw = response_header(easy, "Content-Encoding");
    if (!raw) return {};
    std::string v = trimmed(*raw);
    for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return v.empty() || v == "identity" ? std::string() : printable(v, 64);
}

std::optional<std::string> jsonrpc_error_text(std::string_view body) {
    rapidjson::Document doc;
    if (!mcph::json_bounds::parse(doc, body)) return std::nullopt;
    const rapidjson::Value* msg = &doc;
    if (doc.IsArray()) {
        if (doc.Empty()) return std::nullopt;
        msg = &doc[0];
    }
    if (!msg->IsObject()) return std::nullopt;
    auto err = msg->FindMember("error");
    if (err == msg->MemberEnd() || !err->value.IsObject()) return std::nullopt;
    std::string out = "JSON-RPC error";
    auto code = err->value.FindMember("code");
    if (code != err->value.MemberEnd() && code->value.IsInt64()) out += " " + std::to_string(code->value.GetInt64());
    auto text = err->value.FindMember("message");
    if (text != err->value.MemberEnd() && text->value.IsString())
        out += ": " + std::string(text->value.GetString(), text->value.GetStringLength());
    return out;
}

std::string curl_failure_text(CURLcode code) {
    if (code == CURLE_OUT_OF_MEMORY)
        return "libcurl gave up with \"Out of memory\", which it also reports for a response header longer "
               "than its 100 KiB limit (CURL_MAX_HTTP_HEADER), e.g. a huge Mcp-Session-Id";
    return curl_easy_strerror(code);
}

}  // namespace mcph::http
