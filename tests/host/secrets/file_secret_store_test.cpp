// The default secret store: permissions, corruption, atomic replacement, and two processes.
#include "secrets/file_secret_store.hpp"

#include <mcph/error.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using mcph::secrets::FileSecretStore;

class FileSecretStoreTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::string pattern = (fs::temp_directory_path() / "mcph-secrets-XXXXXX").string();
        ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
        dir_ = pattern;
        file_ = dir_ / "mcph" / "credentials.json";
    }
    void TearDown() override { fs::remove_all(dir_); }
    unsigned mode_of(const fs::path& p) {
        struct stat st {};
        ::stat(p.c_str(), &st);
        return st.st_mode & 07777;
    }
    fs::path dir_, file_;
};

TEST_F(FileSecretStoreTest, RoundTripsAndCreatesA0600FileIn0700Folder) {
    FileSecretStore store(file_);
    EXPECT_FALSE(store.get("a").has_value());
    store.set("a", "token-1");
    store.set("b", "token-2");
    EXPECT_EQ(store.get("a").value(), "token-1");
    EXPECT_EQ(mode_of(file_), 0600u);
    EXPECT_EQ(mode_of(file_.parent_path()), 0700u);
    FileSecretStore other(file_);  // a second instance (another process) sees the same data
    EXPECT_EQ(other.get("b").value(), "token-2");
    store.erase("a");
    EXPECT_FALSE(other.get("a").has_value());
    EXPECT_EQ(other.get("b").value(), "token-2");
}

TEST_F(FileSecretStoreTest, FileReadableByOthersIsRefusedWithTheFix) {
    FileSecretStore store(file_);
    store.set("a", "token-1");
    ::chmod(file_.c_str(), 0644);
    try {
        store.get("a");
        FAIL() << "a world-readable credentials file was used";
    } catch (const mcph::Error& e) {
        EXPECT_NE(std::string(e.what()).find("chmod 600"), std::string::npos) << e.what();
        EXPECT_EQ(std::string(e.what()).find("token-1"), std::string::npos);
    }
    EXPECT_THROW(store.set("b", "x"), mcph::Error);  // nor written to (its content stays)
}

TEST_F(FileSecretStoreTest, CorruptFileIsRefusedNotOverwritten) {
    fs::create_directories(file_.parent_path());
    { std::ofstream(file_) << "{\"a\": \"tok"; }
    ::chmod(file_.c_str(), 0600);
    FileSecretStore store(file_);
    EXPECT_THROW(store.get("a"), mcph::Error);
    EXPECT_THROW(store.set("a", "new"), mcph::Error);
    std::ifstream in(file_);
    std::string content((std::istreambuf_iterator<char>(in)), {});
    EXPECT_EQ(content, "{\"a\": \"tok");  // left for the person to inspect
}

TEST_F(FileSecretStoreTest, NoTemporaryFilesAreLeftBehind) {
    FileSecretStore store(file_);
    for (int i = 0; i < 20; ++i) store.set("k" + std::to_string(i), "v");
    int others = 0;
    for (const auto& e : fs::directory_iterator(file_.parent_path()))
        if (e.path() != file_ && e.path().filename() != "credentials.json.lock") ++others;
    EXPECT_EQ(others, 0);
}

TEST_F(FileSecretStoreTest, TwoProcessesWritingConcurrentlyLoseNothing) {
    constexpr int kPerProcess = 40;
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        FileSecretStore store(file_);
        for (int i = 0; i < kPerProcess; ++i) store.set("child-" + std::to_string(i), "v");
        ::_exit(0);
    }
    FileSecretStore store(file_);
    for (int i = 0; i < kPerProcess; ++i) store.set("parent-" + std::to_string(i), "v");
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    for (int i = 0; i < kPerProcess; ++i) {
        EXPECT_TRUE(store.get("child-" + std::to_string(i)).has_value()) << i;
        EXPECT_TRUE(store.get("parent-" + std::to_string(i)).has_value()) << i;
    }
}

}  // namespace
