// secret_lock's cross-process lock: exclusion, a bounded wait that ends in a Timeout naming the
// bound, release on unlock and on the holder's death, and the host service's C shape.
#include "plugins/host_services.hpp"
#include "secrets/key_lock.hpp"

#include "test_scratch.hpp"

#include <mcph/error.hpp>
#include <mcph/plugin_helper.hpp>

#include <gtest/gtest.h>

#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using namespace std::chrono_literals;
using mcph::secrets::KeyLock;

TEST(KeyLock, SecondHolderWaitsBoundedThenGetsItAfterRelease) {
    mcph::test::ScratchDir dir;
    const auto folder = dir.path() / "locks";
    auto first = KeyLock::acquire(folder, "mcph.oauth.abc.refresh", 1s);
    ASSERT_TRUE(first);
    const auto start = std::chrono::steady_clock::now();
    try {
        KeyLock::acquire(folder, "mcph.oauth.abc.refresh", 150ms);
        FAIL() << "a held lock was taken twice";
    } catch (const mcph::Error& e) {
        EXPECT_EQ(e.kind(), mcph::ErrorKind::Timeout);
        EXPECT_NE(std::string(e.what()).find("150 ms"), std::string::npos) << e.what();
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
    EXPECT_TRUE(KeyLock::acquire(folder, "another key", 100ms));  // per key, not global
    first.reset();
    EXPECT_TRUE(KeyLock::acquire(folder, "mcph.oauth.abc.refresh", 100ms));
    // Named by a hash, in a private folder: the key does not show in the file system.
    EXPECT_EQ(KeyLock::file_for(folder, "mcph.oauth.abc.refresh").filename().string().find("mcph"), std::string::npos);
    EXPECT_EQ(std::filesystem::status(folder).permissions() & std::filesystem::perms::group_all, std::filesystem::perms::none);
}

TEST(KeyLock, ReleasedWhenTheHoldingProcessDies) {
    mcph::test::ScratchDir dir;
    const auto folder = dir.path() / "locks";
    std::filesystem::create_directories(folder);
    std::filesystem::permissions(folder, std::filesystem::perms::owner_all);
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        ::close(ready[0]);
        auto held = KeyLock::acquire(folder, "k", 1s);
        (void)!::write(ready[1], "x", 1);
        ::pause();  // holds the lock until killed
        ::_exit(0);
    }
    ::close(ready[1]);
    char c;
    ASSERT_EQ(::read(ready[0], &c, 1), 1);  // the child holds it now
    ::close(ready[0]);
    EXPECT_THROW(KeyLock::acquire(folder, "k", 100ms), mcph::Error);
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    EXPECT_TRUE(KeyLock::acquire(folder, "k", 1s)) << "the kernel releases a dead holder's flock";
}

TEST(KeyLock, SymlinkInPlaceOfTheLockFileIsRefused) {
    mcph::test::ScratchDir dir;
    const auto folder = dir.path() / "locks";
    std::filesystem::create_directories(folder);
    std::filesystem::permissions(folder, std::filesystem::perms::owner_all);
    const auto target = dir.write("elsewhere", "");
    std::filesystem::create_symlink(target, KeyLock::file_for(folder, "k"));
    try {
        KeyLock::acquire(folder, "k", 100ms);
        FAIL() << "followed a symlink";
    } catch (const mcph::Error& e) {
        EXPECT_EQ(e.kind(), mcph::ErrorKind::Connection);
        EXPECT_NE(std::string(e.what()).find("symlink"), std::string::npos) << e.what();
    }
}

TEST(KeyLock, HostServiceLocksUnlocksAndTimesOut) {
    mcph::test::ScratchDir dir;
    mcph::plugins::HostServiceBindings b;
    b.secret_lock_folder = [folder = dir.path() / "locks"] { return folder; };
    mcph::plugins::HostServices services(std::move(b));
    const mcph_host_services* t = services.table();
    ASSERT_NE(t->secret_lock, nullptr);
    ASSERT_NE(t->secret_unlock, nullptr);
    void* handle = nullptr;
    mcph_error err = mcph::plugin::make_error();
    ASSERT_EQ(t->secret_lock(t->host_data, mcph::plugin::str("key"), 1000, &handle, &err), MCPH_OK);
    ASSERT_NE(handle, nullptr);
    void* second = nullptr;
    EXPECT_EQ(t->secret_lock(t->host_data, mcph::plugin::str("key"), 50, &second, &err), MCPH_ERR_TIMEOUT);
    EXPECT_EQ(second, nullptr);
    EXPECT_NE(std::string(err.message).find("50 ms"), std::string::npos) << err.message;
    t->secret_unlock(t->host_data, handle);
    mcph_error err2 = mcph::plugin::make_error();
    ASSERT_EQ(t->secret_lock(t->host_data, mcph::plugin::str("key"), 1000, &second, &err2), MCPH_OK);
    t->secret_unlock(t->host_data, second);
}

TEST(KeyLock, HostServiceWithoutAFolderSaysUnsupported) {
    mcph::plugins::HostServices services(mcph::plugins::HostServiceBindings{});
    const mcph_host_services* t = services.table();
    void* handle = nullptr;
    mcph_error err = mcph::plugin::make_error();
    EXPECT_EQ(t->secret_lock(t->host_data, mcph::plugin::str("key"), 10, &handle, &err), MCPH_ERR_UNSUPPORTED);
}

}  // namespace
