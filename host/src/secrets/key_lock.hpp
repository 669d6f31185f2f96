// The cross-process lock behind the host service secret_lock: flock(2) on one lock file per key
// in a private folder shared by every process using the same secret store. flock, not fcntl
// locks: it belongs to the open file description, so two threads (or two auth objects) of one
// process exclude each other too, and the kernel releases it when the holder dies — a crashed
// refresh never leaves the key locked. Lock files are never removed (unlinking one while another
// process waits on it would let a third lock a new file at the same path).
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

namespace mcph::secrets {

class KeyLock {
public:
    ~KeyLock();  // releases
    KeyLock(const KeyLock&) = delete;
    KeyLock& operator=(const KeyLock&) = delete;

    // Waits up to `timeout` (polling, since flock has no timed wait). Throws mcph::Error: Timeout
    // naming how long it waited, Connection when the folder or lock file is unsafe or unusable.
    static std::unique_ptr<KeyLock> acquire(const std::filesystem::path& folder, const std::string& key,
                                            std::chrono::milliseconds timeout);

    // "<folder>/<sha256(key)>.lock": the key itself never appears in a file name.
    static std::filesystem::path file_for(const std::filesystem::path& folder, const std::string& key);

private:
    explicit KeyLock(int fd) : fd_(fd) {}
    int fd_;
};

}  // namespace mcph::secrets
