// Human-readable output of the CLI (the --json forms print the JSON the API returns).
#pragma once

#include <mcph/host.hpp>

#include <ostream>
#include <vector>

namespace mcph::cli {

void print_tools(std::ostream& out, const std::vector<Tool>& tools);
void print_call_result(std::ostream& out, const CallToolResult& result);
void print_resources(std::ostream& out, const std::vector<Resource>& resources);
void print_read_result(std::ostream& out, const JsonValue& result);
void print_prompts(std::ostream& out, const std::vector<Prompt>& prompts);
void print_prompt_result(std::ostream& out, const JsonValue& result);
void print_status(std::ostream& out, const JsonValue& status);
void print_plugins(std::ostream& out, const std::vector<PluginInfo>& plugins);

// JSON forms of the lists.
Json tools_json(const std::vector<Tool>& tools);
Json resources_json(const std::vector<Resource>& resources);
Json prompts_json(const std::vector<Prompt>& prompts);

}  // namespace mcph::cli
