// The size bound on configuration, settings, approvals and credentials files (file_read.hpp): a
// file over the bound is refused with its name and the bound, without being read; one under it is
// read whole, through every reader that uses the bound.
#include "config/atomic_write.hpp"
#include "config/file_read.hpp"
#include "config/file_trust.hpp"

#include <mcph/error.hpp>

#include <gtest/gtest.h>

#include "test_scratch.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>

namespace {

using mcph::test::ScratchDir;
namespace fs = std::filesystem;
using namespace mcph::config;

constexpr TrustRule kRepositoryFile{Owner::CurrentUser, true};

// A sparse file of `size` bytes: no real disk use, whatever the size.
fs::path sparse_file(const ScratchDir& dir, const std::string& name, off_t size) {
    const fs::path f = dir.write(name, "");
    EXPECT_EQ(::truncate(f.c_str(), size), 0) << std::strerror(errno);
    return f;
}

// The message of the mcph::Error `read` throws, or "" (and a failure) when it throws none.
std::string refusal(const std::function<void()>& read) {
    try {
        read();
    } catch (const mcph::Error& e) {
        EXPECT_EQ(e.kind(), mcph::ErrorKind::Usage);
        return e.what();
    }
    ADD_FAILURE() << "the read was not refused";
    return "";
}

TEST(FileRead, FileJustOverTheBoundIsRefusedNamingFileAndBound) {
    ScratchDir dir;
    const fs::path f = sparse_file(dir, ".mcp.json", static_cast<off_t>(kMaxConfigFileBytes) + 1);
    for (const std::string& why : {refusal([&] { read_trusted_file(f, kRepositoryFile); }),
                                   refusal([&] { read_file_if_exists(f); })}) {
        EXPECT_NE(why.find(f.string()), std::string::npos) << why;
        EXPECT_NE(why.find("16 MiB (16777216 bytes)"), std::string::npos) << why;
        EXPECT_NE(why.find(std::to_string(kMaxConfigFileBytes + 1) + " bytes"), std::string::npos) << why;
    }
}

TEST(FileRead, FileJustUnderTheBoundIsReadWhole) {
    ScratchDir dir;
    const fs::path f = sparse_file(dir, "settings.json", static_cast<off_t>(kMaxConfigFileBytes) - 1);
    const auto trusted = read_trusted_file(f, kRepositoryFile);
    ASSERT_TRUE(trusted);
    EXPECT_EQ(trusted->size(), kMaxConfigFileBytes - 1);
    const auto plain = read_file_if_exists(f);
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain->size(), kMaxConfigFileBytes - 1);
}

// A descriptor fstat cannot size (a pipe, or a file that grows after fstat) is bounded while read.
TEST(FileRead, ContentBeyondTheBoundWhileReadingIsRefused) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const std::string data(100, 'x');
    ASSERT_EQ(::write(fds[1], data.data(), data.size()), static_cast<ssize_t>(data.size()));
    ::close(fds[1]);
    const std::string why = refusal([&] { read_to_end_and_close(fds[0], "the-pipe", 10); });
    EXPECT_NE(why.find("the-pipe is larger than the 10 bytes"), std::string::npos) << why;
    EXPECT_EQ(::fcntl(fds[0], F_GETFD), -1) << "the descriptor is closed on refusal too";

    ASSERT_EQ(::pipe(fds), 0);
    ASSERT_EQ(::write(fds[1], data.data(), 10), 10);
    ::close(fds[1]);
    EXPECT_EQ(read_to_end_and_close(fds[0], "the-pipe", 10), data.substr(0, 10)) << "exactly the bound is allowed";
}

}  // namespace
