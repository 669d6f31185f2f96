// Skills extension, client side, against a scripted server (a map uri -> content behind the
// SkillCall): entries parsed, nothing read while listing, SKILL.md verified by size, digest and
// frontmatter before the skill loads, supporting files only after, and each mismatch named.
#include "extensions/skill_verify.hpp"
#include "extensions/skills.hpp"
#include "tools/sha256.hpp"

#include <mcph/error.hpp>

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace {

using mcph::Error;
using mcph::ErrorKind;
using mcph::Json;
namespace ext = mcph::extensions;

const std::string kSkillUri = "skill://pdf/SKILL.md";
const std::string kFormsUri = "skill://pdf/references/FORMS.md";
const std::string kSkillMd = "---\nname: pdf\ndescription: Fill PDF forms\n---\n\nSkill body.\n";
const std::string kForms = "Supporting content.\n";

std::string digest(const std::string& s) { return "sha256:" + mcph::tools::sha256_hex(s); }

// A server: the skills/list entry (declared from `declared_*`), the bytes it serves per uri, and
// a record of every request.
struct ScriptedSkillServer {
    std::string declared_skill = kSkillMd;
    std::string declared_frontmatter = R"({"name":"pdf","description":"Fill PDF forms"})";
    std::map<std::string, std::string> served{{kSkillUri, kSkillMd}, {kFormsUri, kForms}};
    std::vector<std::string> reads;
    std::vector<std::string> methods;

    std::string entry() const {
        return R"({"uri":")" + kSkillUri + R"(","frontmatter":)" + declared_frontmatter + R"(,"resources":[)" +
               R"({"uri":")" + kSkillUri + R"(","digest":")" + digest(declared_skill) + R"(","size":)" +
               std::to_string(declared_skill.size()) + "}," + R"({"uri":")" + kFormsUri + R"(","digest":")" +
               digest(kForms) + R"(","size":)" + std::to_string(kForms.size()) + "}]}";
    }

    ext::SkillCall call() {
        return [this](const std::string& method, Json params) {
            methods.push_back(method);
            if (method == "skills/list") return mcph::parse_json(R"({"skills":[)" + entry() + "]}");
            const std::string uri = params["uri"].GetString();
            reads.push_back(uri);
            Json result = mcph::parse_json(R"({"contents":[{"uri":"","text":""}]})");
            auto& a = result.GetAllocator();
            result["contents"][0]["uri"].SetString(uri.c_str(), a);
            result["contents"][0]["text"].SetString(served.at(uri).c_str(), a);
            return result;
        };
    }

    mcph::Skill listed() {
        std::vector<std::string> warnings;
        auto skills = ext::list_skills("srv", call(), [&](const std::string& w) { warnings.push_back(w); });
        EXPECT_TRUE(warnings.empty()) << warnings.front();
        EXPECT_EQ(skills.size(), 1u);
        return skills.at(0);
    }
};

std::string load_error(ScriptedSkillServer& server) {
    mcph::Skill skill = server.listed();
    try {
        ext::load_skill(skill, server.call());
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Protocol);
        return e.what();
    }
    ADD_FAILURE() << "the skill loaded";
    return {};
}

TEST(Skills, ListingParsesEntriesAndReadsNothing) {
    ScriptedSkillServer server;
    mcph::Skill skill = server.listed();
    EXPECT_EQ(skill.server, "srv");
    EXPECT_EQ(skill.uri, kSkillUri);
    EXPECT_EQ(skill.name, "pdf");
    EXPECT_EQ(skill.description, "Fill PDF forms");
    ASSERT_EQ(skill.files.size(), 2u);
    EXPECT_EQ(skill.files[1].uri, kFormsUri);
    EXPECT_EQ(skill.files[1].size, kForms.size());
    EXPECT_EQ(server.methods, std::vector<std::string>{"skills/list"});
    EXPECT_TRUE(server.reads.empty());
}

