// envFile: the dotenv shape (comments, export, quotes), malformed lines named by number, the order
// against the definition's own env, the size bound and the confinement of a project's file.
#include "config/env_file.hpp"

#include <mcph/error.hpp>
#include <mcph/json.hpp>

#include <gtest/gtest.h>

#include "test_scratch.hpp"

#include <filesystem>
#include <string>

namespace {

using mcph::config::apply_env_file;
using mcph::config::parse_env_file;
using mcph::test::ScratchDir;
using Vars = std::vector<std::pair<std::string, std::string>>;

TEST(EnvFile, ParsesTheDotenvShape) {
    const auto vars = parse_env_file(
        "# a comment\n"
        "\n"
        "PLAIN=value\n"
        "export EXPORTED=yes\n"
        "  SPACED = padded value   \n"
        "TRAILING=bare # comment\n"
        "HASH=a#b\n"
        "SINGLE='literal ${X} \\n # not a comment'\n"
        "DOUBLE=\"line\\nnext \\\"q\\\"\" # c\n"
        "EMPTY=\n"
        "WITH_EQ=a=b\r\n"
        "PLAIN=again\n",
        "f");
    const Vars expected{{"PLAIN", "again"},
                        {"EXPORTED", "yes"},
                        {"SPACED", "padded value"},
                        {"TRAILING", "bare"},
                        {"HASH", "a#b"},
                        {"SINGLE", "literal ${X} \\n # not a comment"},
                        {"DOUBLE", "line\nnext \"q\""},
                        {"EMPTY", ""},
                        {"WITH_EQ", "a=b"}};
    EXPECT_EQ(vars, expected);
}

TEST(EnvFile, MalformedLinesAreNamedByNumber) {
    const std::pair<const char*, const char*> cases[] = {
        {"A=1\nnot a pair\n", "f line 2: expected KEY=VALUE"},
        {"A=1\n\n1BAD=x\n", "f line 3: bad variable name '1BAD'"},
        {"=x\n", "f line 1: bad variable name ''"},
        {"A=\"open\n", "f line 1: unterminated \"quoted value"},
        {"A='x' y\n", "f line 1: text after the closing quote"},
    };
    for (const auto& [text, message] : cases) {
        SCOPED_TRACE(text);
        try {
            parse_env_file(text, "f");
            ADD_FAILURE() << "accepted";
        } catch (const mcph::Error& e) {
            EXPECT_EQ(e.kind(), mcph::ErrorKind::Usage);
            EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
        }
    }
}

std::string error_of(const std::string& config, const std::filesystem::path& confined = {}) {
    try {
        apply_env_file("srv", config, confined);
    } catch (const mcph::Error& e) {
        return e.what();
    }
    return "";
}

TEST(EnvFile, MergesUnderTheDefinitionsEnv) {
    ScratchDir dir;
    const auto file = dir.write(".env", "A=from-file\nB=from-file\n");
    const std::string out = apply_env_file(
        "srv", R"({"command":"x","env":{"A":"from-definition"},"envFile":")" + file.string() + "\"}");
    mcph::Json doc = mcph::parse_json(out);
    EXPECT_STREQ(doc["env"]["A"].GetString(), "from-definition") << "the definition's env wins";
    EXPECT_STREQ(doc["env"]["B"].GetString(), "from-file");
    EXPECT_FALSE(doc.HasMember("envFile")) << "the plugin never sees the key";
    // Without env, one is made; a relative path is taken from an absolute cwd.
    mcph::Json rel = mcph::parse_json(
        apply_env_file("srv", R"({"command":"x","cwd":")" + dir.path().string() + R"(","envFile":".env"})"));
    EXPECT_STREQ(rel["env"]["A"].GetString(), "from-file");
    // No envFile: unchanged.
    EXPECT_EQ(apply_env_file("srv", R"({"command":"x"})"), R"({"command":"x"})");
}

TEST(EnvFile, ProblemsNameTheServerAndTheFile) {
    ScratchDir dir;
    const auto big = dir.write("big.env", std::string(mcph::config::kMaxEnvFileBytes + 1, '#'));
    const auto bad = dir.write("bad.env", "OK=1\nnope\n");
    std::string e = error_of(R"({"command":"x","envFile":")" + (dir.path() / "missing.env").string() + "\"}");
    EXPECT_NE(e.find("server 'srv': envFile"), std::string::npos) << e;
    EXPECT_NE(e.find("does not exist"), std::string::npos) << e;
    e = error_of(R"({"command":"x","envFile":")" + big.string() + "\"}");
    EXPECT_NE(e.find("larger than the 1048576 bytes"), std::string::npos) << e;
    e = error_of(R"({"command":"x","envFile":")" + bad.string() + "\"}");
    EXPECT_NE(e.find("bad.env line 2: expected KEY=VALUE"), std::string::npos) << e;
}

// A repository's `.env -> ~/secret` must not ship the user's file to the server.
TEST(EnvFile, AProjectsFileStaysInsideTheProject) {
    ScratchDir dir;
    const auto secret = dir.write("home/secret", "AWS_SECRET_ACCESS_KEY=hunter2\n");
    const auto inside = dir.write("repo/.env", "OK=1\n");
    std::filesystem::create_symlink(secret, dir.path() / "repo/link.env");
    const auto repo = dir.path() / "repo";
    std::string e = error_of(R"({"command":"x","envFile":")" + (repo / "link.env").string() + "\"}", repo);
    EXPECT_NE(e.find("leads out of the project"), std::string::npos) << e;
    e = error_of(R"({"command":"x","envFile":")" + secret.string() + "\"}", repo);
    EXPECT_NE(e.find("leads out of the project"), std::string::npos) << e;
    EXPECT_EQ(error_of(R"({"command":"x","envFile":")" + inside.string() + "\"}", repo), "");
}

TEST(EnvFile, AFileOthersMayWriteIsRefused) {
    ScratchDir dir;
    const auto file = dir.write(".env", "A=1\n");
    std::filesystem::permissions(file, std::filesystem::perms::others_write, std::filesystem::perm_options::add);
    const std::string e = error_of(R"({"command":"x","envFile":")" + file.string() + "\"}");
    EXPECT_NE(e.find("server 'srv': envFile"), std::string::npos) << e;
    EXPECT_NE(e.find("other users can change it"), std::string::npos) << e;
}

}  // namespace
