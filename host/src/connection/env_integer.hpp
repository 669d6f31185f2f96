// Numeric settings from environment variables (MCPH_RECONNECT_*, MCPH_*_CONNECT_BATCH), read the
// same strict way everywhere.
#pragma once

#include <optional>

namespace mcph::connection {

// nullopt when the variable is unset or empty (empty counts as unset, as for MCPH_CONFIG_HOME, so
// `VAR= mcph` falls back to the default). Otherwise a whole decimal number in [min, max] — no
// sign, spaces or suffix, so "5s" is an error rather than silently 5 — or Error(Usage) naming the
// variable, the range and the value.
std::optional<long long> env_integer(const char* name, long long min, long long max);

}  // namespace mcph::connection
