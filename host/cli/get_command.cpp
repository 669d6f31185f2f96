// `mcph get <name>`: one server's definition as written (${VAR} unexpanded), where it came from, and
// its type; the values of env entries and headers are masked, since they are where tokens live, and
// so are secret-named args (--token=...), URL query parameters (?api_key=...) and the secret fields
// of "oauth" and "auth" blocks (clientSecret, idToken, privateKeyPem, ...).
#include "config_commands.hpp"
#include "did_you_mean.hpp"
#include "json_output.hpp"
#include "render.hpp"

#include <mcph/error.hpp>
#include <mcph/text.hpp>

#include <mcph/bounded_json.hpp>

#include <cctype>
#include <optional>
#include <iostream>

namespace mcph::cli {
namespace {

// A value is shown when it holds no literal secret: only ${VAR} references, optionally after an
// auth scheme ("Bearer ${TOKEN}"). Anything else is masked, keeping only its length.
std::string masked(const std::string& value) {
    std::string literal;
    for (std::size_t i = 0; i < value.size();) {
        if (value.compare(i, 2, "${") == 0) {
            const auto close = value.find('}', i);
            if (close == std::string::npos) return "<masked, " + std::to_string(value.size()) + " chars>";
            i = close + 1;
            continue;
        }
        literal.push_back(value[i++]);
    }
    for (const char* scheme : {"Bearer ", "Basic ", "Token ", "token "})
        if (literal == scheme) literal.clear();
    return literal.empty() ? value : "<masked, " + std::to_string(value.size()) + " chars>";
}

// The one rule for which names carry secrets, for args (--token=..., --api-key ...) and URL query
// parameters (?api_key=...): a name with one of these words in it, in any case or spelling
// (api_key, apiKey, X-Api-Key, access-token, client_secret, passwd).
// A name with case and punctuation dropped: "X-Api-Key" and "api_key" both read "apikey".
std::string folded_name(const std::string& name) {
    std::string folded;
    for (char c : name)
        if (std::isalnum(static_cast<unsigned char>(c))) folded.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    return folded;
}

bool secret_name(const std::string& name) {
    const std::string folded = folded_name(name);
    for (const char* word : {"token", "secret", "password", "passwd", "pwd", "apikey", "key", "auth", "credential", "signature", "sig", "session", "cookie"})
        if (folded.find(word) != std::string::npos) return true;
    return false;
}

// "--token=abc" -> "--token=<masked>", and the word after a bare "--token" is masked too.
void mask_args(JsonValue& entry, Json::AllocatorType& a) {
    if (!entry.HasMember("args") || !entry["args"].IsArray()) return;
    bool mask_next = false;
    for (auto& arg : entry["args"].GetArray()) {
        if (!arg.IsString()) continue;
        std::string text = arg.GetString();
        std::string shown = text;
        if (mask_next && text.rfind("-", 0) != 0) shown = masked(text);
        mask_next = false;
        if (text.rfind("-", 0) == 0) {
            const auto eq = text.find('=');
            const std::string name = text.substr(0, eq);
            if (secret_name(name)) {
                if (eq == std::string::npos) mask_next = true;
                else shown = text.substr(0, eq + 1) + masked(text.substr(eq + 1));
            }
        }
        if (shown != text) arg.SetString(shown.c_str(), static_cast<rapidjson::SizeType>(shown.size()), a);
    }
}

// The URL's user-info password and the values of secret-named query parameters.
std::string masked_url(const std::string& url) {
    std::string out = url;
    const auto scheme = out.find("://");
    if (scheme != std::string::npos) {
        const auto authority_end = out.find_first_of("/?#", scheme + 3);
        const auto at = out.rfind('@', authority_end == std::string::npos ? out.size() : authority_end);
        if (at != std::string::npos && at > scheme) {
            const auto colon = out.find(':', scheme + 3);
            if (colon != std::string::npos && colon < at)
                out = out.substr(0, colon + 1) + masked(out.substr(colon + 1, at - colon - 1)) + out.substr(at);
        }
    }
    const auto query = out.find('?');
    if (query == std::string::npos) return out;
    const auto fragment = out.find('#', query);
    const std::string tail = fragment == std::string::npos ? "" : out.substr(fragment);
    std::string params = out.substr(query + 1, fragment == std::string::npos ? std::string::npos : fragment - query - 1);
    std::string rebuilt;
    for (std::size_t start = 0; start <= params.size();) {
        auto end = params.find('&', start);
        if (end == std::string::npos) end = params.size();
        std::string part = params.substr(start, end - start);
        const auto eq = part.find('=');
        if (eq != std::string::npos && secret_name(part.substr(0, eq))) part = part.substr(0, eq + 1) + masked(part.substr(eq + 1));
        rebuilt += (rebuilt.empty() ? "" : "&") + part;
        start = end + 1;
    }
    return out.substr(0, query + 1) + rebuilt + tail;
}

void mask_url(JsonValue& entry, Json::AllocatorType& a) {
    if (!entry.HasMember("url") || !entry["url"].IsString()) return;
    const std::string shown = masked_url(entry["url"].GetString());
    entry["url"].SetString(shown.c_str(), static_cast<rapidjson::SizeType>(shown.size()), a);
}

std::string masked_value_of(const JsonValue& v) { return "<masked, " + std::to_string(to_json(v).size()) + " chars>"; }

void mask_members(JsonValue& entry, const char* member, Json::AllocatorType& a) {
    if (!entry.HasMember(member) || !entry[member].IsObject()) return;
    for (auto& m : entry[member].GetObject())
        if (m.value.IsString()) {
            const std::string shown = masked(m.value.GetString());
            m.value.SetString(shown.c_str(), static_cast<rapidjson::SizeType>(shown.size()), a);
        }
}

// Inside "oauth" and "auth" blocks (at any depth: xaa's "idp" object) the secrets are named
// fields: clientSecret, idToken, privateKeyPem, a backend's token or password. Narrower than
// secret_name, whose "auth" and "token" words would also hide tokenEndpoint and
// tokenEndpointAuthMethod, which are addresses and choices, not secrets.
bool secret_auth_field(const std::string& name) {
    const std::string folded = folded_name(name);
    for (const char* word : {"secret", "password", "passwd", "privatekey", "pem", "apikey", "credential", "cookie"})
        if (folded.find(word) != std::string::npos) return true;
    const std::string_view token = "token";
    return folded.size() >= token.size() && folded.compare(folded.size() - token.size(), token.size(), token) == 0;
}

// Arrays are walked too: a list of objects ("backends": [{"password": ...}]) holds named fields
// like any object; a list under a secret's own name is masked whole, as any non-object value is.
void mask_auth_block(JsonValue& block, Json::AllocatorType& a) {
    if (block.IsArray()) {
        for (JsonValue& element : block.GetArray()) mask_auth_block(element, a);
        return;
    }
    if (!block.IsObject()) return;
    for (auto& m : block.GetObject()) {
        if (m.value.IsObject() || (m.value.IsArray() && !secret_auth_field(m.name.GetString()))) {
            mask_auth_block(m.value, a);
        } else if (secret_auth_field(m.name.GetString())) {
            const std::string shown = m.value.IsString() ? masked(m.value.GetString()) : masked_value_of(m.value);
            m.value.SetString(shown.c_str(), static_cast<rapidjson::SizeType>(shown.size()), a);
        }
    }
}

std::string type_of(const JsonValue& entry) {
    if (entry.HasMember("type") && entry["type"].IsString()) return entry["type"].GetString();
    return entry.HasMember("url") ? "http" : "stdio";
}

void print_map(const JsonValue& entry, const char* member, const char* label) {
    if (!entry.HasMember(member) || !entry[member].IsObject()) return;
    std::cout << "  " << label << ":\n";
    for (const auto& m : entry[member].GetObject())
        std::cout << "    " << one_line(m.name.GetString()) << (std::string(member) == "env" ? "=" : ": ")
                  << one_line(m.value.IsString() ? m.value.GetString() : to_json(m.value)) << "\n";
}


// Every redaction `get` applies to an entry, in one place: a server with a config problem is shown
// with exactly the masking of a good one.
void mask_entry(Json& entry) {
    mask_members(entry, "env", entry.GetAllocator());
    mask_members(entry, "headers", entry.GetAllocator());
    mask_args(entry, entry.GetAllocator());
    mask_url(entry, entry.GetAllocator());
    for (const char* member : {"oauth", "auth"})
        if (entry.IsObject() && entry.HasMember(member)) mask_auth_block(entry[member], entry.GetAllocator());
}

// A broken entry may hold its secrets in shapes a good one cannot have ("env": ["TOKEN=..."],
// "headers": "Authorization: ...", an env value that is an object): such a value of env, headers,
// args or url is masked whole, before the masking of a good entry.
void mask_malformed(Json& entry) {
    auto& a = entry.GetAllocator();
    const auto mask_whole = [&a](JsonValue& v) {
        const std::string shown = masked_value_of(v);
        v.SetString(shown.c_str(), static_cast<rapidjson::SizeType>(shown.size()), a);
    };
    for (const char* member : {"env", "headers"}) {
        if (!entry.HasMember(member)) continue;
        JsonValue& v = entry[member];
        if (!v.IsObject()) {
            mask_whole(v);
            continue;
        }
        for (auto& m : v.GetObject())
            if (!m.value.IsString()) mask_whole(m.value);
    }
    if (entry.HasMember("args")) {
        JsonValue& args = entry["args"];
        if (!args.IsArray()) mask_whole(args);
        else
            for (auto& arg : args.GetArray())
                if (!arg.IsString()) mask_whole(arg);
    }
    if (entry.HasMember("url") && !entry["url"].IsString()) mask_whole(entry["url"]);
}

// command, args, env, url and headers of a (masked) entry, as `get` prints them.
void print_entry(const JsonValue& entry, const ServerDefinition* d) {
    if (entry.HasMember("command") && entry["command"].IsString()) {
        std::cout << "  command: " << one_line(entry["command"].GetString()) << "\n";
        if (entry.HasMember("args") && entry["args"].IsArray()) {
            std::cout << "  args:";
            for (const auto& arg : entry["args"].GetArray()) std::cout << " " << one_line(arg.IsString() ? arg.GetString() : to_json(arg));
            std::cout << "\n";
        }
        print_map(entry, "env", "env");
        if (d && !d->inherit_env_json.empty()) std::cout << "  " << inherit_env_line(*d) << "\n";
    }
    if (entry.HasMember("url") && entry["url"].IsString()) std::cout << "  url: " << one_line(entry["url"].GetString()) << "\n";
    print_map(entry, "headers", "headers");
}

// A server that is configured but could not be used: where, why, and its entry as written (masked
// as for a good server). A written value that is not an object is not shown, only named.
int print_problem(const ExcludedServer& p, bool json) {
    std::optional<Json> entry;
    if (!p.written_json.empty()) {
        Json parsed;
        if (json_bounds::parse(parsed, p.written_json) && parsed.IsObject()) {
            mask_malformed(parsed);
            mask_entry(parsed);
            entry.emplace(std::move(parsed));
        }
    }
    if (json) {
        Json doc(rapidjson::kObjectType);
        auto& a = doc.GetAllocator();
        JsonValue server(rapidjson::kObjectType);
        server.AddMember("name", JsonValue(p.name.c_str(), a), a);
        server.AddMember("scope", JsonValue(p.scope.c_str(), a), a);
        server.AddMember("origin", JsonValue(p.origin.c_str(), a), a);
        server.AddMember("problem", JsonValue(p.reason.c_str(), a), a);
        if (entry) server.AddMember("definition", JsonValue(*entry, a), a);
        doc.AddMember("server", server, a);
        print_json_document(doc, "server");
        return 0;
    }
    std::cout << one_line(p.name) << ":\n";
    if (!p.scope.empty()) std::cout << "  scope: " << one_line(p.scope) << "\n";
    std::cout << "  origin: " << one_line(p.origin) << "\n  problem: " << one_line(p.reason) << "\n";
    if (entry) {
        std::cout << "  as written:\n";
        print_entry(*entry, nullptr);
        // The rest of the entry (type, cwd, timeout, ...), compact: what may be the problem.
        Json rest;
        rest.CopyFrom(*entry, rest.GetAllocator());
        if (rest.HasMember("command") && rest["command"].IsString()) {
            if (rest.HasMember("args") && rest["args"].IsArray()) rest.RemoveMember("args");
            if (rest.HasMember("env") && rest["env"].IsObject()) rest.RemoveMember("env");
            rest.RemoveMember("command");
        }
        if (rest.HasMember("url") && rest["url"].IsString()) rest.RemoveMember("url");
        if (rest.HasMember("headers") && rest["headers"].IsObject()) rest.RemoveMember("headers");
        if (rest.MemberCount() > 0) std::cout << "  other keys: " << one_line(to_json(rest)) << "\n";
    } else if (!p.written_json.empty()) {
        std::cout << "  as written: not a JSON object\n";
    }
    return 0;
}

}  // namespace

std::string inherit_env_line(const ServerDefinition& d) {
    std::string from;
    if (d.inherit_env_from == "default")
        from = "the default: only HOME LOGNAME PATH SHELL TERM USER LANG LC_ALL LC_CTYPE TMPDIR TZ of your environment";
    else if (d.inherit_env_from == "definition")
        from = "set by the definition";
    else
        from = "the default of " + d.inherit_env_from;
    return "inheritEnv: " + one_line(d.inherit_env_json) + " (" + one_line(from) + ")";
}

int cmd_get(Host& host, const Options& o) {
    if (o.args.size() != 1) throw Error(ErrorKind::Usage, "usage: mcph get <name> (see `mcph get --help`)");
    ServerDefinition d;
    try {
        d = host.definition(o.args[0]);
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::NotFound) throw;
        for (const auto& p : host.config_report().problems)
            if (p.name == o.args[0]) return print_problem(p, o.json);
        throw Error(ErrorKind::NotFound, e.what() + did_you_mean(o.args[0], host.server_names()));
    }
    Json entry = parse_json(d.definition_json, "server definition");
    if (!entry.IsObject()) throw Error(ErrorKind::Protocol, "the definition of '" + d.name + "' is not a JSON object");
    mask_entry(entry);
    const std::string type = type_of(entry);
    if (o.json) {
        Json doc(rapidjson::kObjectType);
        auto& a = doc.GetAllocator();
        JsonValue server(rapidjson::kObjectType);
        server.AddMember("name", JsonValue(d.name.c_str(), a), a);
        server.AddMember("scope", JsonValue(d.scope.c_str(), a), a);
        server.AddMember("origin", JsonValue(d.origin.c_str(), a), a);
        server.AddMember("type", JsonValue(type.c_str(), a), a);
        server.AddMember("definition", JsonValue(entry, a), a);
        JsonValue variables(rapidjson::kArrayType);
        for (const auto& v : d.variables) variables.PushBack(JsonValue(v.c_str(), a), a);
        server.AddMember("variables", variables, a);
        if (!d.inherit_env_json.empty()) {
            JsonValue inherit(rapidjson::kObjectType);
            inherit.AddMember("value", JsonValue(parse_json(d.inherit_env_json, "inheritEnv"), a), a);
            inherit.AddMember("from", JsonValue(d.inherit_env_from.c_str(), a), a);
            server.AddMember("inheritEnv", inherit, a);
        }
        doc.AddMember("server", server, a);
        print_json_document(doc, "server");
        return 0;
    }
    std::cout << one_line(d.name) << ":\n  scope: " << one_line(d.scope) << "\n  origin: " << one_line(d.origin)
              << "\n  type: " << one_line(type) << "\n";
    print_entry(entry, &d);
    if (!d.variables.empty()) {
        std::cout << "  reads environment variables:";
        for (const auto& v : d.variables) std::cout << " " << one_line(v);
        std::cout << "\n";
    }
    return 0;
}

}  // namespace mcph::cli
