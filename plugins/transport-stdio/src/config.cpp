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

// "inheritEnv": true | false | ["NAME", "PREFIX_*"] (environment.hpp). A bad entry is named, so the
// user sees which of the names to fix.
InheritEnv inherit_env(ConfigReader& r) {
    InheritEnv out;
    const rapidjson::Value* v = r.value("inheritEnv");
    if (!v) return out;
    constexpr const char* kShape = "true, false or an array of variable names";
    if (v->IsBool()) {
        out.mode = v->GetBool() ? InheritEnv::Mode::Everything : InheritEnv::Mode::AllowList;
        return out;
    }
    if (!v->IsArray()) {
        r.fail("inheritEnv", std::string("must be ") + kShape, mcph::plugin::ConfigErrorKind::wrong_type, kShape);
        return out;
    }
    if (v->Size() > kMaxInheritNames) {
        r.fail("inheritEnv", "has " + std::to_string(v->Size()) + " names, more than the " + std::to_string(kMaxInheritNames) +
                                 " allowed", mcph::plugin::ConfigErrorKind::out_of_range);
        return out;
    }
    std::vector<std::string> names = r.string_array("inheritEnv", {false, {/*non_empty=*/true}}).value_or(std::vector<std::string>{});
    for (std::size_t i = 0; i < names.size(); ++i)
        if (!valid_inherit_name(names[i]))
            r.fail("inheritEnv", "entry " + std::to_string(i) + " '" + names[i].substr(0, kMaxInheritNameBytes) +
                                     "' is not a variable name (letters, digits and '_', not starting with a digit, "
                                     "at most " + std::to_string(kMaxInheritNameBytes) + " bytes; one trailing '*' for a prefix)");
    out.mode = InheritEnv::Mode::AllowListNamed;
    out.names = std::move(names);
    return out;
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
    c.inherit_env = inherit_env(r);
    c.cwd = r.string("cwd").value_or("");
    c.max_message_bytes =
        r.integer<std::size_t>("maxMessageBytes", 1, std::numeric_limits<std::size_t>::max() / 2, c.max_message_bytes);
    c.shutdown_grace = ms(r, "shutdownGraceMs", 0, 600000, c.shutdown_grace);
    c.stderr_cap_bytes = r.integer<std::size_t>("stderrCapBytes", 4096, std::size_t{1} << 30, c.stderr_cap_bytes);
    c.write_stall_timeout = ms(r, "writeStallTimeoutMs", 1, 3600000, c.write_stall_timeout);
    c.reader_idle = ms(r, "readerIdleMs", 0, 86400000, c.reader_idle);
    r.throw_if_error();
    return c;
}

}  // namespace mcph::stdio
