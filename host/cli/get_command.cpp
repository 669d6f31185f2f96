// `mcph get <name>`: one server's definition as written (${VAR} unexpanded), where it came from, and
// its type; the values of env entries and headers are masked, since they are where tokens live.
#include "config_commands.hpp"
#include "did_you_mean.hpp"
#include "json_output.hpp"
#include "render.hpp"

#include <mcph/error.hpp>
#include <mcph/text.hpp>

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

void mask_members(JsonValue& entry, const char* member, Json::AllocatorType& a) {
    if (!entry.HasMember(member) || !entry[member].IsObject()) return;
    for (auto& m : entry[member].GetObject())
        if (m.value.IsString()) {
            const std::string shown = masked(m.value.GetString());
            m.value.SetString(shown.c_str(), static_cast<rapidjson::SizeType>(shown.size()), a);
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

}  // namespace

int cmd_get(Host& host, const Options& o) {
    if (o.args.size() != 1) throw Error(ErrorKind::Usage, "usage: mcph get <name> (see `mcph get --help`)");
    ServerDefinition d;
    try {
        d = host.definition(o.args[0]);
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::NotFound) throw;
        throw Error(ErrorKind::NotFound, e.what() + did_you_mean(o.args[0], host.server_names()));
    }
    Json entry = parse_json(d.definition_json, "server definition");
    if (!entry.IsObject()) throw Error(ErrorKind::Protocol, "the definition of '" + d.name + "' is not a JSON object");
    mask_members(entry, "env", entry.GetAllocator());
    mask_members(entry, "headers", entry.GetAllocator());
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
        doc.AddMember("server", server, a);
        print_json_document(doc, "server");
        return 0;
    }
    std::cout << one_line(d.name) << ":\n  scope: " << one_line(d.scope) << "\n  origin: " << one_line(d.origin)
              << "\n  type: " << one_line(type) << "\n";
    if (entry.HasMember("command") && entry["command"].IsString()) {
        std::cout << "  command: " << one_line(entry["command"].GetString()) << "\n";
        if (entry.HasMember("args") && entry["args"].IsArray()) {
            std::cout << "  args:";
            for (const auto& arg : entry["args"].GetArray()) std::cout << " " << one_line(arg.IsString() ? arg.GetString() : to_json(arg));
            std::cout << "\n";
        }
        print_map(entry, "env", "env");
    }
    if (entry.HasMember("url") && entry["url"].IsString()) std::cout << "  url: " << one_line(entry["url"].GetString()) << "\n";
    print_map(entry, "headers", "headers");
    if (!d.variables.empty()) {
        std::cout << "  reads environment variables:";
        for (const auto& v : d.variables) std::cout << " " << one_line(v);
        std::cout << "\n";
    }
    return 0;
}

}  // namespace mcph::cli
