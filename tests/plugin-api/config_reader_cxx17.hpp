// A translation unit of test_plugin_api compiled as C++17 (its own library target): proves
// plugin_helper.hpp, ConfigReader included, needs nothing newer.
#pragma once

#include <string>
#include <string_view>

namespace mcph_test {
// "command args... graceMs" read through ConfigReader, or "error: <message>".
std::string cxx17_read_config(std::string_view json);
long cxx17_standard();
}  // namespace mcph_test
