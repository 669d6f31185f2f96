// readerIdleMs: a reader thread with nothing to read for that long retires, the process's idle
// watch waits on its server's pipes, and output, stderr or EOF there starts a new reader. Real
// processes; every wait is for an event (a thread count reached, a message, on_closed).
#include "harness.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <thread>
#include <vector>

namespace stdio_test {
namespace {

constexpr const char* kQuickRetire = "\"readerIdleMs\":30,\"shutdownGraceMs\":300";

// The plugin's threads by their names (thread_name.hpp): other tests' helpers may come and go.
constexpr const char* kReader = "mcph-stdio-out";
constexpr const char* kWatch = "mcph-stdio-idle";

// Waits until this process has exactly `readers` reader threads and `watches` watch threads.
bool wait_threads(size_t readers, size_t watches, std::chrono::milliseconds bound = 10s) {
    const auto deadline = std::chrono::steady_clock::now() + bound;
    while (threads_named(kReader) != readers || threads_named(kWatch) != watches) {
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(5ms);
    }
    return true;
}

class IdleReaderTest : public ::testing::Test {
protected:
    void SetUp() override {
        plugin();
        ASSERT_EQ(threads_named(kReader), 0u);
    }
    // The plugin's shutdown (the host calls it once every transport is gone) ends the watch.
    void TearDown() override {
        plugin().descriptor->shutdown();
        EXPECT_TRUE(wait_threads(0, 0)) << threads_named(kReader) << " readers, " << threads_named(kWatch) << " watches";
    }
    // `n` transports started; each must have delivered its first message.
    std::vector<std::unique_ptr<Transport>> start_servers(size_t n, const std::string& script) {
        std::vector<std::unique_ptr<Transport>> out;
        for (size_t i = 0; i < n; ++i) {
            out.push_back(std::make_unique<Transport>(sh(script, kQuickRetire), /*typed=*/true));
            EXPECT_EQ(out.back()->start(), MCPH_OK) << out.back()->error();
            EXPECT_TRUE(out.back()->recorder.wait_messages(1));
        }
        return out;
    }
    // Every reader retired: only the watch's thread is left of the plugin's.
    bool all_retired() { return wait_threads(0, 1); }
    std::string threads() const {
        return std::to_string(threads_named(kReader)) + " readers, " + std::to_string(threads_named(kWatch)) + " watches";
    }

};

TEST_F(IdleReaderTest, QuietServersKeepOneThreadBetweenThemAndWhatTheySendLaterStillArrives) {
    // Each server says it is ready, then, unasked, sends a notification once the test lets it.
    const std::string flag = "/tmp/mcph-idle-" + std::to_string(::getpid());
    auto servers = start_servers(
        4, "echo '{\"ready\":1}'; while [ ! -e " + flag + " ]; do sleep 0.01; done; echo '{\"later\":1}'; exec sleep 30");
    ASSERT_TRUE(all_retired()) << "four servers should share one thread, the watch's: " << threads();
    { std::ofstream touch(flag); }
    for (auto& t : servers) {
        ASSERT_TRUE(t->recorder.wait_messages(2)) << "the watch revived no reader";
        EXPECT_EQ(t->recorder.messages()[1], "{\"later\":1}");
    }
    std::remove(flag.c_str());
    EXPECT_TRUE(all_retired()) << "and retire again: " << threads();
    for (auto& t : servers) t->close();
}

TEST_F(IdleReaderTest, AServerExitingWhileItsReaderIsRetiredIsReportedWithItsStatusAndStderr) {
    auto servers = start_servers(2, "echo '{\"ready\":1}'; read line; echo \"dying: $line\" >&2; exit 3");
    ASSERT_TRUE(all_retired()) << threads();
    ASSERT_EQ(servers[0]->send("now"), MCPH_OK);
    ASSERT_TRUE(servers[0]->recorder.wait_closed());
    EXPECT_EQ(servers[0]->recorder.close_reason(), MCPH_CLOSE_ERROR);
    const RecordedFailure failure = servers[0]->recorder.close_failure();
    EXPECT_EQ(failure.category, MCPH_FAILURE_PROCESS_EXITED);
    EXPECT_EQ(failure.os_error, 3);
    EXPECT_NE(failure.stderr_tail.find("dying: now"), std::string::npos) << failure.stderr_tail;
    EXPECT_EQ(servers[1]->recorder.closed_count(), 0);
    for (auto& t : servers) t->close();
}

TEST_F(IdleReaderTest, StderrFloodWhileRetiredIsDrainedSoTheServerNeverBlocks) {
    // 1 MiB of stderr is far more than the pipe holds: unread, the server would block before its
    // last line.
    auto servers = start_servers(
        2, "echo '{\"ready\":1}'; read line; head -c 1048576 /dev/zero | tr '\\0' x >&2; echo '{\"done\":1}'; exec sleep 30");
    ASSERT_TRUE(all_retired()) << threads();
    ASSERT_EQ(servers[0]->send("go"), MCPH_OK);
    ASSERT_TRUE(servers[0]->recorder.wait_messages(2)) << "the server blocked on its stderr";
    EXPECT_EQ(servers[0]->recorder.messages()[1], "{\"done\":1}");
    for (auto& t : servers) t->close();
}

TEST_F(IdleReaderTest, APumpOnARetiredServerReadsItsOwnReply) {
    auto servers = start_servers(2, "echo '{\"ready\":1}'; exec cat");
    ASSERT_TRUE(all_retired()) << threads();
    ASSERT_EQ(servers[0]->send("{\"id\":1}"), MCPH_OK);
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    mcph_status st = MCPH_ERR_TIMEOUT;
    while (servers[0]->recorder.message_count() < 2 && std::chrono::steady_clock::now() < deadline) {
        st = servers[0]->pump(20);
        ASSERT_TRUE(st == MCPH_OK || st == MCPH_ERR_TIMEOUT || st == MCPH_BUSY) << st;
    }
    ASSERT_EQ(servers[0]->recorder.message_count(), 2u);
    EXPECT_EQ(servers[0]->recorder.messages()[1], "{\"id\":1}");
    for (auto& t : servers) t->close();
}

TEST_F(IdleReaderTest, ClosingRetiredServersLeavesNoThreadOrDescriptor) {
    const size_t fds = open_fd_count();
    {
        auto servers = start_servers(3, "echo '{\"ready\":1}'; exec cat");
        ASSERT_TRUE(all_retired()) << threads();
        for (auto& t : servers) {
            t->close();
            EXPECT_EQ(t->recorder.late_callbacks(), 0);
        }
    }
    // The watch's epoll and its stop descriptor go with its thread (TearDown checks the thread).
    plugin().descriptor->shutdown();
    EXPECT_EQ(open_fd_count(), fds);
}

TEST_F(IdleReaderTest, WithoutDescriptorsForTheWatchTheReaderStaysAndStillDelivers) {
#if defined(__SANITIZE_ADDRESS__)
    // UBSan's vptr check probes memory through a pipe of its own: with no descriptor left it takes
    // the exception object the plugin throws for an invalid one.
    GTEST_SKIP() << "the sanitizer runtime needs descriptors this test takes away";
#endif
    plugin().descriptor->shutdown();  // no watch from an earlier test: the first arm must build it
    const std::string flag = "/tmp/mcph-idle-nofile-" + std::to_string(::getpid());
    Transport t(sh("echo '{\"ready\":1}'; while [ ! -e " + flag + " ]; do sleep 0.01; done; echo '{\"later\":1}'; exec sleep 30",
                   "\"readerIdleMs\":300,\"shutdownGraceMs\":300"), /*typed=*/true);
    ASSERT_EQ(t.start(), MCPH_OK) << t.error();  // spawning needs descriptors: before they run out
    // Every descriptor this process may have is taken (the limit a little above what is open, the
    // rest filled with /dev/null), well before the reader has been quiet for 300 ms.
    DescriptorsTaken none_left;
    ASSERT_TRUE(none_left.taken());
    const std::string stayed = mcph_test::wait_line_with(
        [] { return plugin().logs(); }, "the reader thread stays (readerIdleMs is off for this server)");
    none_left.give_back();
    ASSERT_FALSE(stayed.empty()) << "no word from the reader that could not retire";
    EXPECT_EQ(threads_named(kReader), 1u);
    EXPECT_EQ(threads_named(kWatch), 0u);
    { std::ofstream touch(flag); }
    EXPECT_TRUE(t.recorder.wait_messages(2)) << "the reader that stayed does not deliver";
    std::remove(flag.c_str());
    t.close();
}

}  // namespace
}  // namespace stdio_test
