// The CLI's commands as data: each one's synopsis, what it does, its examples and the options it
// takes after its name. Parsing (options.cpp) and help (`mcph help <command>`, `<command> --help`)
// read the same table, so the help cannot list an option the parser refuses.
#pragma once

#include <string>
#include <vector>

namespace mcph::cli {

struct CommandSpec {
    const char* name;
    const char* synopsis;     // "mcph add [options] <name> <command-or-url> [args...]"
    const char* description;  // what it does, one or more lines
    const char* examples;     // lines of examples, may be empty
    std::vector<std::string> options;  // long names of the options it takes ("--scope")
    // The number of positional arguments after which option parsing ends and everything is an
    // argument ("add": the server's own command line follows its name and command); 0: never.
    std::size_t positionals_then_rest = 0;
};

// nullptr when there is no such command.
const CommandSpec* find_command(const std::string& name);
std::vector<std::string> command_names();

// The help of one command: synopsis, description, its options (with their help) and examples.
std::string command_help(const CommandSpec& spec);

}  // namespace mcph::cli
