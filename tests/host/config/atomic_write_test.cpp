// write_file_atomically: a crash at every step leaves exactly the old or the new content, an
// exception at every step cleans up its temp file, and an existing file keeps its mode.
#include "config/atomic_write.hpp"

#include <mcph/error.hpp>

#include <gtest/gtest.h>

#include "test_scratch.hpp"
#include "test_helpers.hpp"

#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using mcph::test::ScratchDir;
using mcph::test::slurp;

namespace fs = std::filesystem;
using mcph::config::read_file_if_exists;
using mcph::config::write_file_atomically;
using mcph::config::WriteFaultHook;
using mcph::config::WriteStep;



using host_test::mode_of;

std::vector<std::string> entries(const fs::path& dir) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

constexpr WriteStep kSteps[] = {WriteStep::TempCreated, WriteStep::DataWritten, WriteStep::DataSynced,
                                WriteStep::ModeSet,     WriteStep::Renamed,     WriteStep::DirSynced};

bool after_rename(WriteStep s) { return s == WriteStep::Renamed || s == WriteStep::DirSynced; }

// Big enough that a torn write would show (several write() calls on some systems).
const std::string kOld = "{\"old\":true}\n";
const std::string kNew = "{\"new\":\"" + std::string(200000, 'n') + "\"}\n";

TEST(AtomicWrite, CrashAtAnyStepLeavesOldOrNewNeverTornOrMissing) {
    for (WriteStep crash_at : kSteps) {
        ScratchDir dir;
        const fs::path file = dir.path() / "settings.json";
        std::ofstream(file) << kOld;
        const pid_t child = ::fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            // The child process "crashes" (no unwinding, no cleanup) right after the step.
            const WriteFaultHook hook = [crash_at](WriteStep s) {
                if (s == crash_at) ::_exit(0);
            };
            try {
                write_file_atomically(file, kNew, 0644, &hook);
            } catch (...) {
                ::_exit(2);
            }
            ::_exit(3);  // the hook never fired
        }
        int status = 0;
        ASSERT_EQ(::waitpid(child, &status, 0), child);
        ASSERT_TRUE(WIFEXITED(status));
        ASSERT_EQ(WEXITSTATUS(status), 0) << "step " << static_cast<int>(crash_at);
        const std::string content = slurp(file);
        ASSERT_TRUE(content == kOld || content == kNew) << "torn at step " << static_cast<int>(crash_at);
        EXPECT_EQ(content == kNew, after_rename(crash_at)) << "step " << static_cast<int>(crash_at);
    }
}

TEST(AtomicWrite, ExceptionAtAnyStepCleansUpTheTempFile) {
    for (WriteStep fail_at : kSteps) {
        ScratchDir dir;
        const fs::path file = dir.path() / "settings.json";
        std::ofstream(file) << kOld;
        const WriteFaultHook hook = [fail_at](WriteStep s) {
            if (s == fail_at) throw std::runtime_error("injected");
        };
        EXPECT_THROW(write_file_atomically(file, kNew, 0644, &hook), std::runtime_error);
        EXPECT_EQ(slurp(file), after_rename(fail_at) ? kNew : kOld) << "step " << static_cast<int>(fail_at);
        EXPECT_EQ(entries(dir.path()), std::vector<std::string>{"settings.json"}) << "no temp file left behind";
    }
}

TEST(AtomicWrite, ExistingFileKeepsItsMode) {
    ScratchDir dir;
    const fs::path file = dir.path() / "f.json";
    std::ofstream(file) << kOld;
    ASSERT_EQ(::chmod(file.c_str(), 0640), 0);
    write_file_atomically(file, "one", 0600);
    EXPECT_EQ(slurp(file), "one");
    EXPECT_EQ(mode_of(file), 0640u);
    ASSERT_EQ(::chmod(file.c_str(), 0604), 0);
    write_file_atomically(file, "two");
    EXPECT_EQ(mode_of(file), 0604u);
}

TEST(AtomicWrite, NewFileGetsTheGivenModeAndPrivateParentFolders) {
    ScratchDir dir;
    const fs::path file = dir.path() / "a/b/approvals.json";
    write_file_atomically(file, "x", 0600);
    EXPECT_EQ(slurp(file), "x");
    EXPECT_EQ(mode_of(file), 0600u);
    EXPECT_EQ(mode_of(dir.path() / "a"), 0700u);
    EXPECT_EQ(mode_of(dir.path() / "a/b"), 0700u);
    write_file_atomically(dir.path() / "open.json", "", 0644);
    EXPECT_EQ(mode_of(dir.path() / "open.json"), 0644u);
    EXPECT_EQ(slurp(dir.path() / "open.json"), "");
}

TEST(AtomicWrite, SymlinkIsKeptAndItsTargetReplaced) {
    ScratchDir dir;
    const fs::path real = dir.path() / "dotfiles/settings.json";
    fs::create_directories(real.parent_path());
    std::ofstream(real) << kOld;
    ::chmod(real.c_str(), 0600);
    const fs::path link = dir.path() / "settings.json";
    fs::create_symlink(real, link);
    write_file_atomically(link, "new");
    EXPECT_TRUE(fs::is_symlink(link));
    EXPECT_EQ(slurp(real), "new");
    EXPECT_EQ(mode_of(real), 0600u);
}

TEST(AtomicWrite, FailureNamesThePathAndLeavesNoTemp) {
    ScratchDir dir;
    const fs::path target = dir.path() / "is-a-folder";
    fs::create_directories(target);
    try {
        write_file_atomically(target, "x");
        FAIL() << "expected an error";
    } catch (const mcph::Error& e) {
        EXPECT_EQ(e.kind(), mcph::ErrorKind::Usage);
        EXPECT_NE(std::string(e.what()).find(target.string()), std::string::npos) << e.what();
    }
    EXPECT_EQ(entries(dir.path()), std::vector<std::string>{"is-a-folder"});

    const fs::path blocked = dir.path() / "file-not-folder";
    std::ofstream(blocked) << "x";
    try {
        write_file_atomically(blocked / "child.json", "x");
        FAIL() << "expected an error";
    } catch (const mcph::Error& e) {
        EXPECT_NE(std::string(e.what()).find("child.json"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("Not a directory"), std::string::npos) << e.what();
    }
}

TEST(AtomicWrite, RenameFailureRemovesTheTemp) {
    ScratchDir dir;
    const fs::path target = dir.path() / "late-folder";
    // The target becomes a non-empty folder after the checks: rename(2) then fails.
    const WriteFaultHook hook = [&](WriteStep s) {
        if (s == WriteStep::ModeSet) {
            fs::create_directories(target / "inside");
        }
    };
    try {
        write_file_atomically(target, "x", 0644, &hook);
        FAIL() << "expected an error";
    } catch (const mcph::Error& e) {
        EXPECT_NE(std::string(e.what()).find(target.string()), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("rename"), std::string::npos) << e.what();
    }
    EXPECT_EQ(entries(dir.path()), std::vector<std::string>{"late-folder"});
}

TEST(AtomicWrite, ReadFileIfExists) {
    ScratchDir dir;
    EXPECT_FALSE(read_file_if_exists(dir.path() / "missing").has_value());
    EXPECT_FALSE(read_file_if_exists(dir.path() / "missing/deeper").has_value());
    std::ofstream(dir.path() / "f") << kNew;
    EXPECT_EQ(read_file_if_exists(dir.path() / "f"), kNew);
    EXPECT_THROW(read_file_if_exists(dir.path()), mcph::Error);  // a folder exists but cannot be read
}

}  // namespace