TEST(Skills, AVerifiedSkillLoadsAndOpensItsFiles) {
    ScriptedSkillServer server;
    mcph::Skill skill = server.listed();
    mcph::LoadedSkill loaded = ext::load_skill(skill, server.call());
    EXPECT_EQ(loaded.content, kSkillMd);
    EXPECT_EQ(loaded.body, "\nSkill body.\n");
    EXPECT_EQ(server.reads, std::vector<std::string>{kSkillUri});  // nothing else fetched at load
    EXPECT_EQ(ext::read_skill_file(loaded, kFormsUri, server.call()), kForms);
    EXPECT_EQ(ext::read_skill_file(loaded, kSkillUri, server.call()), kSkillMd);  // the verified copy
    EXPECT_EQ(server.reads, (std::vector<std::string>{kSkillUri, kFormsUri}));
}

TEST(Skills, TamperedContentFailsTheDigest) {
    ScriptedSkillServer server;
    server.served[kSkillUri] = "---\nname: pdf\ndescription: Fill PDF forms\n---\n\nEvil body!!\n";  // same length
    const std::string why = load_error(server);
    EXPECT_NE(why.find("digest mismatch"), std::string::npos) << why;
    EXPECT_NE(why.find(kSkillUri), std::string::npos) << why;
    EXPECT_EQ(server.reads, std::vector<std::string>{kSkillUri});
}

TEST(Skills, WrongSizeFailsBeforeTheDigest) {
    ScriptedSkillServer server;
    server.served[kSkillUri] = kSkillMd + "extra bytes\n";
    const std::string why = load_error(server);
    EXPECT_NE(why.find("size mismatch: read " + std::to_string(kSkillMd.size() + 12) + " bytes, the entry declares " +
                       std::to_string(kSkillMd.size())),
              std::string::npos)
        << why;
}

TEST(Skills, FrontmatterMismatchIsNamedFieldByField) {
    ScriptedSkillServer server;
    // The server declares the bytes it serves (digest and size match) but a different frontmatter.
    server.declared_skill = "---\nname: pdf\ndescription: Exfiltrate credentials\n---\n";
    server.served[kSkillUri] = server.declared_skill;
    const std::string why = load_error(server);
    EXPECT_NE(why.find("frontmatter field 'description' is \"Exfiltrate credentials\" in SKILL.md but \"Fill PDF forms\""),
              std::string::npos)
        << why;
}

TEST(Skills, AFieldOnOneSideOnlyIsAMismatch) {
    ScriptedSkillServer server;
    server.declared_skill = "---\nname: pdf\ndescription: Fill PDF forms\nallowed-tools: Bash\n---\n";
    server.served[kSkillUri] = server.declared_skill;
    EXPECT_NE(load_error(server).find("field 'allowed-tools' is \"Bash\" in SKILL.md but absent"), std::string::npos);
    ScriptedSkillServer missing;
    missing.declared_frontmatter = R"({"name":"pdf","description":"Fill PDF forms","license":"MIT"})";
    EXPECT_NE(load_error(missing).find("field 'license' is absent in SKILL.md"), std::string::npos);
}

TEST(Skills, ASupportingFileIsVerifiedToo) {
    ScriptedSkillServer server;
    mcph::LoadedSkill loaded = ext::load_skill(server.listed(), server.call());
    server.served[kFormsUri] = "Tampered content!!\n\n";  // same length as kForms
    try {
        ext::read_skill_file(loaded, kFormsUri, server.call());
        ADD_FAILURE() << "tampered file returned";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Protocol);
        EXPECT_NE(std::string(e.what()).find("digest mismatch"), std::string::npos) << e.what();
    }
}

TEST(Skills, AnUnlistedFileIsRefusedWithoutARead) {
    ScriptedSkillServer server;
    mcph::LoadedSkill loaded = ext::load_skill(server.listed(), server.call());
    server.reads.clear();
    try {
        ext::read_skill_file(loaded, "skill://pdf/secret.md", server.call());
        ADD_FAILURE() << "unlisted file returned";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Usage);
    }
    EXPECT_TRUE(server.reads.empty());
}

