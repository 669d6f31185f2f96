#include "command_line.hpp"

#include <mcph/plugin_helper.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

namespace mcph::stdio {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

bool is_regular_file(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string join_dir(std::string_view dir, std::string_view name, const std::string& cwd) {
    if (dir.empty()) dir = ".";  // an empty PATH entry means the current directory (POSIX)
    std::string out;
    if (dir.front() != '/' && !cwd.empty()) out.append(cwd).push_back('/');
    out.append(dir);
    if (out.back() != '/') out.push_back('/');
    out.append(name);
    return out;
}

}  // namespace

std::vector<std::string> split_whitespace(std::string_view text) {
    std::vector<std::string> words;
    size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && is_space(text[i])) ++i;
        size_t start = i;
        while (i < text.size() && !is_space(text[i])) ++i;
        if (i > start) words.emplace_back(text.substr(start, i - start));
    }
    return words;
}

std::vector<std::string> shell_prefix_from_environment() {
    const char* value = std::getenv("MCPH_SHELL_PREFIX");
    return value ? split_whitespace(value) : std::vector<std::string>{};
}

std::vector<std::string> build_argv(const std::vector<std::string>& prefix, const std::string& command,
                                    const std::vector<std::string>& args) {
    std::vector<std::string> argv(prefix);
    argv.push_back(command);
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
}

std::string resolve_program(const std::string& name, const std::string& path_variable, const std::string& cwd) {
    if (name.find('/') != std::string::npos) return name;  // execve reports problems precisely
    std::string path = path_variable.empty() ? "/usr/local/bin:/usr/bin:/bin" : path_variable;
    std::string not_executable;
    size_t begin = 0;
    for (;;) {
        size_t end = path.find(':', begin);
        std::string_view dir(path.data() + begin, (end == std::string::npos ? path.size() : end) - begin);
        std::string candidate = join_dir(dir, name, cwd);
        if (is_regular_file(candidate)) {
            if (::access(candidate.c_str(), X_OK) == 0) return candidate;
            if (not_executable.empty()) not_executable = candidate;
        }
        if (end == std::string::npos) break;
        begin = end + 1;
    }
    if (!not_executable.empty())
        throw mcph::plugin::Error(MCPH_ERR_IO, "cannot start '" + name + "': '" + not_executable +
                                                   "' is not executable");
    throw mcph::plugin::Error(MCPH_ERR_IO, "cannot start '" + name + "': not found in PATH (" + path + ")");
}

}  // namespace mcph::stdio
