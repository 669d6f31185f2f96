// Human-readable output of the CLI (the --json forms print the JSON the API returns). Every piece
// of text that came from outside — a server, a config file, an error message carrying either — is
// passed through terminal_safe before it is printed (mcph/text.hpp).
#pragma once

#include <mcph/host.hpp>

#include <ostream>
#include <string_view>
#include <vector>

namespace mcph::cli {

// How much of each tool `print_tools` shows. Summary (`--brief`): the first line of its description
// (the rest counted, never silently dropped) and a bounded list of warnings. Described (the
// default): the whole description wrapped to the width and the parameters (name, type, required,
// description). Full (`--full`): also the schemas, annotations and every finding.
enum class ToolDetail { Summary, Described, Full };

void print_tools(std::ostream& out, const std::vector<Tool>& tools, ToolDetail detail = ToolDetail::Summary,
                 std::size_t width = 80);
// Columns of the terminal on stdout (COLUMNS, else the tty's size, else 80), at least 40.
std::size_t terminal_width();
// Words of `text` (already escaped) on lines of at most `width` columns, each line indented.
void print_wrapped(std::ostream& out, std::string_view text, const std::string& indent, std::size_t width);
// The tools held back (rug-pull guard, scanner policy) of these servers, with why and the findings.
void print_withheld(std::ostream& out, const std::vector<ServerStatus>& servers, ToolDetail detail = ToolDetail::Summary);
// `mcph approve`: the full definitions just pinned, each with the scanner's findings.
void print_approved_definitions(std::ostream& out, const std::string& server, const std::vector<Tool>& tools);
void print_call_result(std::ostream& out, const CallToolResult& result);
void print_resources(std::ostream& out, const std::vector<Resource>& resources);
void print_read_result(std::ostream& out, const JsonValue& result);
void print_prompts(std::ostream& out, const std::vector<Prompt>& prompts);
void print_templates(std::ostream& out, const std::vector<ResourceTemplate>& templates);
// `mcph skills`: one line per skill (name, uri, how many files, server) and its description's first line.
void print_skills(std::ostream& out, const std::vector<Skill>& skills);
void print_prompt_result(std::ostream& out, const JsonValue& result);
void print_status(std::ostream& out, const JsonValue& status);
void print_plugins(std::ostream& out, const std::vector<PluginInfo>& plugins);

// One line of outside text for a terminal: terminal_safe with line breaks escaped too.
std::string one_line(std::string_view text);
// The first line of `text`, at most `max_bytes` (cut on a character boundary), and what was left
// out: the number of further lines and whether the line itself was cut.
struct FirstLine {
    std::string line;  // raw: escape before printing
    std::size_t more_lines = 0;
    bool cut = false;
};
FirstLine first_line_of(std::string_view text, std::size_t max_bytes = 100);

// JSON forms of the lists.
Json tools_json(const std::vector<Tool>& tools);
Json resources_json(const std::vector<Resource>& resources);
Json prompts_json(const std::vector<Prompt>& prompts);
Json templates_json(const std::vector<ResourceTemplate>& templates);
Json skills_json(const std::vector<Skill>& skills);
// {"name","uri","server","content"}: a skill after verification.
Json loaded_skill_json(const LoadedSkill& skill);

}  // namespace mcph::cli
