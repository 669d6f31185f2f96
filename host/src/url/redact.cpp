#include "url/redact.hpp"

#include "text/ascii.hpp"

#include <array>
#include <cctype>

namespace mcph::url {
namespace {

constexpr std::string_view kMask = "***";

bool is_scheme_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
}

bool ends_url(char c) {
    return std::isspace(static_cast<unsigned char>(c)) || c == '"' || c == '\'' || c == '<' || c == '>' || c == '`';
}

// Segments that name the secret that follows them ("/key/<secret>", "/token/<secret>").
bool names_a_secret(std::string_view segment) {
    static constexpr std::array<std::string_view, 8> kNames = {"key", "apikey", "api_key", "api-key",
                                                               "token", "secret", "password", "auth"};
    const std::string l = text::ascii_lower(segment);
    for (std::string_view n : kNames)
        if (l == n) return true;
    return false;
}

// Heuristic by design: a path may carry a key (Zapier-style "/mcp/<key>/sse"), and no syntax tells
// it apart. Long runs mixing letters and digits, and the prefixes of common API tokens, are masked;
// short words ("mcp", "v1", "2025-06-18") are kept so the message still says where it went.
bool looks_like_secret(std::string_view segment) {
    static constexpr std::array<std::string_view, 9> kPrefixes = {"sk-", "sk_", "pk_", "ghp_", "gho_", "github_pat_",
                                                                  "xoxb-", "xoxp-", "glpat-"};
    for (std::string_view p : kPrefixes)
        if (segment.size() > p.size() && segment.substr(0, p.size()) == p) return true;
    if (segment.size() < 16) return false;
    bool letter = false, digit = false;
    for (char c : segment) {
        if (std::isalpha(static_cast<unsigned char>(c))) letter = true;
        else if (std::isdigit(static_cast<unsigned char>(c))) digit = true;
    }
    return letter && digit;
}

std::string redact_path(std::string_view path) {
    std::string out;
    bool after_name = false;
    size_t i = 0;
    while (i < path.size()) {
        if (path[i] == '/') {
            out.push_back('/');
            ++i;
            continue;
        }
        size_t end = path.find('/', i);
        if (end == std::string_view::npos) end = path.size();
        std::string_view segment = path.substr(i, end - i);
        out += after_name || looks_like_secret(segment) ? std::string(kMask) : std::string(segment);
        after_name = names_a_secret(segment);
        i = end;
    }
    return out;
}

std::string redact_query(std::string_view query) {
    std::string out;
    size_t i = 0;
    while (i <= query.size()) {
        size_t amp = query.find('&', i);
        if (amp == std::string_view::npos) amp = query.size();
        std::string_view pair = query.substr(i, amp - i);
        size_t eq = pair.find('=');
        if (!out.empty() || i > 0) out.push_back('&');
        if (eq == std::string_view::npos) out += pair.empty() ? std::string() : std::string(pair);
        else out += std::string(pair.substr(0, eq + 1)) + std::string(kMask);
        i = amp + 1;
    }
    return out;
}

}  // namespace

std::string redact_url(std::string_view url) {
    std::string out;
    size_t sep = url.find("://");
    size_t rest_at = 0;
    if (sep != std::string_view::npos) {
        const size_t start = sep + 3;
        size_t end = url.find_first_of("/?#", start);
        if (end == std::string_view::npos) end = url.size();
        std::string_view authority = url.substr(start, end - start);
        out = std::string(url.substr(0, start));
        // The last '@' ends the userinfo (a password may itself hold an '@').
        if (size_t at = authority.rfind('@'); at != std::string_view::npos)
            out += std::string(kMask) + std::string(authority.substr(at));
        else
            out += std::string(authority);
        rest_at = end;
    }
    std::string_view rest = url.substr(rest_at);
    const size_t hash = rest.find('#');
    std::string_view fragment = hash == std::string_view::npos ? std::string_view() : rest.substr(hash + 1);
    rest = rest.substr(0, hash);
    const size_t q = rest.find('?');
    out += redact_path(rest.substr(0, q));
    if (q != std::string_view::npos) out += "?" + redact_query(rest.substr(q + 1));
    if (hash != std::string_view::npos) out += fragment.empty() ? "#" : "#" + std::string(kMask);
    return out;
}

std::string redact_urls_in_text(std::string_view text) {
    std::string out;
    size_t copied = 0;
    size_t search = 0;
    while (true) {
        size_t sep = text.find("://", search);
        if (sep == std::string_view::npos) break;
        size_t start = sep;
        while (start > copied && is_scheme_char(text[start - 1])) --start;
        if (start == sep) {  // "://" with no scheme before it: not a URL
            search = sep + 3;
            continue;
        }
        size_t end = sep + 3;
        while (end < text.size() && !ends_url(text[end])) ++end;
        out += text.substr(copied, start - copied);
        out += redact_url(text.substr(start, end - start));
        copied = search = end;
    }
    out += text.substr(copied);
    return out;
}

}  // namespace mcph::url
