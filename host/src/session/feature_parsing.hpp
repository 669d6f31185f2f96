// Turns list results from a server into the public types, tolerating missing optional fields.
#pragma once

#include <mcph/json.hpp>
#include <mcph/types.hpp>

#include <optional>
#include <string>

namespace mcph::detail {

// Each returns nullopt for an entry without its required identity (name / uri).
std::optional<Tool> parse_tool(const std::string& server, const JsonValue& v);
std::optional<Resource> parse_resource(const std::string& server, const JsonValue& v);
std::optional<ResourceTemplate> parse_resource_template(const std::string& server, const JsonValue& v);
std::optional<Prompt> parse_prompt(const std::string& server, const JsonValue& v);

}  // namespace mcph::detail
