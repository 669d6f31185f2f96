// Where tests/plugin-api built the helper plugins (one directory per case).
#pragma once

#include <filesystem>
#include <string>

namespace mcph::test {

inline std::filesystem::path plugin_case_dir(const std::string& name) {
    return std::filesystem::path(MCPH_TEST_PLUGIN_DIR) / name;
}

}  // namespace mcph::test
