// The approval store: keys by scope, origin, project and server, insert-or-replace, explicit pin
// sets, a private file in a private folder, version-1 records not honoured, concurrent writers that
// all land (threads and processes), and a corrupt file that is reported, not replaced.
#include "config/approval_store.hpp"

#include <mcph/error.hpp>

#include <gtest/gtest.h>

#include "test_scratch.hpp"
#include "test_helpers.hpp"

#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace {

using mcph::test::ScratchDir;
using mcph::test::slurp;

namespace fs = std::filesystem;
using mcph::config::Approval;
using mcph::config::ApprovalKey;
using mcph::config::ApprovalStore;



using host_test::mode_of;

// A project server's key ("" project: a user-scope server of the user's settings file).
ApprovalKey key(const std::string& project, const std::string& server) {
    if (project.empty()) return {"user", "/h/.config/mcph/settings.json", "", server};
    return {"project", project + "/.mcp.json", project, server};
}

Approval approval(std::string project, std::string server, std::string signature) {
    Approval a;
    a.key = key(project, server);
    a.signature = std::move(signature);
    return a;
}

TEST(ApprovalStore, SaveFindReplaceRemove) {
    ScratchDir dir;
    ApprovalStore store(dir.path() / "home/approvals.json");
    EXPECT_FALSE(store.find(key("/repo", "s")).has_value()) << "no file yet";
    EXPECT_FALSE(store.remove(key("/repo", "s")));
    EXPECT_FALSE(fs::exists(store.file()));

    Approval a = approval("/repo", "s", "sig1");
    a.pins.tools = {{"read", "h1"}, {"write", "h2"}};
    a.pins.prompts = {{"p", "h3"}};
    a.pins.resources = {{"file:///r", "h4"}};
    a.pins.instructions = "h5";
    store.save(a);
    store.save(approval("/other", "s", "sig-other"));
    store.save(approval("", "s", "sig-user"));

    auto found = store.find(key("/repo", "s"));
    ASSERT_TRUE(found.has_value());
    EXPECT_EQ(found->signature, "sig1");
    EXPECT_EQ(found->pins, a.pins);
    EXPECT_EQ(found->approved_at.size(), 20u) << found->approved_at;  // 2025-01-02T03:04:05Z
    EXPECT_EQ(found->approved_at.back(), 'Z');
    EXPECT_EQ(store.find(key("/other", "s"))->signature, "sig-other") << "same server, another project";
    EXPECT_EQ(store.find(key("", "s"))->signature, "sig-user");
    EXPECT_FALSE(store.find(key("/repo", "t")).has_value());

    Approval changed = approval("/repo", "s", "sig2");
    changed.approved_at = "2020-01-01T00:00:00Z";
    store.save(changed);
    found = store.find(key("/repo", "s"));
    EXPECT_EQ(found->signature, "sig2");
    EXPECT_TRUE(found->pins.tools.empty()) << "save replaces the whole record";
    EXPECT_EQ(found->approved_at, "2020-01-01T00:00:00Z");
    EXPECT_EQ(store.list().size(), 3u);

    EXPECT_TRUE(store.remove(key("/repo", "s")));
    EXPECT_FALSE(store.remove(key("/repo", "s")));
    EXPECT_FALSE(store.find(key("/repo", "s")).has_value());
    EXPECT_TRUE(store.find(key("/other", "s")).has_value());
    EXPECT_THROW(store.save(approval("/repo", "", "x")), mcph::Error);
}

TEST(ApprovalStore, FileIsPrivateInAPrivateFolder) {
    ScratchDir dir;
    ApprovalStore store(dir.path() / "config/mcph/approvals.json");
    store.save(approval("", "s", "sig"));
    EXPECT_EQ(mode_of(store.file()), 0600u);
    EXPECT_EQ(mode_of(dir.path() / "config"), 0700u);
    EXPECT_EQ(mode_of(dir.path() / "config/mcph"), 0700u);
}

struct CorruptCase {
    const char* content;
    const char* why;
};

TEST(ApprovalStore, CorruptFileIsAnErrorAndNeverOverwritten) {
    const CorruptCase cases[] = {
        {"{not json", "malformed JSON"},
        {"[]", "expected {\"version\":2,\"approvals\":[...]}"},
        {R"({"version":2,"approvals":{}})", "expected {\"version\":2"},
        {R"({"version":3,"approvals":[]})", "unknown version 3"},
        {R"({"version":2,"approvals":[{"scope":"user","origin":"o","project":"","server":"s"}]})",
         "lacks the string \"signature\""},
        {R"({"version":2,"approvals":[{"scope":"user","origin":"o","project":"","server":"s","signature":"x","approvedAt":"t"}]})",
         "lacks its \"pins\" object"},
        {R"({"version":2,"approvals":[{"scope":"user","origin":"o","project":"","server":"s","signature":"x","approvedAt":"t","pins":{"tools":{"a":1},"instructions":""}}]})",
         "a pin in pins.tools is not a string"},
        {R"({"version":2,"approvals":[7]})", "an approval is not an object"},
    };
    ScratchDir dir;
    const fs::path file = dir.path() / "approvals.json";
    ApprovalStore store(file);
    for (const auto& c : cases) {
        SCOPED_TRACE(c.content);
        std::ofstream(file, std::ios::trunc) << c.content;
        ::chmod(file.c_str(), 0600);
        for (int op = 0; op < 3; ++op) {
            try {
                if (op == 0) store.find(key("", "s"));
                if (op == 1) store.save(approval("", "s", "sig"));
                if (op == 2) store.remove(key("", "s"));
                ADD_FAILURE() << "expected an error from operation " << op;
            } catch (const mcph::Error& e) {
                const std::string message = e.what();
                EXPECT_NE(message.find(file.string()), std::string::npos) << message;
                EXPECT_NE(message.find("is corrupt"), std::string::npos) << message;
                EXPECT_NE(message.find(c.why), std::string::npos) << message;
                EXPECT_NE(message.find("fix it or delete it"), std::string::npos) << message;
            }
        }
        EXPECT_EQ(slurp(file), c.content);
    }
}

