// What the config-compatibility tests (config_compat_test.cpp, config_compat_import_test.cpp)
// share: where the editors' config files are kept, and (trust_support.hpp) contains().
#pragma once

#include "test_support.hpp"
#include "trust_support.hpp"

#include <filesystem>

namespace mcph::test {

// tests/peers is a source folder (tests/CMakeLists.txt), so its parent is tests/: the copies of
// Claude Desktop, VS Code and Cursor files are in tests/fixtures/editor-configs/.
inline std::filesystem::path fixtures() { return peers_dir().parent_path() / "fixtures" / "editor-configs"; }

}  // namespace mcph::test