TEST(Skills, AnOversizedDeclarationIsRefusedWithoutARead) {
    ScriptedSkillServer server;
    mcph::Skill skill = server.listed();
    ext::SkillLimits limits;
    limits.max_skill_bytes = 16;
    try {
        ext::load_skill(skill, server.call(), limits);
        ADD_FAILURE() << "loaded";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("over the 16-byte cap"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(server.reads.empty());
}

TEST(Skills, ABadDigestFormatIsRefusedWithoutARead) {
    mcph::SkillFile file{kSkillUri, "md5:abc", 3};
    EXPECT_THROW(ext::check_entry_before_read(file, 100), Error);
    file.digest = "sha256:" + std::string(64, 'g');
    EXPECT_THROW(ext::check_entry_before_read(file, 100), Error);
    file.digest = "SHA256:" + mcph::tools::sha256_hex("abc");
    EXPECT_THROW(ext::check_entry_before_read(file, 100), Error);
    file.digest = "sha256:" + mcph::tools::sha256_hex("abc");
    for (char& c : file.digest) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    file.digest.replace(0, 7, "sha256:");
    EXPECT_NO_THROW(ext::verify_content(file, "abc", 100));  // hex in either case
}

TEST(Skills, MalformedEntriesAreSkippedWithAReason) {
    ext::SkillLimits limits;
    std::string why;
    EXPECT_FALSE(ext::parse_skill_entry("s", mcph::parse_json(R"({"frontmatter":{},"resources":[]})"), limits, why));
    EXPECT_NE(why.find("no uri"), std::string::npos);
    EXPECT_FALSE(ext::parse_skill_entry("s", mcph::parse_json(R"({"uri":"skill://a/SKILL.md","resources":[]})"), limits, why));
    EXPECT_NE(why.find("no frontmatter"), std::string::npos);
    EXPECT_FALSE(ext::parse_skill_entry(
        "s", mcph::parse_json(R"({"uri":"u","frontmatter":{},"resources":[{"uri":"u","digest":"sha256:00","size":-1}]})"),
        limits, why));
    EXPECT_NE(why.find("byte size"), std::string::npos);
}

TEST(Skills, ASkillMdMissingFromItsResourcesIsNotLoaded) {
    ScriptedSkillServer server;
    mcph::Skill skill = server.listed();
    skill.files.erase(skill.files.begin());
    try {
        ext::load_skill(skill, server.call());
        ADD_FAILURE() << "loaded";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("cannot be verified"), std::string::npos);
    }
    EXPECT_TRUE(server.reads.empty());
}

TEST(Skills, BlobContentIsDecodedBeforeVerification) {
    Json result = mcph::parse_json(R"({"contents":[{"uri":"u","blob":"aGVsbG8="}]})");
    EXPECT_EQ(ext::resource_bytes(result, "u", 100), "hello");
    EXPECT_THROW(ext::resource_bytes(result, "u", 3), Error);  // over the cap, refused before decoding
    EXPECT_THROW(ext::resource_bytes(mcph::parse_json(R"({"contents":[{"uri":"other","text":"x"}]})"), "u", 100), Error);
}

TEST(Skills, CapabilityHelpers) {
    EXPECT_EQ(mcph::to_json(ext::skills_client_extensions()), R"({"io.modelcontextprotocol/skills":{}})");
    EXPECT_TRUE(ext::server_offers_skills(mcph::parse_json(R"({"extensions":{"io.modelcontextprotocol/skills":{}}})")));
    EXPECT_FALSE(ext::server_offers_skills(mcph::parse_json(R"({"resources":{}})")));
}

TEST(Skills, TheSkillsTotalDeclaredSizeIsBoundedBeforeAnyRead) {
    ScriptedSkillServer server;
    mcph::Skill skill = server.listed();
    skill.files[1].size = (std::uint64_t{16} << 20);  // with SKILL.md: over SEP-2640's 16 MiB per skill
    try {
        ext::load_skill(skill, server.call());
        ADD_FAILURE() << "loaded";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("bytes in all, over the 16777216-byte cap for a skill"), std::string::npos)
            << e.what();
    }
    EXPECT_TRUE(server.reads.empty());
}

TEST(Skills, MoreThan512FilesIsAMalformedEntry) {
    std::string resources;
    for (int i = 0; i < 513; ++i)
        resources += std::string(i ? "," : "") + R"({"uri":"skill://a/f)" + std::to_string(i) + R"(","digest":"sha256:00","size":1})";
    std::string why;
    EXPECT_FALSE(ext::parse_skill_entry(
        "s", mcph::parse_json(R"({"uri":"skill://a/SKILL.md","frontmatter":{},"resources":[)" + resources + "]}"), {}, why));
    EXPECT_NE(why.find("more than 512 files"), std::string::npos) << why;
}

// "resources": "dynamic": no manifest. The frontmatter still decides, and files are read only
// below the skill's directory.
TEST(Skills, ADynamicSkillIsCheckedByFrontmatterAndStaysInItsDirectory) {
    ScriptedSkillServer server;
    server.served["skill://pdf/notes/a.md"] = "notes";
    std::string why;
    auto skill = ext::parse_skill_entry(
        "s", mcph::parse_json(R"({"uri":")" + kSkillUri + R"(","frontmatter":{"name":"pdf","description":"Fill PDF forms"},"resources":"dynamic"})"),
        {}, why);
    ASSERT_TRUE(skill) << why;
    EXPECT_TRUE(skill->dynamic);
    EXPECT_TRUE(skill->files.empty());
    mcph::LoadedSkill loaded = ext::load_skill(*skill, server.call());
    EXPECT_EQ(loaded.body, "\nSkill body.\n");
    EXPECT_EQ(ext::read_skill_file(loaded, "skill://pdf/notes/a.md", server.call()), "notes");
    for (const std::string escape : {"skill://pdf/../other/SKILL.md", "skill://pdf/notes/%2E%2E/x", "skill://pdfx/a.md",
                                     "skill://other/SKILL.md", "skill://pdf/./a.md"}) {
        try {
            ext::read_skill_file(loaded, escape, server.call());
            ADD_FAILURE() << escape << " was read";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::Usage) << escape;
        }
    }
    EXPECT_EQ(server.reads, (std::vector<std::string>{kSkillUri, "skill://pdf/notes/a.md"}));

    server.served[kSkillUri] = "---\nname: pdf\ndescription: Something else\n---\n";
    EXPECT_THROW(ext::load_skill(*skill, server.call()), Error);
}

TEST(Skills, GetSkillParsesTheOneEntryAndChecksItsUri) {
    ScriptedSkillServer server;
    auto call = [&](const std::string& method, Json params) {
        EXPECT_EQ(method, "skills/get");
        EXPECT_EQ(std::string(params["uri"].GetString()), kSkillUri);
        return mcph::parse_json(R"({"skill":)" + server.entry() + "}");
    };
    EXPECT_EQ(ext::get_skill("srv", kSkillUri, call).name, "pdf");
    try {
        ext::get_skill("srv", kSkillUri, [&](const std::string&, Json) {
            return mcph::parse_json(R"({"skill":{"uri":"skill://other/SKILL.md","frontmatter":{},"resources":[]}})");
        });
        ADD_FAILURE() << "an entry for another uri was accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Protocol);
        EXPECT_NE(std::string(e.what()).find("the entry is for 'skill://other/SKILL.md'"), std::string::npos) << e.what();
    }
}

TEST(Skills, DeclaredSizesThatWouldWrapAroundStillCountAsTooBig) {
    ScriptedSkillServer server;
    mcph::Skill skill = server.listed();
    // SKILL.md's own bytes plus four times 2^62: an unsaturated uint64 sum wraps to a few bytes.
    skill.files[1].size = std::uint64_t{1} << 62;
    for (int i = 0; i < 3; ++i) skill.files.push_back({"skill://pdf/big" + std::to_string(i), "sha256:00", UINT64_MAX});
    EXPECT_THROW(ext::load_skill(skill, server.call()), Error);
    EXPECT_TRUE(server.reads.empty());
}

}  // namespace
