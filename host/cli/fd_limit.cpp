#include "fd_limit.hpp"

#include <sys/resource.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace mcph::cli {
namespace {

constexpr const char* kChildNofileVariable = "MCPH_CHILD_NOFILE_SOFT";  // see fd_limit.hpp

std::string limit_text(unsigned long long value) {
    return value == static_cast<unsigned long long>(RLIM_INFINITY) ? "unlimited" : std::to_string(value);
}

}  // namespace

std::string FdLimitChange::describe() const {
    if (error != 0)
        return "open-file limit (RLIMIT_NOFILE) left at " + limit_text(before) + ": " + std::strerror(error);
    if (before == after) return "open-file limit (RLIMIT_NOFILE) is already at its hard limit, " + limit_text(after);
    return "raised the open-file limit (RLIMIT_NOFILE) from " + limit_text(before) + " to the hard limit " +
           limit_text(after) + "; stdio servers start with " + limit_text(before);
}

FdLimitChange raise_fd_limit() {
    FdLimitChange change;
    rlimit lim{};
    if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) {
        change.error = errno;
        return change;
    }
    change.before = change.after = lim.rlim_cur;
    if (lim.rlim_cur == lim.rlim_max) return change;
    const rlim_t original = lim.rlim_cur;
    lim.rlim_cur = lim.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &lim) != 0) {
        change.error = errno;
        return change;
    }
    change.after = lim.rlim_cur;
    // Only the first mcph in a chain records the user's value (an mcph started by a server of an
    // mcph would otherwise hand on the raised one).
    ::setenv(kChildNofileVariable, std::to_string(original).c_str(), /*overwrite=*/0);
    return change;
}

}  // namespace mcph::cli
