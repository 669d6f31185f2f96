#include "limit_hint.hpp"

#include <mcph/plugin_helper.hpp>

#include <sys/resource.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace mcph::io {
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

std::string cost_note(std::string_view note) { return note.empty() ? std::string() : "; " + std::string(note); }

}  // namespace

std::string limit_hint(int error_number, const ConnectionCost& cost) {
    switch (error_number) {
        case EMFILE:
            return "; the per-process open-file limit RLIMIT_NOFILE is reached (" + soft_and_hard(RLIMIT_NOFILE) +
                   cost_note(cost.descriptors) +
                   "): raise the hard limit (`ulimit -Hn`, LimitNOFILE= in systemd, nofile in "
                   "/etc/security/limits.conf); the mcph CLI raises its soft limit to the hard one by itself";
        case ENFILE:
            return "; the system-wide open-file limit is reached (fs.file-max " + proc_value("/proc/sys/fs/file-max") +
                   "): raise it with `sysctl fs.file-max=<N>` or close other programs";
        case EAGAIN:
            return "; the process/thread limit RLIMIT_NPROC may be reached (" + soft_and_hard(RLIMIT_NPROC) +
                   ", kernel.threads-max " + proc_value("/proc/sys/kernel/threads-max") + cost_note(cost.threads) +
                   "): raise it with `ulimit -u <N>`";
        default:
            return {};
    }
}

void throw_system_error(int error_number, const std::string& what, const ConnectionCost& cost) {
    throw mcph::plugin::Error(MCPH_ERR_IO, what + ": " + std::strerror(error_number) + limit_hint(error_number, cost));
}

}  // namespace mcph::io
