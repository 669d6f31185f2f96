#include "scopes.hpp"

#include "metadata.hpp"

namespace mcph::oauth {

std::vector<std::string> split_scopes(std::string_view text) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
        size_t start = i;
        while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
        if (i > start) {
            std::string s(text.substr(start, i - start));
            if (!contains(out, s)) out.push_back(std::move(s));
        }
    }
    return out;
}

std::string join_scopes(const std::vector<std::string>& scopes) {
    std::string out;
    for (const auto& s : scopes) {
        if (!out.empty()) out += ' ';
        out += s;
    }
    return out;
}

std::vector<std::string> union_scopes(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    std::vector<std::string> out;
    for (const auto* list : {&a, &b})
        for (const auto& s : *list)
            if (!contains(out, s)) out.push_back(s);
    return out;
}

std::vector<std::string> select_scopes(const ScopeInputs& in) {
    std::vector<std::string> out;
    if (in.config_override && *in.config_override) out = **in.config_override;
    else if (!in.challenge_scope.empty()) out = split_scopes(in.challenge_scope);
    else if (in.resource_scopes && !in.resource_scopes->empty()) out = *in.resource_scopes;
    if (!out.empty() && in.want_refresh_token && in.server_scopes && contains(*in.server_scopes, "offline_access") &&
        !contains(out, "offline_access"))
        out.push_back("offline_access");
    return out;
}

}  // namespace mcph::oauth
