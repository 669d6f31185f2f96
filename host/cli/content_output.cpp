#include "content_output.hpp"

#include <mcph/error.hpp>

#include <openssl/evp.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <map>

namespace mcph::cli {
namespace {

std::string member(const JsonValue& v, const char* key) {
    if (!v.IsObject() || !v.HasMember(key) || !v[key].IsString()) return {};
    return std::string(v[key].GetString(), v[key].GetStringLength());
}

// base64 (RFC 4648, padded) through OpenSSL, as the host decodes skill blobs: EVP_DecodeBlock
// counts the padding as zero bytes, which are taken off again.
std::string decode_base64(const std::string& in, const std::string& what) {
    std::string clean;
    for (char c : in)
        if (!std::isspace(static_cast<unsigned char>(c))) clean.push_back(c);
    if (clean.size() % 4 != 0) throw Error(ErrorKind::Protocol, what + ": the data is not padded base64");
    std::string out(clean.size() / 4 * 3, '\0');
    const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                  reinterpret_cast<const unsigned char*>(clean.data()), static_cast<int>(clean.size()));
    if (n < 0) throw Error(ErrorKind::Protocol, what + ": the data is not valid base64");
    std::size_t size = static_cast<std::size_t>(n);
    for (std::size_t i = clean.size(); i > 0 && clean[i - 1] == '=' && size > 0; --i) --size;
    out.resize(size);
    return out;
}

// Creates `name` under `dir_fd` (AT_FDCWD: relative to the working directory) and writes `bytes`.
// O_EXCL unless forced; O_NOFOLLOW either way, so a planted symlink is not followed.
void write_file(int dir_fd, const std::string& name, const std::string& shown, const std::string& bytes, bool force) {
    const int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (force ? O_TRUNC : O_EXCL);
    const int fd = ::openat(dir_fd, name.c_str(), flags, 0644);
    if (fd < 0) {
        if (errno == EEXIST) throw Error(ErrorKind::Usage, "'" + shown + "' exists: not replaced (pass --force to replace it)");
        throw Error(ErrorKind::Usage, "cannot write '" + shown + "': " + std::strerror(errno));
    }
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            const int err = errno;
            ::close(fd);
            throw Error(ErrorKind::Usage, "cannot write '" + shown + "': " + std::strerror(err));
        }
        done += static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0) throw Error(ErrorKind::Usage, "cannot write '" + shown + "': " + std::strerror(errno));
}

bool is_directory(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The directory opened for openat: the names written are ours, so the files stay in it.
int open_directory(const std::string& dir, bool create) {
    if (create && ::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
        throw Error(ErrorKind::Usage, "cannot create directory '" + dir + "': " + std::strerror(errno));
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) throw Error(ErrorKind::Usage, "-o " + dir + ": not a directory: " + std::strerror(errno));
    return fd;
}

std::string joined(const std::string& dir, const std::string& name) {
    return dir.empty() || dir.back() == '/' ? dir + name : dir + "/" + name;
}

// The bytes of one resources/read content: text as is, a blob decoded.
std::string content_bytes(const JsonValue& c, const std::string& what) {
    if (c.IsObject() && c.HasMember("text") && c["text"].IsString()) return member(c, "text");
    if (c.IsObject() && c.HasMember("blob") && c["blob"].IsString()) return decode_base64(member(c, "blob"), what);
    throw Error(ErrorKind::Protocol, what + ": neither text nor blob");
}

}  // namespace

std::string extension_for(const std::string& mime_type) {
    static const std::map<std::string, std::string> kExtensions = {
        {"image/png", "png"},        {"image/jpeg", "jpg"},      {"image/gif", "gif"},   {"image/webp", "webp"},
        {"image/svg+xml", "svg"},    {"audio/wav", "wav"},       {"audio/x-wav", "wav"}, {"audio/mpeg", "mp3"},
        {"audio/ogg", "ogg"},        {"audio/webm", "weba"},     {"application/pdf", "pdf"},
        {"application/json", "json"}, {"text/plain", "txt"},     {"text/markdown", "md"}, {"text/html", "html"},
    };
    const std::string base = mime_type.substr(0, mime_type.find(';'));
    const auto it = kExtensions.find(base);
    return it == kExtensions.end() ? "bin" : it->second;
}

std::vector<std::string> save_read_result(const JsonValue& result, const std::string& output, bool force) {
    if (!result.IsObject() || !result.HasMember("contents") || !result["contents"].IsArray() || result["contents"].Empty())
        throw Error(ErrorKind::Protocol, "the resource has no contents to save");
    const auto& contents = result["contents"].GetArray();
    std::vector<std::string> written;
    if (!is_directory(output)) {
        if (contents.Size() > 1)
            throw Error(ErrorKind::Usage, "the resource has " + std::to_string(contents.Size()) +
                                              " contents: pass -o DIR (an existing directory) to save each as <n>.<ext>");
        write_file(AT_FDCWD, output, output, content_bytes(contents[0], "resource content"), force);
        written.push_back(output);
        return written;
    }
    const int dir_fd = open_directory(output, false);
    try {
        for (rapidjson::SizeType i = 0; i < contents.Size(); ++i) {
            const std::string name = std::to_string(i + 1) + "." + extension_for(member(contents[i], "mimeType"));
            write_file(dir_fd, name, joined(output, name), content_bytes(contents[i], "content " + std::to_string(i + 1)), force);
            written.push_back(joined(output, name));
        }
    } catch (...) {
        ::close(dir_fd);
        throw;
    }
    ::close(dir_fd);
    return written;
}

std::vector<std::string> save_call_content(const JsonValue& result, const std::string& dir, bool force) {
    std::vector<std::string> written;
    if (!result.IsObject() || !result.HasMember("content") || !result["content"].IsArray()) return written;
    const auto& content = result["content"].GetArray();
    int dir_fd = -1;
    try {
        for (rapidjson::SizeType i = 0; i < content.Size(); ++i) {
            const JsonValue& item = content[i];
            const std::string type = member(item, "type");
            std::string mime, bytes;
            const std::string what = "content item " + std::to_string(i + 1);
            if ((type == "image" || type == "audio") && item.HasMember("data")) {
                mime = member(item, "mimeType");
                bytes = decode_base64(member(item, "data"), what);
            } else if (type == "resource" && item.HasMember("resource") && item["resource"].IsObject() &&
                       item["resource"].HasMember("blob")) {
                mime = member(item["resource"], "mimeType");
                bytes = decode_base64(member(item["resource"], "blob"), what);
            } else {
                continue;  // text (and resource links) are printed, not saved
            }
            if (dir_fd < 0) dir_fd = open_directory(dir, true);
            const std::string name = std::to_string(i + 1) + "." + extension_for(mime);
            write_file(dir_fd, name, joined(dir, name), bytes, force);
            written.push_back(joined(dir, name));
        }
    } catch (...) {
        if (dir_fd >= 0) ::close(dir_fd);
        throw;
    }
    if (dir_fd >= 0) ::close(dir_fd);
    return written;
}

}  // namespace mcph::cli
