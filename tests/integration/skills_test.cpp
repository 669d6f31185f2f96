// The Skills extension (SEP-2640) end to end: mcph::Host over stdio against fake-mcp-server
// --skills-file, whose --log shows every file the client read. Nothing is read at connect or when
// listing; a skill loads only when its SKILL.md matches the entry (size, sha256, frontmatter), and
// after a mismatch its supporting file is never requested.
#include "test_support.hpp"
#include "tools/sha256.hpp"

#include <gtest/gtest.h>

namespace mcph::test {
namespace {

namespace fs = std::filesystem;

const std::string kSkillUri = "skill://pdf-processing/SKILL.md";
const std::string kFormsUri = "skill://pdf-processing/references/FORMS.md";
const std::string kSkillMd =
    "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body.\n";
const std::string kForms = "Supporting content.\n";

// {"uri":..,"digest":"sha256:..","size":..} for `declared`: what the entry promises.
JsonValue file_entry(const std::string& uri, const std::string& declared, Json::AllocatorType& a) {
    JsonValue f(rapidjson::kObjectType);
    f.AddMember("uri", JsonValue(uri.c_str(), a), a);
    f.AddMember("digest", JsonValue(("sha256:" + tools::sha256_hex(declared)).c_str(), a), a);
    f.AddMember("size", static_cast<std::uint64_t>(declared.size()), a);
    return f;
}

// The skills file: one entry declaring `declared_skill_md` (and kForms), serving `served_skill_md`.
std::string skills_file(const std::string& declared_skill_md, const std::string& served_skill_md) {
    Json doc = parse_json(R"({"skills":[{"frontmatter":{"name":"pdf-processing",
        "description":"Extract, fill, and assemble PDF documents"},"resources":[]}],"files":{}})");
    auto& a = doc.GetAllocator();
    JsonValue& entry = doc["skills"][0];
    entry.AddMember("uri", JsonValue(kSkillUri.c_str(), a), a);
    entry["resources"].PushBack(file_entry(kSkillUri, declared_skill_md, a), a);
    entry["resources"].PushBack(file_entry(kFormsUri, kForms, a), a);
    doc["files"].AddMember(JsonValue(kSkillUri.c_str(), a), JsonValue(served_skill_md.c_str(), a), a);
    doc["files"].AddMember(JsonValue(kFormsUri.c_str(), a), JsonValue(kForms.c_str(), a), a);
    return to_json(doc);
}

class Skills : public ::testing::Test {
protected:
    std::shared_ptr<ClientSession> connect(const std::string& declared, const std::string& served) {
        skills_.emplace("skills.json", skills_file(declared, served));
        host_ = std::make_unique<Host>(options_);
        EXPECT_TRUE(has_stdio_plugin(*host_));
        host_->add_server("fake", stdio_config(fake_server_path(), {"--skills-file", skills_->path().string(), "--log",
                                                                    log_.path().string()}));
        return host_->connect("fake");
    }

    // Every resources/read uri the fake received so far, in order. The fake logs a line before
    // answering it, so after any answered request the log holds everything sent before.
    std::vector<std::string> reads() const {
        std::vector<std::string> out;
        for (const std::string& line : read_lines(log_.path())) {
            Json doc;
            doc.Parse(line.c_str());
            if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("method") || !doc["method"].IsString() ||
                std::string_view(doc["method"].GetString()) != "resources/read")
                continue;
            out.push_back(doc["params"]["uri"].GetString());
        }
        return out;
    }

    std::string load_error(ClientSession& session) {
        try {
            session.load_skill("pdf-processing");
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::Protocol) << e.what();
            return e.what();
        }
        ADD_FAILURE() << "a tampered skill loaded";
        return {};
    }

    void TearDown() override { host_.reset(); }

    LogCapture logs_;
    HostOptions options_ = test_options(logs_);
    TempFile log_{"skills-fake.log"};
    std::optional<TempFile> skills_;
    std::unique_ptr<Host> host_;
};

