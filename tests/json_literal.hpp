// `s` as a JSON string literal, for the configs and messages tests write by hand. Header-only,
// shared by the plugin tests (tests/plugins/plugin_under_test.hpp) and the integration, CLI and
// security tests (tests/integration/governance_support.hpp's json_quote).
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace mcph_test {

inline std::string json_string(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
                    out += buf;
                } else {
                    out += c;
                }
        }
    }
    return out + "\"";
}

}  // namespace mcph_test
