#include "governance/policy_rules.hpp"

#include "json/json_access.hpp"
#include "url/canonical_url.hpp"

#include <mcph/error.hpp>

namespace mcph::governance {
namespace {

[[noreturn]] void bad_rule(const std::string& origin, const std::string& problem) {
    throw Error(ErrorKind::Usage, origin + ": " + problem);
}

}  // namespace

std::string PolicyRule::describe() const {
    Json doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    switch (kind) {
        case Kind::Name: doc.AddMember("serverName", json::string_value(name, a), a); break;
        case Kind::Url: doc.AddMember("serverUrl", json::string_value(url_pattern, a), a); break;
        case Kind::Host: doc.AddMember("serverHost", json::string_value(host_pattern, a), a); break;
        case Kind::Command: {
            JsonValue parts(rapidjson::kArrayType);
            for (const auto& p : command) parts.PushBack(json::string_value(p, a), a);
            doc.AddMember("serverCommand", parts, a);
            break;
        }
    }
    return to_json(doc) + (origin.empty() ? "" : " from " + origin);
}

PolicyRule parse_policy_rule(const JsonValue& entry, const std::string& origin) {
    PolicyRule rule;
    rule.origin = origin;
    if (entry.IsString()) {
        rule.name = std::string(json::view(entry));
        if (rule.name.empty()) bad_rule(origin, "a server name rule must not be empty");
        return rule;
    }
    if (!entry.IsObject() || entry.MemberCount() != 1)
        bad_rule(origin, "a policy rule must be an object with exactly one of serverName, serverCommand, serverUrl, serverHost");
    if (const JsonValue* n = json::member(entry, "serverName")) {
        if (!n->IsString() || n->GetStringLength() == 0) bad_rule(origin, "serverName must be a non-empty string");
        rule.name = std::string(json::view(*n));
    } else if (const JsonValue* c = json::member(entry, "serverCommand")) {
        if (!c->IsArray() || c->Empty()) bad_rule(origin, "serverCommand must be a non-empty array of strings");
        rule.kind = PolicyRule::Kind::Command;
        for (const JsonValue& part : c->GetArray()) {
            if (!part.IsString()) bad_rule(origin, "serverCommand must contain only strings");
            rule.command.emplace_back(json::view(part));
        }
    } else if (const JsonValue* u = json::member(entry, "serverUrl")) {
        if (!u->IsString() || u->GetStringLength() == 0) bad_rule(origin, "serverUrl must be a non-empty string");
        rule.kind = PolicyRule::Kind::Url;
        rule.url_pattern = std::string(json::view(*u));
    } else if (const JsonValue* h = json::member(entry, "serverHost")) {
        if (!h->IsString() || h->GetStringLength() == 0) bad_rule(origin, "serverHost must be a non-empty string");
        rule.kind = PolicyRule::Kind::Host;
        rule.host_pattern = std::string(json::view(*h));
        // Checked now, so a rule that could never match (a URL, a path) is an error, not a silent gap.
        if (!url::canonical_host_pattern(rule.host_pattern))
            bad_rule(origin, "serverHost '" + rule.host_pattern + "' is not a host name, an IP address or a '*' pattern of one");
    } else {
        bad_rule(origin, "a policy rule must have serverName, serverCommand, serverUrl or serverHost");
    }
    return rule;
}

std::vector<PolicyRule> parse_policy_rules(const JsonValue& list, const std::string& origin, const char* field) {
    if (!list.IsArray()) bad_rule(origin, std::string(field) + " must be an array of rules");
    std::vector<PolicyRule> out;
    for (const JsonValue& entry : list.GetArray()) {
        try {
            out.push_back(parse_policy_rule(entry, origin));
        } catch (const Error& e) {
            throw Error(ErrorKind::Usage, std::string(e.what()) + " (in " + field + ")");
        }
    }
    return out;
}

}  // namespace mcph::governance
