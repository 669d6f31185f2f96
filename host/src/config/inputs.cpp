#include "config/inputs.hpp"

#include "json/json_access.hpp"

namespace mcph::config {
namespace {

// One entry, or the reason it cannot be used.
std::optional<InputSpec> read_input(const JsonValue& v, std::string& why) {
    if (!v.IsObject()) {
        why = "must be an object";
        return std::nullopt;
    }
    const JsonValue* id = json::member(v, "id");
    if (!id || !id->IsString() || id->GetStringLength() == 0) {
        why = "needs a non-empty string \"id\"";
        return std::nullopt;
    }
    InputSpec out;
    out.id = std::string(json::view(*id));
    out.type = json::string_or(v, "type", "promptString");
    if (out.type != "promptString" && out.type != "pickString") {
        why = "has type \"" + out.type + "\"; mcph answers \"promptString\" and \"pickString\" inputs";
        return std::nullopt;
    }
    out.description = json::string_or(v, "description");
    out.password = json::bool_or(v, "password", false);
    out.default_value = json::string_or(v, "default");
    if (const JsonValue* options = json::member(v, "options"); options && options->IsArray())
        for (const JsonValue& o : options->GetArray())
            if (o.IsString()) out.options.emplace_back(json::view(o));
    return out;
}

}  // namespace

std::map<std::string, InputSpec> read_inputs(const JsonValue& doc, const std::string& origin,
                                             std::vector<std::string>& problems) {
    std::map<std::string, InputSpec> out;
    const JsonValue* inputs = json::member(doc, "inputs");
    if (!inputs) return out;
    if (!inputs->IsArray()) {
        problems.push_back(origin + ": \"inputs\" must be an array of input definitions");
        return out;
    }
    rapidjson::SizeType i = 0;
    for (const JsonValue& v : inputs->GetArray()) {
        std::string why;
        if (std::optional<InputSpec> spec = read_input(v, why)) {
            const std::string id = spec->id;
            out.insert_or_assign(id, std::move(*spec));
        } else {
            problems.push_back(origin + ": inputs[" + std::to_string(i) + "] " + why + "; the input is ignored");
        }
        ++i;
    }
    return out;
}

std::string input_secret_key(const std::string& place, const std::string& id) {
    return "mcph-input:" + place + "#" + id;
}

}  // namespace mcph::config