TEST(ApprovalStore, RefusesAFileOthersCanWrite) {
    ScratchDir dir;
    ApprovalStore store(dir.path() / "approvals.json");
    store.save(approval("", "s", "sig"));
    ASSERT_EQ(::chmod(store.file().c_str(), 0664), 0);
    try {
        store.find(key("", "s"));
        FAIL() << "expected an error";
    } catch (const mcph::Error& e) {
        EXPECT_NE(std::string(e.what()).find("other users can change it"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("chmod go-w"), std::string::npos) << e.what();
    }
    ASSERT_EQ(::chmod(store.file().c_str(), 0644), 0);
    EXPECT_TRUE(store.find(key("", "s")).has_value()) << "readable by others is fine: approvals are not secret";
    ASSERT_EQ(::chmod(dir.path().c_str(), 0770), 0);
    EXPECT_THROW(store.find(key("", "s")), mcph::Error) << "a folder others can write lets them replace the file";
    ASSERT_EQ(::chmod(dir.path().c_str(), 0700), 0);
}

TEST(ApprovalStore, KeysDoNotLeakAcrossScopesOriginsOrProjects) {
    ScratchDir dir;
    ApprovalStore store(dir.path() / "approvals.json");
    store.save(approval("/a", "github", "sig-a"));
    EXPECT_FALSE(store.find(key("/b", "github")).has_value()) << "another project";
    EXPECT_FALSE(store.find(key("", "github")).has_value()) << "the user's server of that name";
    EXPECT_FALSE(store.find(ApprovalKey{"project", "/a/sub/.mcp.json", "/a", "github"}).has_value()) << "another file";
    EXPECT_FALSE(store.find(ApprovalKey{"local", "/a/.mcp.json", "/a", "github"}).has_value()) << "another scope";
    store.save(approval("/b", "github", "sig-b"));
    EXPECT_EQ(store.remove_defined_in("/a/.mcp.json", "github"), 1u);
    EXPECT_FALSE(store.find(key("/a", "github")).has_value());
    EXPECT_TRUE(store.find(key("/b", "github")).has_value());
    EXPECT_EQ(store.remove_defined_in("/a/.mcp.json", "github"), 0u);
}

TEST(ApprovalStore, VersionOneRecordsAreNotHonouredAndDroppedOnWrite) {
    ScratchDir dir;
    const fs::path file = dir.path() / "approvals.json";
    std::ofstream(file) << R"({"version":1,"approvals":[{"project":"","server":"github","signature":"x",)"
                           R"("toolPins":{},"approvedAt":"2025-01-01T00:00:00Z"}]})";
    ::chmod(file.c_str(), 0600);
    ApprovalStore store(file);
    EXPECT_TRUE(store.list().empty()) << "bare-name approvals must be given again";
    store.save(approval("/r", "s", "sig"));
    EXPECT_EQ(store.list().size(), 1u);
    EXPECT_NE(slurp(file).find("\"version\": 2"), std::string::npos) << slurp(file);
    EXPECT_EQ(slurp(file).find("\"github\""), std::string::npos) << slurp(file);
}

TEST(ApprovalStore, LockFileSymlinkIsRefused) {
    ScratchDir dir;
    const fs::path file = dir.path() / "approvals.json";
    const fs::path target = dir.path() / "elsewhere";
    fs::create_symlink(target, file.string() + ".lock");
    ApprovalStore store(file);
    EXPECT_THROW(store.save(approval("/r", "s", "sig")), mcph::Error);
    EXPECT_FALSE(fs::exists(target)) << "the lock must not be created through a planted symlink";
}

constexpr int kPerWriter = 8;  // enough to interleave; each save fsyncs twice

void approve_many(const fs::path& file, const std::string& prefix) {
    ApprovalStore store(file);  // each writer its own store object, as separate processes would
    for (int i = 0; i < kPerWriter; ++i) store.save(approval("/repo", prefix + std::to_string(i), "sig"));
}

TEST(ApprovalStore, ConcurrentThreadsBothLand) {
    ScratchDir dir;
    const fs::path file = dir.path() / "approvals.json";
    std::thread a(approve_many, file, "a");
    std::thread b(approve_many, file, "b");
    a.join();
    b.join();
    ApprovalStore store(file);
    EXPECT_EQ(store.list().size(), 2u * kPerWriter);
    for (int i = 0; i < kPerWriter; ++i) {
        EXPECT_TRUE(store.find(key("/repo", "a" + std::to_string(i))).has_value()) << i;
        EXPECT_TRUE(store.find(key("/repo", "b" + std::to_string(i))).has_value()) << i;
    }
}

TEST(ApprovalStore, ConcurrentProcessesBothLand) {
    ScratchDir dir;
    const fs::path file = dir.path() / "approvals.json";
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        try {
            approve_many(file, "child");
        } catch (...) {
            ::_exit(1);
        }
        ::_exit(0);
    }
    approve_many(file, "parent");
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    EXPECT_EQ(ApprovalStore(file).list().size(), 2u * kPerWriter);
}

}  // namespace
