#include "www_authenticate.hpp"

#include <cctype>

namespace mcph::oauth {

namespace {

bool is_tchar(char c) {
    if (std::isalnum(static_cast<unsigned char>(c))) return true;
    switch (c) {
        case '!': case '#': case '$': case '%': case '&': case '\'': case '*': case '+': case '-':
        case '.': case '^': case '_': case '`': case '|': case '~':
            return true;
        default:
            return false;
    }
}

bool is_token68_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' || c == '~' || c == '+' ||
           c == '/';
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

class Parser {
public:
    explicit Parser(std::string_view s) : s_(s) {}

    std::vector<AuthChallenge> run() {
        std::vector<AuthChallenge> out;
        while (true) {
            skip_separators();
            if (at_end()) break;
            std::string_view tok = read_token();
            if (tok.empty()) {  // garbage: skip one character and resynchronise
                ++i_;
                continue;
            }
            size_t after_token = i_;
            skip_spaces();
            if (peek() == '=' && !out.empty()) {
                ++i_;
                skip_spaces();
                std::string value = peek() == '"' ? read_quoted() : read_bare_value();
                out.back().params.emplace(lower(tok), std::move(value));  // emplace: first wins
                continue;
            }
            if (peek() == '=') {  // a parameter before any scheme: malformed, skip it
                i_ = after_token + 1;
                read_bare_value();
                continue;
            }
            AuthChallenge c;
            c.scheme = std::string(tok);
            c.token68 = try_token68();
            out.push_back(std::move(c));
        }
        return out;
    }

private:
    bool at_end() const { return i_ >= s_.size(); }
    char peek() const { return at_end() ? '\0' : s_[i_]; }
    void skip_spaces() {
        while (!at_end() && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
    }
    void skip_separators() {
        while (!at_end() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == ',')) ++i_;
    }
    std::string_view read_token() {
        size_t start = i_;
        while (!at_end() && is_tchar(s_[i_])) ++i_;
        return s_.substr(start, i_ - start);
    }
    // Token form; lenient: anything up to a comma or whitespace (servers send unquoted URLs).
    std::string read_bare_value() {
        size_t start = i_;
        while (!at_end() && s_[i_] != ',' && s_[i_] != ' ' && s_[i_] != '\t') ++i_;
        return std::string(s_.substr(start, i_ - start));
    }
    std::string read_quoted() {
        std::string out;
        ++i_;  // opening quote
        while (!at_end()) {
            char c = s_[i_++];
            if (c == '"') return out;
            if (c == '\\' && !at_end()) c = s_[i_++];
            out += c;
        }
        return out;  // unterminated: take what there is
    }
    // After a scheme: a token68 is a run of token68 characters, optional '=' padding, then the
    // end or a comma. "realm=x" is not one, because something follows the '='.
    std::string try_token68() {
        size_t save = i_;
        skip_spaces();
        size_t start = i_;
        while (!at_end() && is_token68_char(s_[i_])) ++i_;
        if (i_ == start) {
            i_ = save;
            return {};
        }
        while (!at_end() && s_[i_] == '=') ++i_;
        size_t end = i_;
        skip_spaces();
        if (at_end() || peek() == ',') return std::string(s_.substr(start, end - start));
        i_ = save;
        return {};
    }

    std::string_view s_;
    size_t i_ = 0;
};

}  // namespace

std::vector<AuthChallenge> parse_www_authenticate(std::string_view header) { return Parser(header).run(); }

BearerChallenge bearer_challenge(std::string_view header) {
    BearerChallenge out;
    const auto challenges = parse_www_authenticate(header);
    // A DPoP-only resource server (RFC 9449 §7.1) puts the same parameters on a DPoP challenge.
    bool any_bearer = false;
    for (const auto& c : challenges) any_bearer = any_bearer || lower(c.scheme) == "bearer";
    const std::string wanted = any_bearer ? "bearer" : "dpop";
    for (const auto& c : challenges) {
        if (lower(c.scheme) != wanted) continue;
        out.present = true;
        auto get = [&](const char* name) {
            auto it = c.params.find(name);
            return it == c.params.end() ? std::string() : it->second;
        };
        out.resource_metadata = get("resource_metadata");
        out.scope = get("scope");
        out.error = get("error");
        out.error_description = get("error_description");
        break;
    }
    return out;
}

}  // namespace mcph::oauth
