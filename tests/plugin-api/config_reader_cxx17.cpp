#include "config_reader_cxx17.hpp"

#include <mcph/plugin_helper.hpp>

namespace mcph_test {

std::string cxx17_read_config(std::string_view json) {
    mcph::plugin::ConfigReader r(json, "c17");
    std::string out = r.required_string("command", {/*non_empty=*/true});
    for (const std::string& a : r.string_array("args").value_or(std::vector<std::string>{})) out += " " + a;
    out += " " + std::to_string(r.integer<unsigned>("graceMs", 0, 600000, 2000));
    if (const auto& e = r.error()) return "error: " + e->message;
    return out;
}

long cxx17_standard() { return __cplusplus; }

}  // namespace mcph_test
