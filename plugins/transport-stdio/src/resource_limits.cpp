#include "resource_limits.hpp"

#include <mcph/plugin_helper.hpp>

#include <sys/resource.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace mcph::stdio {
namespace {

std::string limit_text(rlim_t value) { return value == RLIM_INFINITY ? "unlimited" : std::to_string(value); }

std::string soft_and_hard(int resource) {
    rlimit lim{};
    if (::getrlimit(resource, &lim) != 0) return "unknown";
    return "soft " + limit_text(lim.rlim_cur) + ", hard " + limit_text(lim.rlim_max);
}

std::string proc_value(const char* path) {
    std::ifstream in(path);
    std::string value;
    if (!(in >> value)) return "unknown";
    return value;
}

}  // namespace

std::string limit_hint(int error_number) {
    switch (error_number) {
        case EMFILE:
            return "; the per-process open-file limit RLIMIT_NOFILE is reached (" + soft_and_hard(RLIMIT_NOFILE) +
                   "; each stdio server holds 4 descriptors): raise the hard limit (`ulimit -Hn`, "
                   "LimitNOFILE= in systemd, nofile in /etc/security/limits.conf); the mcph CLI raises its soft "
                   "limit to the hard one by itself";
        case ENFILE:
            return "; the system-wide open-file limit is reached (fs.file-max " + proc_value("/proc/sys/fs/file-max") +
                   "): raise it with `sysctl fs.file-max=<N>` or close other programs";
        case EAGAIN:
            return "; the process/thread limit RLIMIT_NPROC may be reached (" + soft_and_hard(RLIMIT_NPROC) +
                   ", kernel.threads-max " + proc_value("/proc/sys/kernel/threads-max") +
                   "; each stdio server runs a process and 1 thread, 2 while its stdin is full): raise it with `ulimit -u <N>`";
        default:
            return {};
    }
}

void throw_system_error(int error_number, const std::string& what) {
    throw mcph::plugin::Error(MCPH_ERR_IO, what + ": " + std::strerror(error_number) + limit_hint(error_number));
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
