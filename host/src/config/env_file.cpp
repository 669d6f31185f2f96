#include "config/env_file.hpp"

#include "config/file_trust.hpp"
#include "json/json_access.hpp"

#include <mcph/error.hpp>
#include <mcph/json.hpp>

#include <map>

namespace mcph::config {
namespace {

// Hand-written: Debian packages no C++ dotenv reader, and the format is a dozen lines of rules.

bool is_key_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool is_key_char(char c) { return is_key_start(c) || (c >= '0' && c <= '9') || c == '.' || c == '-'; }

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

[[noreturn]] void bad_line(const std::string& origin, std::size_t line, const std::string& why) {
    throw Error(ErrorKind::Usage, origin + " line " + std::to_string(line) + ": " + why);
}

// The value after '=', as written: quoted or bare.
std::string parse_value(std::string_view raw, const std::string& origin, std::size_t line) {
    std::string_view v = trim(raw);
    if (v.empty()) return {};
    const char quote = v.front();
    if (quote == '\'' || quote == '"') {
        std::string out;
        std::size_t i = 1;
        for (; i < v.size() && v[i] != quote; ++i) {
            if (quote == '"' && v[i] == '\\' && i + 1 < v.size()) {
                const char e = v[++i];
                out += e == 'n' ? '\n' : e == 'r' ? '\r' : e == 't' ? '\t' : e;
            } else {
                out += v[i];
            }
        }
        if (i >= v.size()) bad_line(origin, line, std::string("unterminated ") + quote + "quoted value (values are one line)");
        const std::string_view rest = trim(v.substr(i + 1));
        if (!rest.empty() && rest.front() != '#') bad_line(origin, line, "text after the closing quote");
        return out;
    }
    if (const std::size_t hash = v.find(" #"); hash != std::string_view::npos) v = trim(v.substr(0, hash));
    return std::string(v);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> parse_env_file(std::string_view text, const std::string& origin) {
    std::vector<std::pair<std::string, std::string>> out;
    std::map<std::string, std::size_t> index;
    std::size_t number = 0;
    while (!text.empty()) {
        ++number;
        const std::size_t nl = text.find('\n');
        std::string_view line = trim(text.substr(0, nl));
        text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
        if (line.empty() || line.front() == '#') continue;
        if (line.substr(0, 7) == "export ") line = trim(line.substr(7));
        const std::size_t eq = line.find('=');
        if (eq == std::string_view::npos) bad_line(origin, number, "expected KEY=VALUE");
        const std::string_view key = trim(line.substr(0, eq));
        bool ok = !key.empty() && is_key_start(key.front());
        for (char c : key) ok = ok && is_key_char(c);
        if (!ok) bad_line(origin, number, "bad variable name '" + std::string(key) + "' (letters, digits, _ . -; not starting with a digit)");
        std::string value = parse_value(line.substr(eq + 1), origin, number);
        auto [it, inserted] = index.try_emplace(std::string(key), out.size());
        if (inserted) out.emplace_back(std::string(key), std::move(value));
        else out[it->second].second = std::move(value);
    }
    return out;
}

std::string apply_env_file(const std::string& server_name, const std::string& config_json,
                           const std::filesystem::path& confined_to) {
    Json doc = parse_json(config_json, "server config");
    const JsonValue* named = json::member(doc, "envFile");
    if (!named) return config_json;
    const std::string where = "server '" + server_name + "': envFile";
    if (!named->IsString() || named->GetStringLength() == 0)
        throw Error(ErrorKind::Usage, where + " must be a non-empty string (a path)");
    std::filesystem::path path(std::string(json::view(*named)));
    if (path.is_relative()) {
        const std::filesystem::path cwd(json::string_or(doc, "cwd"));
        std::error_code ec;
        path = (cwd.is_absolute() ? cwd : std::filesystem::current_path(ec)) / path;
    }
    std::error_code ec;
    if (!confined_to.empty() && std::filesystem::exists(path, ec) && !resolves_inside(path, confined_to))
        throw Error(ErrorKind::Usage, where + " " + path.string() + " leads out of the project " + confined_to.string() +
                                          "; refusing to read it (a repository's definition must not make mcph read your files)");
    std::optional<std::string> text;
    try {
        text = read_trusted_file(path, TrustRule{Owner::CurrentUser, true});
    } catch (const Error& e) {
        throw Error(ErrorKind::Usage, where + ": " + e.what());
    }
    if (!text) throw Error(ErrorKind::Usage, where + " " + path.string() + " does not exist");
    if (text->size() > kMaxEnvFileBytes)
        throw Error(ErrorKind::Usage, where + " " + path.string() + " is larger than the " +
                                          std::to_string(kMaxEnvFileBytes) + " bytes an env file may have");
    const auto variables = parse_env_file(*text, where + " " + path.string());
    auto& a = doc.GetAllocator();
    if (!doc.HasMember("env") || !doc["env"].IsObject()) {
        doc.RemoveMember("env");
        doc.AddMember("env", JsonValue(rapidjson::kObjectType), a);
    }
    JsonValue& env = doc["env"];
    for (const auto& [key, value] : variables)
        if (!env.HasMember(key.c_str())) env.AddMember(json::string_value(key, a), json::string_value(value, a), a);
    doc.RemoveMember("envFile");
    return to_json(doc);
}

}  // namespace mcph::config
