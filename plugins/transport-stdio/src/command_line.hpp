// What to exec: the optional MCPH_SHELL_PREFIX, the command, its arguments, and where the
// program is found.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mcph::stdio {

struct CommandLine {
    std::string program;            // the path handed to execve
    std::vector<std::string> argv;  // argv[0] included
};

// Splits on ASCII whitespace; no quoting (the prefix is a simple wrapper like `docker exec -i box`).
std::vector<std::string> split_whitespace(std::string_view text);

// The words of MCPH_SHELL_PREFIX in the host's environment (empty when unset or blank).
std::vector<std::string> shell_prefix_from_environment();

// prefix + command + args. With a prefix, prefix[0] is the program and the command is just an
// argument: it is resolved wherever the prefix runs it (e.g. inside a container).
std::vector<std::string> build_argv(const std::vector<std::string>& prefix, const std::string& command,
                                    const std::vector<std::string>& args);

// Finds `name` like execvp would, but in the *child's* PATH. A name containing '/' is used as is
// (relative to `cwd` once the child has changed directory). Relative PATH entries are taken
// relative to `cwd` too, for the same reason. Throws mcph::plugin::Error(MCPH_ERR_IO) with a
// message such as "cannot start 'foo': not found in PATH".
std::string resolve_program(const std::string& name, const std::string& path_variable, const std::string& cwd);

}  // namespace mcph::stdio
