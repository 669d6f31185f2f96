#include "secrets/file_secret_store.hpp"

#include "config/atomic_write.hpp"
#include "config/config_locations.hpp"
#include "config/file_read.hpp"
#include "config/file_trust.hpp"

#include <mcph/bounded_json.hpp>
#include <mcph/error.hpp>
#include <mcph/json.hpp>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mcph::secrets {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const fs::path& file, const std::string& why) {
    throw Error(ErrorKind::Connection, "credentials file " + file.string() + ": " + why);
}

// Tokens are the user's alone: the file and its folder must be theirs and writable by nobody else
// (a token planted by another user would be sent to servers in this user's name).
constexpr config::TrustRule kPrivate{config::Owner::CurrentUser, false};

void check_folder(const fs::path& file) {
    if (auto why = config::distrust_reason(file.parent_path(), kPrivate)) fail(file, *why);
}

// An advisory lock on "<file>.lock", held for one read or read-modify-write. O_NOFOLLOW: a symlink
// planted in its place must not make mcph create or open another file.
class FileLock {
public:
    FileLock(const fs::path& file, int operation) {
        const fs::path lock = file.string() + ".lock";
        fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd_ < 0) fail(file, std::string("cannot open its lock file (a symlink there is refused): ") + std::strerror(errno));
        struct stat st {};
        std::optional<std::string> why;
        if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) why = "its lock file is not a regular file";
        else why = config::distrust_reason(lock, st, kPrivate);
        if (why) {
            ::close(fd_);
            fd_ = -1;
            fail(file, *why);
        }
        while (::flock(fd_, operation) != 0) {
            if (errno != EINTR) fail(file, std::string("cannot lock it: ") + std::strerror(errno));
        }
    }
    ~FileLock() {
        if (fd_ >= 0) ::close(fd_);  // closing releases the lock
    }
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

private:
    int fd_ = -1;
};

// The whole file as a JSON object; an absent file is an empty one.
Json read_all(const fs::path& file) {
    Json doc(rapidjson::kObjectType);
    int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        if (errno == ENOENT) return doc;
        fail(file, std::string("cannot open it: ") + std::strerror(errno));
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        fail(file, "is not a regular file");
    }
    if (auto why = config::distrust_reason(file, st, kPrivate); why && st.st_uid != ::geteuid()) {
        ::close(fd);
        fail(file, *why);
    }
    if ((st.st_mode & 077) != 0) {
        ::close(fd);
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
        fail(file, std::string("has permissions ") + mode + ", so others may read your tokens; refusing to use it (run: chmod 600 " + file.string() + ")");
    }
    std::string text;
    try {
        text = config::read_to_end_and_close(fd, file);
    } catch (const Error& e) {
        fail(file, e.what());
    }
    if (!json_bounds::parse(doc, text) || !doc.IsObject())
        fail(file, "is corrupt (not a JSON object); remove it and sign in again with `mcph login <server>`");
    return doc;
}

void write_fully(int fd, const std::string& data, const fs::path& file) {
    size_t done = 0;
    while (done < data.size()) {
        ssize_t n = ::write(fd, data.data() + done, data.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail(file, std::string("cannot write it: ") + std::strerror(errno));
        done += static_cast<size_t>(n);
    }
}

// Temp file (0600) in the same folder, fsync, rename over the old one, fsync the folder: a crash at
// any step leaves either the old file or the new one.
void replace_atomically(const fs::path& file, const Json& doc) {
    check_folder(file);
    rapidjson::StringBuffer out;
    if (!json_bounds::write(doc, out)) fail(file, "holds a secret nested too deep to write");
    std::string temp = file.string() + ".tmp-XXXXXX";
    int fd = ::mkstemp(temp.data());  // created 0600
    if (fd < 0) fail(file, std::string("cannot create a temporary file: ") + std::strerror(errno));
    try {
        write_fully(fd, std::string(out.GetString(), out.GetSize()), file);
        if (::fsync(fd) != 0) fail(file, std::string("cannot flush it: ") + std::strerror(errno));
    } catch (...) {
        ::close(fd);
        ::unlink(temp.c_str());
        throw;
    }
    ::close(fd);
    if (::rename(temp.c_str(), file.c_str()) != 0) {
        int err = errno;
        ::unlink(temp.c_str());
        fail(file, std::string("cannot replace it: ") + std::strerror(err));
    }
    int dir = ::open(file.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        ::fsync(dir);
        ::close(dir);
    }
}

}  // namespace

fs::path default_credentials_path() {
    // The same config home as everything else: $HOME or the password database, never /tmp (where
    // any local user could plant a credentials file for a service that runs without HOME).
    return config::config_home_from(config::lookup_process_environment) / "credentials.json";
}

FileSecretStore::FileSecretStore(fs::path file) : file_(std::move(file)) {}

std::optional<std::string> FileSecretStore::get(const std::string& key) {
    std::lock_guard guard(mutex_);
    std::error_code ec;
    if (!fs::exists(file_.parent_path(), ec)) return std::nullopt;
    check_folder(file_);
    FileLock lock(file_, LOCK_SH);
    Json doc = read_all(file_);
    auto it = doc.FindMember(key.c_str());
    if (it == doc.MemberEnd() || !it->value.IsString()) return std::nullopt;
    return std::string(it->value.GetString(), it->value.GetStringLength());
}

void FileSecretStore::set(const std::string& key, const std::string& value) {
    std::lock_guard guard(mutex_);
    config::create_private_directories(file_.parent_path());
    check_folder(file_);
    FileLock lock(file_, LOCK_EX);
    Json doc = read_all(file_);
    auto& a = doc.GetAllocator();
    doc.RemoveMember(key.c_str());
    doc.AddMember(JsonValue(key.c_str(), a), JsonValue(value.c_str(), static_cast<rapidjson::SizeType>(value.size()), a), a);
    replace_atomically(file_, doc);
}

void FileSecretStore::erase(const std::string& key) {
    std::lock_guard guard(mutex_);
    std::error_code ec;
    if (!fs::exists(file_, ec)) return;
    check_folder(file_);
    FileLock lock(file_, LOCK_EX);
    Json doc = read_all(file_);
    if (!doc.RemoveMember(key.c_str())) return;
    replace_atomically(file_, doc);
}

}  // namespace mcph::secrets
