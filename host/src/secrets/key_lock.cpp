#include "secrets/key_lock.hpp"

#include "config/atomic_write.hpp"
#include "config/file_trust.hpp"
#include "tools/sha256.hpp"

#include <mcph/error.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace mcph::secrets {
namespace {

namespace fs = std::filesystem;

// Short enough that the loser of a race adopts the winner's token promptly, long enough not to spin.
constexpr std::chrono::milliseconds kPollInterval{20};

// The lock folder and files are the user's alone, like the store: another user able to hold
// them could stall every refresh.
constexpr config::TrustRule kLockOwnerRule{config::Owner::CurrentUser, false};

[[noreturn]] void fail_lock(const fs::path& file, const std::string& why) {
    throw Error(ErrorKind::Connection, "secret lock " + file.string() + ": " + why);
}

// O_NOFOLLOW: a symlink planted in its place must not make mcph create or open another file.
int open_lock_file(const fs::path& folder, const fs::path& file) {
    config::create_private_directories(folder);
    if (auto why = config::distrust_reason(folder, kLockOwnerRule)) fail_lock(file, *why);
    int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) fail_lock(file, std::string("cannot open it (a symlink there is refused): ") + std::strerror(errno));
    struct stat st {};
    std::optional<std::string> why;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) why = "it is not a regular file";
    else why = config::distrust_reason(file, st, kLockOwnerRule);
    if (why) {
        ::close(fd);
        fail_lock(file, *why);
    }
    return fd;
}

}  // namespace

fs::path KeyLock::file_for(const fs::path& folder, const std::string& key) {
    return folder / (tools::sha256_hex(key) + ".lock");
}

std::unique_ptr<KeyLock> KeyLock::acquire(const fs::path& folder, const std::string& key,
                                          std::chrono::milliseconds timeout) {
    const fs::path file = file_for(folder, key);
    const int fd = open_lock_file(folder, file);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int err = errno;
        if (err == EINTR) continue;
        if (err != EWOULDBLOCK) {
            ::close(fd);
            fail_lock(file, std::string("cannot lock it: ") + std::strerror(err));
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            ::close(fd);
            throw Error(ErrorKind::Timeout, "secret lock " + file.string() + ": still held by another process after " +
                                                std::to_string(timeout.count()) + " ms");
        }
        std::this_thread::sleep_for(kPollInterval);
    }
    return std::unique_ptr<KeyLock>(new KeyLock(fd));
}

KeyLock::~KeyLock() {
    ::close(fd_);  // closing the last descriptor releases the lock
}

}  // namespace mcph::secrets
