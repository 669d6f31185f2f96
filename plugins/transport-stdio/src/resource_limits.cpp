#include "resource_limits.hpp"

#include <mcph/plugin_helper.hpp>

#include <sys/resource.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace mcph::stdio {

std::string limit_hint(int error_number) { return io::limit_hint(error_number, kServerCost); }

void throw_system_error(int error_number, const std::string& what) {
    io::throw_system_error(error_number, what, kServerCost);
}

unsigned long long child_nofile_soft_limit() {
    const char* raw = std::getenv(kInheritedNofileVariable);
    if (!raw || !*raw) return 0;
    unsigned long long value = 0;
    const char* end = raw + std::strlen(raw);
    if (auto [p, ec] = std::from_chars(raw, end, value); ec != std::errc() || p != end || value == 0) return 0;
    rlimit lim{};
    if (::getrlimit(RLIMIT_NOFILE, &lim) != 0 || value >= lim.rlim_cur) return 0;
    return value;
}

}  // namespace mcph::stdio
