#include "config/file_read.hpp"

#include <mcph/error.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace mcph::config {
namespace {

// "16 MiB (16777216 bytes)": the unit a user thinks in, and the exact figure.
std::string describe_bound(std::size_t max_bytes) {
    std::string out;
    if (max_bytes >= (std::size_t{1} << 20) && max_bytes % (std::size_t{1} << 20) == 0)
        out = std::to_string(max_bytes >> 20) + " MiB (";
    return out + std::to_string(max_bytes) + (out.empty() ? " bytes" : " bytes)");
}

// `size_text`: "1073741824 bytes, " when fstat told, "" when the file grew while being read.
[[noreturn]] void too_large(int fd, const std::filesystem::path& path, const std::string& size_text,
                            std::size_t max_bytes) {
    ::close(fd);
    throw Error(ErrorKind::Usage, path.string() + " is " + size_text + "larger than the " + describe_bound(max_bytes) +
                                      " a configuration file may have; refusing to read it");
}

}  // namespace

std::string read_to_end_and_close(int fd, const std::filesystem::path& path, std::size_t max_bytes) {
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::uintmax_t>(st.st_size) > max_bytes)
        too_large(fd, path, std::to_string(st.st_size) + " bytes, ", max_bytes);
    std::string text;
    char buffer[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n == 0) break;
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int err = errno;
            ::close(fd);
            throw Error(ErrorKind::Usage, "cannot read " + path.string() + ": " + std::strerror(err));
        }
        if (static_cast<std::size_t>(n) > max_bytes - text.size())
            too_large(fd, path, "", max_bytes);
        text.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return text;
}

}  // namespace mcph::config
