#include "config.hpp"

#include <mcph/plugin_helper.hpp>

#include <cstdint>
#include <limits>

namespace mcph::stdio {
namespace {

using mcph::plugin::ConfigReader;
using mcph::plugin::StringPairs;

// A name execve's environment block can hold: not empty, no '=' (the separator); the reader has
// refused a NUL already.
void check_env_names(ConfigReader& r, const StringPairs& env) {
    for (const auto& [name, value] : env)
        if (name.find('=') != std::string::npos) r.fail("env", "has an invalid variable name '" + name + "'");
}

std::chrono::milliseconds ms(ConfigReader& r, const char* key, std::uint64_t min, std::uint64_t max,
                             std::chrono::milliseconds fallback) {
    return std::chrono::milliseconds(r.integer<std::uint64_t>(key, min, max, static_cast<std::uint64_t>(fallback.count())));
}

}  // namespace

StdioConfig parse_config(std::string_view json) {
    ConfigReader r(json, "stdio");
    StdioConfig c;
    if (std::optional<std::string> type = r.string("type"); type && *type != "stdio")
        r.fail("type", "must be \"stdio\"");
    c.name = r.string("name").value_or("");
    c.command = r.required_string("command", {/*non_empty=*/true});
    c.args = r.string_array("args").value_or(std::vector<std::string>{});
    const StringPairs env = r.string_map("env").value_or(StringPairs{});
    check_env_names(r, env);
    c.env.insert(env.begin(), env.end());
    c.cwd = r.string("cwd").value_or("");
    c.max_message_bytes =
        r.integer<std::size_t>("maxMessageBytes", 1, std::numeric_limits<std::size_t>::max() / 2, c.max_message_bytes);
    c.shutdown_grace = ms(r, "shutdownGraceMs", 0, 600000, c.shutdown_grace);
    c.stderr_cap_bytes = r.integer<std::size_t>("stderrCapBytes", 4096, std::size_t{1} << 30, c.stderr_cap_bytes);
    c.write_stall_timeout = ms(r, "writeStallTimeoutMs", 1, 3600000, c.write_stall_timeout);
    r.throw_if_error();
    return c;
}

}  // namespace mcph::stdio
