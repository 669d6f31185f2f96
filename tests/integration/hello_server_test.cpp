// mcph::Host against examples/hello-server over stdio.
#include "test_support.hpp"

#include <gtest/gtest.h>

namespace mcph::test {
namespace {

namespace fs = std::filesystem;

class HelloServer : public ::testing::Test {
protected:
    void SetUp() override {
        if (hello_server_path().empty())
            GTEST_SKIP() << "the hello-server target does not exist in this build (examples/hello-server)";
        ASSERT_TRUE(fs::exists(hello_server_path())) << hello_server_path();
    }
    void TearDown() override { host_.reset(); }

    std::shared_ptr<ClientSession> connect(const fs::path& notes) {
        host_ = std::make_unique<Host>(options);
        EXPECT_TRUE(has_stdio_plugin(*host_));
        host_->add_server("hello", stdio_config(hello_server_path(), {"--notes", notes.string()}));
        return host_->connect("hello");
    }

    LogCapture logs;
    HostOptions options = test_options(logs);
    std::unique_ptr<Host> host_;
};

TEST_F(HelloServer, AddReturnsTextAndStructuredContent) {
    TempFile notes("notes.txt", "unused\n");
    connect(notes.path());
    CallToolResult r = host_->call_tool("mcp__hello__add", parse_json(R"({"a":2,"b":3})"));
    EXPECT_FALSE(r.is_error);
    EXPECT_EQ(r.text(), "5");
    const JsonValue* structured = r.structured();
    ASSERT_NE(structured, nullptr) << to_json(r.raw);
    ASSERT_TRUE(structured->IsObject() && structured->HasMember("sum")) << to_json(*structured);
    ASSERT_TRUE((*structured)["sum"].IsNumber()) << to_json(*structured);
    EXPECT_DOUBLE_EQ((*structured)["sum"].GetDouble(), 5.0);
}

TEST_F(HelloServer, NotesResourceReadsTheNotesFile) {
    const std::string text = "- buy milk\n- write integration tests\n";
    TempFile notes("notes.txt", text);
    auto session = connect(notes.path());
    bool listed = false;
    for (const Resource& r : session->cached_resources()) listed |= r.uri == "notes://today";
    EXPECT_TRUE(listed) << "notes://today not among the cached resources";
    Json read = session->read_resource("notes://today");
    ASSERT_TRUE(read.IsObject() && read.HasMember("contents") && read["contents"].IsArray() && !read["contents"].Empty())
        << to_json(read);
    const JsonValue& content = read["contents"][0];
    ASSERT_TRUE(content.HasMember("text") && content["text"].IsString()) << to_json(content);
    EXPECT_EQ(std::string(content["text"].GetString(), content["text"].GetStringLength()), text);
}

TEST_F(HelloServer, ReviewCodePromptEmbedsTheCode) {
    TempFile notes("notes.txt", "");
    auto session = connect(notes.path());
    bool listed = false;
    for (const Prompt& p : session->cached_prompts()) listed |= p.name == "review-code";
    EXPECT_TRUE(listed);
    const std::string code = "int main() { return 42; }";
    Json args(rapidjson::kObjectType);
    args.AddMember("code", JsonValue(code.c_str(), args.GetAllocator()), args.GetAllocator());
    Json prompt = session->get_prompt("review-code", args);
    ASSERT_TRUE(prompt.IsObject() && prompt.HasMember("messages") && prompt["messages"].IsArray() &&
                !prompt["messages"].Empty())
        << to_json(prompt);
    const std::string message = to_json(prompt["messages"][0]);
    EXPECT_NE(message.find(code), std::string::npos) << message;
    EXPECT_NE(message.find("\"role\":\"user\""), std::string::npos) << message;
}

}  // namespace
}  // namespace mcph::test
