// Scope selection (MCP 2025-11-25 "Scope Selection Strategy") and step-up arithmetic.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcph::oauth {

std::vector<std::string> split_scopes(std::string_view text);
std::string join_scopes(const std::vector<std::string>& scopes);
// Order-preserving union without duplicates.
std::vector<std::string> union_scopes(const std::vector<std::string>& a, const std::vector<std::string>& b);

struct ScopeInputs {
    const std::optional<std::vector<std::string>>* config_override = nullptr;
    std::string_view challenge_scope;              // WWW-Authenticate scope=
    const std::vector<std::string>* resource_scopes = nullptr;  // PRM scopes_supported
    const std::vector<std::string>* server_scopes = nullptr;    // AS scopes_supported
    bool want_refresh_token = true;
};

// config override, else the challenge's scope, else PRM scopes_supported, else nothing (the
// `scope` parameter is then omitted entirely). offline_access is added only when the AS lists it
// (SEP-2207) and there is a scope list to add it to.
std::vector<std::string> select_scopes(const ScopeInputs& in);

}  // namespace mcph::oauth
