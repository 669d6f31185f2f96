// Unit tests of the plugin's pure parts (compiled in from plugins/transport-stdio/src).
#include "child_process.hpp"
#include "command_line.hpp"
#include "config.hpp"
#include "environment.hpp"
#include "line_reader.hpp"
#include "resource_limits.hpp"
#include "outgoing_queue.hpp"
#include "pipe_growth.hpp"
#include "stderr_buffer.hpp"

#include <mcph/plugin_helper.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

namespace mcph::stdio {
namespace {

std::vector<std::string> feed_all(LineReader& r, const std::vector<std::string>& chunks, bool* ok = nullptr) {
    std::vector<std::string> out;
    bool good = true;
    for (const auto& c : chunks) {
        if (!r.feed(c.data(), c.size(), [&](std::string_view l) { out.emplace_back(l); })) {
            good = false;
            break;
        }
    }
    if (ok) *ok = good;
    return out;
}

TEST(LineReader, SplitsLinesAcrossChunks) {
    LineReader r(100);
    auto lines = feed_all(r, {"{\"a\"", ":1}\n{\"b\":2}\n{", "\"c\":3", "}\n"});
    EXPECT_EQ(lines, (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}", "{\"c\":3}"}));
    EXPECT_EQ(r.pending_size(), 0u);
}

TEST(LineReader, StripsCrAndSkipsBlankLines) {
    LineReader r(100);
    auto lines = feed_all(r, {"a\r\n\r\n\nb\r", "\n", "\r\n"});
    EXPECT_EQ(lines, (std::vector<std::string>{"a", "b"}));
}

TEST(LineReader, LimitIsExactInsideAChunkAndAcrossChunks) {
    for (bool split : {false, true}) {
        LineReader r(5);
        bool ok = false;
        std::vector<std::string> chunks = split ? std::vector<std::string>{"123", "45\n12", "3456\n"}
                                                : std::vector<std::string>{"12345\n123456\n"};
        auto lines = feed_all(r, chunks, &ok);
        EXPECT_FALSE(ok);
        EXPECT_EQ(lines, std::vector<std::string>{"12345"}) << split;
    }
    LineReader r(5);
    bool ok = false;
    EXPECT_EQ(feed_all(r, {"123", "45\r", "\n"}, &ok), std::vector<std::string>{"12345"});
    EXPECT_TRUE(ok) << "a stripped CR does not count";
}

TEST(LineReader, UnterminatedLineStopsAtTheLimit) {
    LineReader r(1000);
    std::string chunk(600, 'x');
    EXPECT_TRUE(r.feed(chunk.data(), chunk.size(), [](std::string_view) {}));
    EXPECT_FALSE(r.feed(chunk.data(), chunk.size(), [](std::string_view) {}));
    EXPECT_LE(r.capacity(), 1000u + 2 + LineReader::kReadBytes) << "memory must stay bounded by the limit";
}

// The pipe is read straight into the reader's buffer: lines come out as views of it, however many
// reads they straddle, and a buffer grown for large lines is kept while they keep coming and given
// back once they stop (or at once above kRetainBytes).
TEST(LineReader, ReadsInPlaceKeepsABigBufferWhileBigLinesComeAndShrinksAfter) {
    LineReader r(64 << 20);
    const std::string big(1 << 20, 'b');
    auto read_line = [&](const std::string& text) {
        std::vector<std::string> got;
        std::string line = text + "\n";
        size_t at = 0;
        while (at < line.size()) {
            LineReader::Room room = r.room();
            EXPECT_GE(room.size, LineReader::kReadBytes);
            size_t n = std::min(room.size, line.size() - at);
            std::memcpy(room.data, line.data() + at, n);
            EXPECT_TRUE(r.commit(n, [&](std::string_view l) { got.emplace_back(l); }));
            at += n;
        }
        return got;
    };
    ASSERT_EQ(read_line(big), std::vector<std::string>{big});
    const size_t grown = r.capacity();
    EXPECT_GT(grown, big.size());
    ASSERT_EQ(read_line(big), std::vector<std::string>{big});
    EXPECT_EQ(r.capacity(), grown) << "a second big line reuses the buffer";
    for (unsigned i = 0; i + 1 < LineReader::kShrinkAfterLines; ++i) ASSERT_EQ(read_line("{}").size(), 1u);
    EXPECT_EQ(r.capacity(), grown) << "kept until kShrinkAfterLines small lines in a row";
    ASSERT_EQ(read_line("{}").size(), 1u);
    EXPECT_EQ(r.capacity(), 0u) << "given back once the big lines stopped";

    const std::string huge(LineReader::kRetainBytes + 1, 'h');
    ASSERT_EQ(read_line(huge).size(), 1u);
    EXPECT_EQ(r.capacity(), 0u) << "a buffer above kRetainBytes is given back at once";
}

TEST(LineReader, DiscardDropsThePendingLine) {
    LineReader r(100);
    EXPECT_TRUE(r.feed("abc", 3, [](std::string_view) {}));
    r.discard();
    EXPECT_EQ(r.pending_size(), 0u);
    std::vector<std::string> got;
    EXPECT_TRUE(r.feed("d\n", 2, [&](std::string_view l) { got.emplace_back(l); }));
    EXPECT_EQ(got, std::vector<std::string>{"d"});
}

TEST(LineReader, LargeLineInManySmallChunks) {
    LineReader r(10'000'000);
    std::string line(5'000'000, 'q');
    line[12345] = 'z';
    std::vector<std::string> got;
    for (size_t i = 0; i < line.size(); i += 4096)
        ASSERT_TRUE(r.feed(line.data() + i, std::min<size_t>(4096, line.size() - i),
                           [&](std::string_view l) { got.emplace_back(l); }));
    ASSERT_TRUE(r.feed("\n", 1, [&](std::string_view l) { got.emplace_back(l); }));
    ASSERT_EQ(got.size(), 1u);
    EXPECT_TRUE(got[0] == line);
}

struct Pipe {
    int fds[2] = {-1, -1};
    Pipe() { EXPECT_EQ(::pipe2(fds, O_CLOEXEC), 0); }
    ~Pipe() {
        ::close(fds[0]);
        ::close(fds[1]);
    }
    size_t size() const { return static_cast<size_t>(::fcntl(fds[1], F_GETPIPE_SZ)); }
};

TEST(PipeGrowth, APipeGrowsToHoldALargeMessageAndOnlyWhenAsked) {
    Pipe p;
    const size_t before = p.size();
    PipeGrowth g;
    g.ensure(p.fds[1], 1000);
    EXPECT_EQ(p.size(), before) << "a small message leaves the pipe alone";
    g.ensure(p.fds[1], 300'000);
    EXPECT_GE(p.size(), 300'000u);
    EXPECT_EQ(g.size(), p.size());
}

TEST(PipeGrowth, AllGrownPipesTogetherStayWithinTheBudgetWhichIsGivenBack) {
    const size_t one_mib = size_t{1} << 20;
    size_t grown = 0;
    {
        std::vector<std::unique_ptr<Pipe>> pipes;
        std::vector<std::unique_ptr<PipeGrowth>> growths;
        for (size_t i = 0; i < PipeGrowth::kBudgetBytes / one_mib + 4; ++i) {
            pipes.push_back(std::make_unique<Pipe>());
            growths.push_back(std::make_unique<PipeGrowth>());
            const size_t before = pipes.back()->size();
            growths.back()->ensure(pipes.back()->fds[1], one_mib);
            grown += pipes.back()->size() - before;
        }
        EXPECT_LE(grown, PipeGrowth::kBudgetBytes);
        EXPECT_GT(grown, 0u);
    }
    // Every PipeGrowth above is gone: their share is back, and a new pipe grows again.
    Pipe p;
    PipeGrowth g;
    g.ensure(p.fds[1], 300'000);
    EXPECT_GE(p.size(), 300'000u);
}

TEST(PipeGrowth, ADescriptorThatIsNotAPipeIsLeftAlone) {
    int fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    PipeGrowth g;
    g.ensure(fd, 300'000);
    EXPECT_EQ(g.size(), 0u);
    ::close(fd);
}

TEST(StderrBuffer, KeepsNewestBytesUpToCapacity) {
    StderrBuffer b(10, 4);
    b.append("0123456789", 10);
    b.append("abc", 3);
    EXPECT_EQ(b.size(), 10u);
    EXPECT_EQ(b.dropped(), 3u);
    EXPECT_EQ(b.tail(100), "3456789abc");
}

TEST(StderrBuffer, MatchesAReferenceUnderRandomAppends) {
    std::mt19937 rng(42);
    StderrBuffer b(1000, 64);
    std::string all;
    for (int i = 0; i < 2000; ++i) {
        std::string chunk(rng() % 300, 'a');
        for (char& c : chunk) c = static_cast<char>('a' + rng() % 26);
        b.append(chunk.data(), chunk.size());
        all += chunk;
        std::string expect = all.substr(all.size() > 1000 ? all.size() - 1000 : 0);
        ASSERT_EQ(b.size(), expect.size());
        ASSERT_EQ(b.tail(1000), expect);  // no newlines: the tail is not trimmed
    }
}

TEST(StderrBuffer, TailStartsAtALineBoundary) {
    StderrBuffer b;
    std::string text = "first line\nsecond line\nthird line\n";
    b.append(text.data(), text.size());
    EXPECT_EQ(b.tail(1000), "first line\nsecond line\nthird line");
    EXPECT_EQ(b.tail(20), "third line");          // cut inside "second line": dropped
    EXPECT_EQ(b.tail(23), "second line\nthird line");  // cut exactly at a line start: kept
}

TEST(StderrBuffer, TailOfOneLongLineDoesNotStartMidCharacter) {
    StderrBuffer b;
    std::string text = "é";  // 2 bytes
    for (int i = 0; i < 10; ++i) text += "é";
    b.append(text.data(), text.size());
    std::string t = b.tail(5);  // the cut falls on a continuation byte
    EXPECT_EQ(t, "éé");
}

TEST(CommandLine, SplitsPrefixOnWhitespace) {
    EXPECT_EQ(split_whitespace("  docker exec\t-i   box \n"),
              (std::vector<std::string>{"docker", "exec", "-i", "box"}));
    EXPECT_TRUE(split_whitespace(" \t ").empty());
    EXPECT_EQ(build_argv({"docker", "exec", "-i", "box"}, "server", {"--stdio"}),
              (std::vector<std::string>{"docker", "exec", "-i", "box", "server", "--stdio"}));
    EXPECT_EQ(build_argv({}, "server", {"a"}), (std::vector<std::string>{"server", "a"}));
}

TEST(CommandLine, ResolvesInTheGivenPath) {
    EXPECT_EQ(resolve_program("sh", "/nonexistent:/bin", ""), "/bin/sh");
    EXPECT_EQ(resolve_program("./x", "/bin", ""), "./x");  // contains '/': left to execve
    try {
        resolve_program("mcph-nope", "/nonexistent:/also-not", "");
        FAIL();
    } catch (const mcph::plugin::Error& e) {
        EXPECT_EQ(e.status(), MCPH_ERR_IO);
        EXPECT_STREQ(e.what(), "cannot start 'mcph-nope': not found in PATH (/nonexistent:/also-not)");
    }
}

TEST(Environment, AllowListPlusConfiguredOverrides) {
    ::setenv("MCPH_UNIT_SECRET", "s", 1);
    ::setenv("TZ", "UTC", 1);
    EnvMap env = child_environment({{"TZ", "Europe/Paris"}, {"EXTRA", "1"}});
    ::unsetenv("MCPH_UNIT_SECRET");
    EXPECT_EQ(env.count("MCPH_UNIT_SECRET"), 0u);
    EXPECT_EQ(env["TZ"], "Europe/Paris");
    EXPECT_EQ(env["EXTRA"], "1");
    if (const char* path = std::getenv("PATH")) {
        EXPECT_EQ(env["PATH"], path);
    }
    for (const auto& [k, v] : env) {
        bool allowed = k == "EXTRA";
        for (const char* const* n = inherited_variable_names(); *n; ++n) allowed |= k == *n;
        EXPECT_TRUE(allowed) << k;
    }
}

// Sets variables for one test and restores them, so the modes below see a known host environment.
class EnvironmentModes : public ::testing::Test {
protected:
    void SetUp() override {
        ::setenv("MCPH_UNIT_SECRET", "s", 1);
        ::setenv("MCPH_UNIT_PROXY", "http://proxy:3128", 1);
        ::setenv("LC_MCPH_UNIT", "fr_FR", 1);
        ::setenv("MCPH_UNIT_FUNC", "() { echo pwned; }", 1);
        ::setenv(kInheritedNofileVariable, "1024", 1);
    }
    void TearDown() override {
        for (const char* n : {"MCPH_UNIT_SECRET", "MCPH_UNIT_PROXY", "LC_MCPH_UNIT", "MCPH_UNIT_FUNC", kInheritedNofileVariable})
            ::unsetenv(n);
    }
    static InheritEnv named(std::vector<std::string> names) { return {InheritEnv::Mode::AllowListNamed, std::move(names)}; }
};

TEST_F(EnvironmentModes, FalseIsTheAllowListOnly) {
    const EnvMap env = child_environment({}, {InheritEnv::Mode::AllowList, {}});
    EXPECT_EQ(env.count("MCPH_UNIT_SECRET"), 0u);
    EXPECT_EQ(env.count("MCPH_UNIT_PROXY"), 0u);
    EXPECT_EQ(env.count("LC_MCPH_UNIT"), 0u);
}

TEST_F(EnvironmentModes, TrueIsEverythingButExportedFunctionsAndTheCliNote) {
    const EnvMap env = child_environment({{"MCPH_UNIT_SECRET", "configured"}}, {InheritEnv::Mode::Everything, {}});
    EXPECT_EQ(env.at("MCPH_UNIT_PROXY"), "http://proxy:3128");
    EXPECT_EQ(env.at("LC_MCPH_UNIT"), "fr_FR");
    EXPECT_EQ(env.at("MCPH_UNIT_SECRET"), "configured") << "configured env must win over inherited";
    EXPECT_EQ(env.count("MCPH_UNIT_FUNC"), 0u) << "an exported bash function passed";
    EXPECT_EQ(env.count(kInheritedNofileVariable), 0u);
    for (const char* const* n = inherited_variable_names(); *n; ++n)
        if (const char* v = std::getenv(*n)) {
            EXPECT_EQ(env.at(*n), v) << *n;
        }
}

TEST_F(EnvironmentModes, ANamedListAddsExactlyItsNamesAndPrefixes) {
    EnvMap env = child_environment({}, named({"MCPH_UNIT_PROXY", "MCPH_UNIT_FUNC", "MCPH_UNSET_NAME"}));
    EXPECT_EQ(env.at("MCPH_UNIT_PROXY"), "http://proxy:3128");
    EXPECT_EQ(env.count("MCPH_UNIT_SECRET"), 0u) << "a name not listed passed";
    EXPECT_EQ(env.count("MCPH_UNIT_FUNC"), 0u) << "a listed exported function passed";
    EXPECT_EQ(env.count("MCPH_UNSET_NAME"), 0u);
    if (const char* path = std::getenv("PATH")) {
        EXPECT_EQ(env.at("PATH"), path) << "the allow-list is kept";
    }

    env = child_environment({}, named({"LC_*"}));
    EXPECT_EQ(env.at("LC_MCPH_UNIT"), "fr_FR");
    EXPECT_EQ(env.count("MCPH_UNIT_PROXY"), 0u);
    env = child_environment({}, named({"MCPH_UNIT_PROX"}));
    EXPECT_EQ(env.count("MCPH_UNIT_PROXY"), 0u) << "an exact name matched as a prefix";
    env = child_environment({}, named({"MCPH_CHILD_*"}));
    EXPECT_EQ(env.count(kInheritedNofileVariable), 0u);
}

TEST(Environment, InheritNamesArePosixNamesWithAnOptionalTrailingStar) {
    for (const char* good : {"A", "_", "https_proxy", "NO_PROXY", "LC_*", "A1_*", "x9"}) EXPECT_TRUE(valid_inherit_name(good)) << good;
    for (const char* bad : {"", "*", "1A", "A=B", "A B", "A**", "*A", "A*B", "A-B", "Ä"}) EXPECT_FALSE(valid_inherit_name(bad)) << bad;
    EXPECT_TRUE(valid_inherit_name(std::string(kMaxInheritNameBytes, 'A')));
    EXPECT_FALSE(valid_inherit_name(std::string(kMaxInheritNameBytes + 1, 'A')));
}

// Drains `q` in writes of `step` bytes (a pipe taking a little at a time) and returns the bytes.
std::string drain(OutgoingQueue& q, size_t step) {
    std::string out;
    while (!q.empty()) {
        iovec iov[3];
        int n = q.gather(iov, 3);
        size_t budget = step;
        for (int i = 0; i < n && budget > 0; ++i) {
            size_t take = std::min(budget, iov[i].iov_len);
            out.append(static_cast<const char*>(iov[i].iov_base), take);
            budget -= take;
        }
        q.consume(step - budget);
    }
    return out;
}

TEST(OutgoingQueue, PartialWritesKeepOrderAndCount) {
    for (size_t step : {1u, 2u, 5u, 7u, 64u}) {
        OutgoingQueue q;
        q.push("ab", "\n");
        q.push("", "\n");
        q.push("cdefgh", "\n");
        q.push("", "");  // nothing: not an entry
        q.push("ij", "\n");
        EXPECT_EQ(q.messages(), 4u);
        EXPECT_EQ(q.bytes(), 14u);
        EXPECT_EQ(drain(q, step), "ab\n\ncdefgh\nij\n") << "step " << step;
        EXPECT_EQ(q.bytes(), 0u);
        EXPECT_EQ(q.messages(), 0u);
    }
}

TEST(OutgoingQueue, GatherStopsAtTheIovecLimitAndClearEmpties) {
    OutgoingQueue q;
    for (int i = 0; i < 10; ++i) q.push(std::to_string(i), "\n");
    iovec iov[4];
    ASSERT_EQ(q.gather(iov, 4), 4);
    q.consume(3);  // "0\n" and the "1"
    ASSERT_EQ(q.gather(iov, 4), 4);
    EXPECT_EQ(std::string(static_cast<const char*>(iov[0].iov_base), iov[0].iov_len), "\n");
    EXPECT_EQ(q.bytes(), 17u);
    q.clear();
    EXPECT_TRUE(q.empty());
    EXPECT_EQ(q.bytes(), 0u);
}

TEST(Config, ParsesAllFieldsAndDefaults) {
    StdioConfig c = parse_config(R"({"type":"stdio","name":"fs","command":"npx","args":["-y","server"],
        "env":{"A":"1"},"cwd":"/tmp","maxMessageBytes":4096,"shutdownGraceMs":50,"timeout":30})");
    EXPECT_EQ(c.name, "fs");
    EXPECT_EQ(c.command, "npx");
    EXPECT_EQ(c.args, (std::vector<std::string>{"-y", "server"}));
    EXPECT_EQ(c.env.at("A"), "1");
    EXPECT_EQ(c.cwd, "/tmp");
    EXPECT_EQ(c.max_message_bytes, 4096u);
    EXPECT_EQ(c.shutdown_grace.count(), 50);
    StdioConfig d = parse_config(R"({"command":"x"})");
    EXPECT_EQ(d.max_message_bytes, size_t{128} << 20);
    EXPECT_EQ(d.shutdown_grace.count(), 2000);
    EXPECT_EQ(d.write_stall_timeout.count(), 30000);
    EXPECT_EQ(parse_config(R"({"command":"x","writeStallTimeoutMs":250})").write_stall_timeout.count(), 250);
    EXPECT_TRUE(d.args.empty());
    EXPECT_TRUE(d.cwd.empty());
}

// ---- resource_limits ------------------------------------------------------------------------

TEST(ResourceLimits, HintNamesTheLimitItsValuesAndHowToRaiseIt) {
    rlimit lim{};
    ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &lim), 0);
    if (lim.rlim_cur == RLIM_INFINITY) GTEST_SKIP() << "soft RLIMIT_NOFILE is unlimited here";
    const std::string files = limit_hint(EMFILE);
    EXPECT_NE(files.find("RLIMIT_NOFILE is reached (soft " + std::to_string(lim.rlim_cur)), std::string::npos) << files;
    EXPECT_NE(files.find("ulimit -Hn"), std::string::npos) << files;
    EXPECT_NE(limit_hint(ENFILE).find("fs.file-max"), std::string::npos);
    EXPECT_NE(limit_hint(EAGAIN).find("RLIMIT_NPROC"), std::string::npos);
    EXPECT_EQ(limit_hint(ENOENT), "");
    try {
        throw_system_error(EMFILE, "pipe2");
        ADD_FAILURE() << "no throw";
    } catch (const mcph::plugin::Error& e) {
        EXPECT_EQ(e.status(), MCPH_ERR_IO);
        EXPECT_EQ(std::string(e.what()).rfind("pipe2: Too many open files; ", 0), 0u) << e.what();
    }
}

TEST(ResourceLimits, ChildSoftLimitComesFromTheCliOnlyWhenLower) {
    rlimit lim{};
    ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &lim), 0);
    if (lim.rlim_cur < 3) GTEST_SKIP() << "soft RLIMIT_NOFILE too small to test";
    const char* saved = std::getenv(kInheritedNofileVariable);
    const std::string saved_value = saved ? saved : "";
    ::setenv(kInheritedNofileVariable, std::to_string(lim.rlim_cur - 1).c_str(), 1);
    EXPECT_EQ(child_nofile_soft_limit(), lim.rlim_cur - 1);
    for (const char* bad : {"", "0", "12x", "-5", "99999999999999999999999"}) {
        ::setenv(kInheritedNofileVariable, bad, 1);
        EXPECT_EQ(child_nofile_soft_limit(), 0u) << bad;
    }
    ::setenv(kInheritedNofileVariable, std::to_string(lim.rlim_cur).c_str(), 1);
    EXPECT_EQ(child_nofile_soft_limit(), 0u) << "not lower than ours: nothing to restore";
    if (saved) ::setenv(kInheritedNofileVariable, saved_value.c_str(), 1);
    else ::unsetenv(kInheritedNofileVariable);
}

}  // namespace
}  // namespace mcph::stdio

