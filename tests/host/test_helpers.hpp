// Small helpers many host unit tests share: a substring check, a file's permission bits, a
// variable lookup from a map, a server config from a JSON entry. One definition here rather than
// a private copy per test file (the copies also collide when test_host_unit is a unity build).
#pragma once

#include "config/env_expansion.hpp"
#include "config/server_config.hpp"

#include <mcph/json.hpp>

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace host_test {

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The permission bits of `file` (a failed stat fails the test).
inline mode_t mode_of(const std::filesystem::path& file) {
    struct stat st {};
    EXPECT_EQ(::stat(file.c_str(), &st), 0);
    return st.st_mode & 07777;
}

// A VariableLookup that knows exactly `values`.
inline mcph::config::VariableLookup vars(std::map<std::string, std::string> values) {
    return [values = std::move(values)](std::string_view name) -> std::optional<std::string> {
        auto it = values.find(std::string(name));
        if (it == values.end()) return std::nullopt;
        return it->second;
    };
}

// A server definition parsed from its JSON entry, as a config file would give it.
inline mcph::config::ServerConfig server(const std::string& name, const std::string& entry) {
    return mcph::config::parse_server_config(name, mcph::parse_json(entry));
}

}  // namespace host_test
