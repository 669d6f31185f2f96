// The index of kept input answers (host/src/config/kept_inputs.hpp) against what can go wrong with
// it: it is bounded (a full index refuses the next answer and writes nothing), it never holds a
// value, a corrupt one is named with the way out and `forget --all` resets it (while the answers it
// lists are still used), an answer whose index entry was lost is indexed again, and concurrent
// keepers through the cross-process lock lose no entry.
#include "governance_support.hpp"
#include "test_support.hpp"

#include "config/inputs.hpp"
#include "config/kept_inputs.hpp"
#include "secrets/file_secret_store.hpp"

#include <mcph/error.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <sys/wait.h>
#include <unistd.h>

namespace mcph::test {
namespace {

namespace fs = std::filesystem;
using config::KeptAnswer;
using config::KeptInputs;

KeptAnswer answer_for(const std::string& file, const std::string& id, std::string description = "d") {
    return {config::input_secret_key(file, id), file, "--mcp-config " + file, id, std::move(description), false};
}

TEST(KeptInputsIndex, AFullIndexRefusesTheNextAnswerAndWritesNothing) {
    auto store = std::make_shared<plugins::MemorySecretStore>();
    KeptInputs kept(store, {});
    for (std::size_t i = 0; i < config::kMaxKeptAnswers; ++i) kept.keep(answer_for("/w/a.json", "id" + std::to_string(i)), "v");
    const KeptAnswer extra = answer_for("/w/a.json", "one-more");
    try {
        kept.keep(extra, "v");
        FAIL() << "an answer beyond the bound was kept";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Usage);
        EXPECT_NE(std::string(e.what()).find("at most " + std::to_string(config::kMaxKeptAnswers)), std::string::npos) << e.what();
    }
    EXPECT_FALSE(store->get(extra.key)) << "the refused answer was written";
    EXPECT_EQ(kept.list().size(), config::kMaxKeptAnswers);
    // Keeping an answer again replaces its entry: a full index still takes a changed answer.
    kept.keep(answer_for("/w/a.json", "id0"), "changed");
    EXPECT_EQ(store->get(answer_for("/w/a.json", "id0").key), "changed");
}

TEST(KeptInputsIndex, HoldsNoValueAndCutsALongDescription) {
    auto store = std::make_shared<plugins::MemorySecretStore>();
    KeptInputs kept(store, {});
    kept.keep(answer_for("/w/a.json", "key", std::string(5000, 'x')), "s3cret-value");
    const std::string index = store->get(config::kKeptInputsIndexKey).value_or("");
    EXPECT_EQ(index.find("s3cret-value"), std::string::npos) << index;
    const std::vector<KeptAnswer> list = kept.list();
    ASSERT_EQ(list.size(), 1u);
    EXPECT_LE(list[0].description.size(), config::kMaxKeptDescription + 3);
    EXPECT_EQ(list[0].file, "/w/a.json");
}

TEST(KeptInputsIndex, ACorruptIndexIsNamedItsAnswersStillServeAndForgetAllResetsIt) {
    auto store = std::make_shared<plugins::MemorySecretStore>();
    KeptInputs kept(store, {});
    const KeptAnswer a = answer_for("/w/a.json", "key");
    kept.keep(a, "v");
    store->set(config::kKeptInputsIndexKey, "{not json");
    try {
        kept.list();
        FAIL() << "a corrupt index was listed";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("mcph inputs forget --all"), std::string::npos) << e.what();
    }
    EXPECT_EQ(kept.find(a), "v") << "the answer must still be used";
    EXPECT_THROW(kept.forget([](const KeptAnswer&) { return true; }), Error) << "a selective forget cannot walk it";
    EXPECT_TRUE(kept.forget({}).empty());
    EXPECT_TRUE(kept.list().empty());
    EXPECT_FALSE(store->get(config::kKeptInputsIndexKey));
}

TEST(KeptInputsIndex, AnAnswerWhoseIndexEntryWasLostIsIndexedAgainAndForgetErasesIt) {
    auto store = std::make_shared<plugins::MemorySecretStore>();
    KeptInputs kept(store, {});
    const KeptAnswer a = answer_for("/w/a.json", "key");
    store->set(a.key, "v");  // as after a crash between the answer's write and the index's
    EXPECT_TRUE(kept.list().empty());
    EXPECT_EQ(kept.find(a), "v");
    ASSERT_EQ(kept.list().size(), 1u);
    const std::vector<KeptAnswer> gone = kept.forget([](const KeptAnswer& e) { return e.id == "key"; });
    ASSERT_EQ(gone.size(), 1u);
    EXPECT_FALSE(store->get(a.key));
    EXPECT_TRUE(kept.list().empty());
}

// Six processes keeping answers at once in one credentials file, through the lock folder: every
// entry survives (without the lock, each read-change-write of the index drops the others' entries).
TEST(KeptInputsIndex, ConcurrentProcessesLoseNoEntry) {
    TempDir dir("kept-inputs");
    fs::permissions(dir.path(), fs::perms::owner_all);
    fs::create_directory(dir / "locks");
    fs::permissions(dir / "locks", fs::perms::owner_all);
    const fs::path file = dir / "credentials.json";
    constexpr int kProcesses = 6, kEach = 5;
    std::vector<pid_t> children;
    for (int p = 0; p < kProcesses; ++p) {
        const pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            int code = 0;
            try {
                KeptInputs kept(std::make_shared<secrets::FileSecretStore>(file), dir / "locks");
                for (int i = 0; i < kEach; ++i)
                    kept.keep(answer_for("/w/" + std::to_string(p) + ".json", "id" + std::to_string(i)), "v");
            } catch (...) {
                code = 1;
            }
            ::_exit(code);
        }
        children.push_back(pid);
    }
    for (pid_t pid : children) {
        int status = 0;
        ASSERT_EQ(::waitpid(pid, &status, 0), pid);  // each child ends: it does a bounded amount of work
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a keeper failed";
    }
    EXPECT_EQ(KeptInputs(std::make_shared<secrets::FileSecretStore>(file), dir / "locks").list().size(),
              static_cast<std::size_t>(kProcesses * kEach));
}

TEST(KeptInputsIndex, APlaceIsTheCanonicalPath) {
    TempDir dir("kept-inputs-place");
    write_file(dir / "a.json", "{}");
    fs::create_directory_symlink(dir.path(), dir / "link");
    const std::string canonical = fs::canonical(dir / "a.json").string();
    EXPECT_EQ(config::canonical_input_place(dir / "link" / "a.json"), canonical);
    EXPECT_EQ(config::canonical_input_place(dir / "." / "a.json"), canonical);
    // A file that is gone still has a place: its absolute, normalised path.
    EXPECT_EQ(config::canonical_input_place(dir / "gone" / ".." / "b.json"), (fs::canonical(dir.path()) / "b.json").string());
}

}  // namespace
}  // namespace mcph::test