// ---- ChildProcess: the exit descriptor --------------------------------------------------------

// The descriptor a waiter polls becomes readable when the process exits, not before; the status
// is then there at once (without reaping); once reaped, no descriptor is handed out for the pid.
TEST(ChildProcessExit, TheExitDescriptorBecomesReadableAtTheExitAndNotBefore) {
    mcph::stdio::SpawnSpec spec;
    spec.program = "/bin/sh";
    spec.argv = {"sh", "-c", "read line; exit 7"};
    auto child = mcph::stdio::ChildProcess::spawn(spec);
    mcph::stdio::UniqueFd exit_fd = child->open_exit_fd();
    if (!exit_fd) GTEST_SKIP() << "no pidfd on this kernel (waits step instead)";
    pollfd p{exit_fd.get(), POLLIN, 0};
    EXPECT_EQ(::poll(&p, 1, 0), 0) << "readable while the process still waits for its input";
    EXPECT_FALSE(child->exit_status().has_value());
    ASSERT_EQ(::write(child->stdin_fd.get(), "go\n", 3), 3);
    ASSERT_EQ(::poll(&p, 1, 10000), 1) << "the exit did not make the descriptor readable";
    const std::optional<mcph::stdio::ExitStatus> status = child->exit_status();
    ASSERT_TRUE(status.has_value()) << "readable, but no exit status yet";
    EXPECT_EQ(status->value, 7);
    // wait_exit returns at once for an exited process, and the status is still there to reap.
    ASSERT_TRUE(child->wait_exit(std::chrono::milliseconds(10)).has_value());
    EXPECT_EQ(child->reap().value, 7);
    EXPECT_FALSE(child->open_exit_fd()) << "a pidfd for a reaped pid could name someone else's process";
}
