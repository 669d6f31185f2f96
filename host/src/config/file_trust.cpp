#include "config/file_trust.hpp"

#include "config/file_read.hpp"

#include <mcph/error.hpp>

#include <fcntl.h>
#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <cstdio>
#include <vector>

namespace mcph::config {
namespace {

namespace fs = std::filesystem;

// "uid 1234 (alice)" — the name helps the reader see who planted it.
std::string describe_uid(uid_t uid) {
    std::string out = "uid " + std::to_string(uid);
    std::vector<char> buffer(16384);
    passwd entry{};
    passwd* found = nullptr;
    if (::getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) == 0 && found && found->pw_name)
        out += " (" + std::string(found->pw_name) + ")";
    return out;
}

std::string mode_text(mode_t mode) {
    char text[8];
    std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
    return text;
}

}  // namespace

uid_t current_uid() { return ::geteuid(); }

std::optional<std::string> distrust_reason(const fs::path& path, const struct stat& st, TrustRule rule) {
    const uid_t me = current_uid();
    const bool owner_ok = st.st_uid == me || (rule.owner == Owner::CurrentUserOrRoot && st.st_uid == 0);
    if (!owner_ok)
        return path.string() + " belongs to " + describe_uid(st.st_uid) + ", not to you (" + describe_uid(me) +
               "); refusing to use it — another user may have planted it (remove it, or `chown` it if it is yours)";
    if ((st.st_mode & S_IWOTH) || (!rule.group_may_write && (st.st_mode & S_IWGRP)))
        return path.string() + " has mode " + mode_text(st.st_mode) +
               ", so other users can change it; refusing to use it (run: chmod go-w " + path.string() + ")";
    return std::nullopt;
}

std::optional<std::string> distrust_reason(const fs::path& path, TrustRule rule) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return std::nullopt;
    return distrust_reason(path, st, rule);
}

std::optional<std::string> read_trusted_file(const fs::path& path, TrustRule rule) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);  // O_NONBLOCK: a planted FIFO must not hang us
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR) return std::nullopt;
        throw Error(ErrorKind::Usage, "cannot read " + path.string() + ": " + std::strerror(errno));
    }
    struct stat st {};
    std::optional<std::string> why;
    if (::fstat(fd, &st) != 0) why = "cannot inspect " + path.string() + ": " + std::strerror(errno);
    else if (!S_ISREG(st.st_mode)) why = "cannot read " + path.string() + ": it is not a regular file";
    else why = distrust_reason(path, st, rule);
    if (why) {
        ::close(fd);
        throw Error(ErrorKind::Usage, *why);
    }
    return read_to_end_and_close(fd, path);
}

void require_trusted(const fs::path& path, TrustRule rule) {
    if (auto why = distrust_reason(path, rule)) throw Error(ErrorKind::Usage, *why);
}

bool resolves_inside(const fs::path& path, const fs::path& root) {
    std::error_code ec;
    const fs::path real = fs::weakly_canonical(path, ec);
    if (ec) return false;
    const fs::path real_root = fs::weakly_canonical(root, ec);
    if (ec) return false;
    const fs::path below = real.lexically_relative(real_root);
    return !below.empty() && *below.begin() != "..";
}

}  // namespace mcph::config
