#include "config/atomic_write.hpp"

#include "config/file_read.hpp"

#include <mcph/error.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace mcph::config {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const fs::path& path, const std::string& what, int err) {
    throw Error(ErrorKind::Usage, "cannot write " + path.string() + ": " + what + ": " + std::strerror(err));
}

void reached(const WriteFaultHook* hook, WriteStep step) {
    if (hook && *hook) (*hook)(step);
}

// The file to replace: a symlink's target, so replacing it keeps the link.
fs::path real_target(const fs::path& path) {
    std::error_code ec;
    if (!fs::is_symlink(path, ec)) return path;
    fs::path target = fs::weakly_canonical(path, ec);
    return ec ? path : target;
}

// The permission bits the new file gets: the old file's, or the caller's choice for a new file.
mode_t final_mode(const fs::path& target, mode_t mode_for_new_file) {
    struct stat st {};
    if (::stat(target.c_str(), &st) != 0) {
        if (errno == ENOENT) return mode_for_new_file;
        fail(target, "cannot inspect it", errno);
    }
    if (!S_ISREG(st.st_mode))
        throw Error(ErrorKind::Usage, "cannot write " + target.string() + ": it exists and is not a regular file");
    return st.st_mode & 07777;
}

void write_fully(int fd, std::string_view data, const fs::path& target) {
    while (!data.empty()) {
        const ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail(target, "cannot write the temporary file", errno);
        data.remove_prefix(static_cast<size_t>(n));
    }
}

// The temp file beside the target; its destructor removes it unless it was renamed into place, so
// every failure path (including an exception from a hook) cleans up.
class TempFile {
public:
    explicit TempFile(const fs::path& target)
        : name_((target.parent_path() / ("." + target.filename().string() + ".tmp-XXXXXX")).string()) {
        fd_ = ::mkostemp(name_.data(), O_CLOEXEC);
        if (fd_ < 0) fail(target, "cannot create a temporary file beside it", errno);
    }
    ~TempFile() {
        if (fd_ >= 0) ::close(fd_);
        if (!renamed_) ::unlink(name_.c_str());
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;

    int fd() const { return fd_; }
    const std::string& name() const { return name_; }

    void close(const fs::path& target) {
        const int rc = ::close(fd_);
        fd_ = -1;  // closed even on error (POSIX leaves the fd unusable either way)
        if (rc != 0) fail(target, "cannot close the temporary file", errno);
    }
    void rename_to(const fs::path& target) {
        if (::rename(name_.c_str(), target.c_str()) != 0) fail(target, "cannot rename the temporary file over it", errno);
        renamed_ = true;
    }

private:
    std::string name_;
    int fd_ = -1;
    bool renamed_ = false;
};

// Makes the rename durable. Some filesystems cannot fsync a directory (EINVAL): nothing to do there.
void sync_directory(const fs::path& target) {
    const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) fail(target, "written, but cannot open its folder to flush the rename", errno);
    const int rc = ::fsync(fd);
    const int err = errno;
    ::close(fd);
    if (rc != 0 && err != EINVAL) fail(target, "written, but cannot flush its folder", err);
}

}  // namespace

void write_file_atomically(const fs::path& path, std::string_view content, mode_t mode_for_new_file,
                           const WriteFaultHook* hook) {
    const fs::path target = real_target(path);
    // Missing folders are created 0700: the config home holds approvals and must stay private.
    if (!target.parent_path().empty()) create_private_directories(target.parent_path());
    const mode_t mode = final_mode(target, mode_for_new_file);
    TempFile temp(target);
    reached(hook, WriteStep::TempCreated);
    write_fully(temp.fd(), content, target);
    reached(hook, WriteStep::DataWritten);
    // Data before the rename: otherwise a power loss can leave the new name with empty content.
    if (::fdatasync(temp.fd()) != 0) fail(target, "cannot flush the temporary file", errno);
    reached(hook, WriteStep::DataSynced);
    if (::fchmod(temp.fd(), mode) != 0) fail(target, "cannot set the temporary file's mode", errno);
    reached(hook, WriteStep::ModeSet);
    temp.close(target);
    temp.rename_to(target);
    reached(hook, WriteStep::Renamed);
    sync_directory(target);
    reached(hook, WriteStep::DirSynced);
}

void create_private_directories(const fs::path& dir) {
    std::vector<fs::path> missing;
    std::error_code ec;
    for (fs::path p = dir; !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
        missing.push_back(p);
        if (p == p.parent_path()) break;
    }
    for (auto it = missing.rbegin(); it != missing.rend(); ++it)
        if (::mkdir(it->c_str(), 0700) != 0 && errno != EEXIST)
            throw Error(ErrorKind::Usage, "cannot create folder " + it->string() + ": " + std::strerror(errno));
}

std::optional<std::string> read_file_if_exists(const fs::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR) return std::nullopt;
        throw Error(ErrorKind::Usage, "cannot read " + path.string() + ": " + std::strerror(errno));
    }
    return read_to_end_and_close(fd, path);
}

}  // namespace mcph::config
