// The allow/deny rules of seed 000 §18.9 as data: each rule matches a server by name, by command
// line (stdio), by URL pattern with '*' wildcards (remote), or by host on any scheme and port. Parsed from settings files by
// the config loader, evaluated by governance/policy.hpp.
#pragma once

#include <mcph/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace mcph::governance {

struct PolicyRule {
    enum class Kind { Name, Command, Url, Host };
    Kind kind = Kind::Name;
    std::string name;                  // Kind::Name
    std::vector<std::string> command;  // Kind::Command: command followed by its args, matched exactly
    std::string url_pattern;           // Kind::Url: '*' matches any run of characters
    std::string host_pattern;          // Kind::Host: "evil.example.com", "*.example.com", "10.0.0.5"
    std::string origin;                // the file (or source) the rule came from

    // For messages: {"serverUrl":"https://*.example.com/*"} from /etc/mcph/managed-settings.json
    std::string describe() const;
};

struct PolicySettings {
    // nullopt: no allow list anywhere (everything allowed). An empty list allows nothing.
    std::optional<std::vector<PolicyRule>> allowed;
    std::vector<PolicyRule> denied;  // merged from every source: a user may always deny for themselves
    // Managed "pluginOnlyMcpServers": sub-agents from user/project sources may not add inline servers.
    bool plugin_only_agents = false;
    // "withholdFlaggedTools" in managed, user or local settings: tools the scanner flags are
    // withheld. Any of them may turn it on (it only ever withholds more).
    bool withhold_flagged_tools = false;
    // Query parameters in which a rewriting proxy keeps the original URL (server_signature.hpp):
    // "mcp_url" plus any the managed or user settings name ("proxyUrlParameters"). Deny rules are
    // also matched against the original behind each of them.
    std::vector<std::string> proxy_url_parameters{"mcp_url"};
    // An enterprise or managed file exists but cannot be read: nothing may connect.
    bool fail_closed = false;
    std::string fail_closed_reason;
};

// One entry of allowedMcpServers / deniedMcpServers: {"serverName": "..."}, {"serverCommand":
// ["cmd", "arg"...]}, {"serverUrl": "pattern"} or {"serverHost": "pattern"}; a bare string is a
// server name. Throws mcph::Error(Usage) naming `origin` on anything else, including a serverHost
// that is not a host name, address or '*' pattern of one.
PolicyRule parse_policy_rule(const JsonValue& entry, const std::string& origin);

// A whole list (the value of allowedMcpServers or deniedMcpServers). Throws like parse_policy_rule.
std::vector<PolicyRule> parse_policy_rules(const JsonValue& list, const std::string& origin, const char* field);

}  // namespace mcph::governance