TEST_F(Skills, NothingIsReadAtConnectOrWhenListing) {
    auto session = connect(kSkillMd, kSkillMd);
    ASSERT_TRUE(session->offers_skills());
    const std::vector<Skill> skills = session->list_skills();
    ASSERT_EQ(skills.size(), 1u);
    EXPECT_EQ(skills[0].name, "pdf-processing");
    EXPECT_EQ(skills[0].description, "Extract, fill, and assemble PDF documents");
    EXPECT_EQ(skills[0].files.size(), 2u);
    session->ping();  // answered: the log holds every request sent so far
    EXPECT_TRUE(reads().empty());
}

TEST_F(Skills, AVerifiedSkillLoadsAndReadsItsFilesOnDemand) {
    auto session = connect(kSkillMd, kSkillMd);
    const LoadedSkill loaded = session->load_skill("pdf-processing");
    EXPECT_EQ(loaded.content, kSkillMd);
    EXPECT_EQ(loaded.body, "\nSkill body.\n");
    EXPECT_EQ(reads(), std::vector<std::string>{kSkillUri});
    EXPECT_EQ(session->read_skill_file(loaded, kFormsUri), kForms);
    EXPECT_EQ(reads(), (std::vector<std::string>{kSkillUri, kFormsUri}));
}

TEST_F(Skills, TamperedDigestIsNotLoadedAndItsFileNeverRead) {
    std::string tampered = kSkillMd;
    tampered.replace(tampered.find("Skill body."), 11, "Evil body!!");  // same size, other bytes
    auto session = connect(kSkillMd, tampered);
    EXPECT_NE(load_error(*session).find("digest mismatch"), std::string::npos);
    session->ping();
    EXPECT_EQ(reads(), std::vector<std::string>{kSkillUri});
}

TEST_F(Skills, WrongSizeIsNotLoaded) {
    auto session = connect(kSkillMd, kSkillMd + "extra bytes the entry did not account for\n");
    const std::string why = load_error(*session);
    EXPECT_NE(why.find("size mismatch"), std::string::npos) << why;
    EXPECT_NE(why.find(kSkillUri), std::string::npos) << why;
    session->ping();
    EXPECT_EQ(reads(), std::vector<std::string>{kSkillUri});
}

TEST_F(Skills, FrontmatterMismatchIsNotLoaded) {
    // Digest and size declared for the bytes served; only the frontmatter disagrees with the entry.
    std::string other = kSkillMd;
    other.replace(other.find("Extract, fill, and assemble PDF documents"), 41, "Exfiltrate credentials");
    auto session = connect(other, other);
    const std::string why = load_error(*session);
    EXPECT_NE(why.find("frontmatter field 'description'"), std::string::npos) << why;
    session->ping();
    EXPECT_EQ(reads(), std::vector<std::string>{kSkillUri});
}

TEST_F(Skills, AServerWithoutTheExtensionIsRefusedWithoutARequest) {
    host_ = std::make_unique<Host>(options_);
    host_->add_server("fake", fake_config("normal", log_.path()));
    auto session = host_->connect("fake");
    EXPECT_FALSE(session->offers_skills());
    try {
        session->list_skills();
        ADD_FAILURE() << "listed skills of a server without the extension";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Usage);
        EXPECT_NE(std::string(e.what()).find("io.modelcontextprotocol/skills"), std::string::npos) << e.what();
    }
    session->ping();
    EXPECT_EQ(read_file(log_.path()).find("skills/list"), std::string::npos);
}

TEST_F(Skills, LoadingByUriAsksForThatOneEntry) {
    auto session = connect(kSkillMd, kSkillMd);
    const LoadedSkill loaded = session->load_skill(kSkillUri);
    EXPECT_EQ(loaded.skill.name, "pdf-processing");
    const std::string log = read_file(log_.path());
    EXPECT_NE(log.find("\"skills/get\""), std::string::npos) << log;
    EXPECT_EQ(log.find("\"skills/list\""), std::string::npos) << "no listing needed: " << log;
    try {
        session->load_skill("skill://nope/SKILL.md");
        ADD_FAILURE() << "loaded an unknown skill";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::NotFound) << e.what();
    }
}

}  // namespace
}  // namespace mcph::test
