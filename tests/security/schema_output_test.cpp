// Issue #11 item 7 — a hostile outputSchema. A server's schema is untrusted input: a `$ref` to a
// network URI must never be fetched (MCP 2026-07-28 basic/index "$ref Resolution"), and a schema
// built to make validation exponential or endless must end in a clear error naming the bound
// (SEP-2106 "Composition-Keyword Resource Use"). The real `mcph` against a fake server whose
// tools/call answers with structuredContent.
#include "output_support.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <chrono>

namespace mcph::test::output {
namespace {

// A loopback listener standing for the network URI a schema names: it counts connections.
class Canary {
public:
    Canary() {
        fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof addr;
        if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd_, 8) != 0 ||
            ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
            ADD_FAILURE() << "canary listener: " << std::strerror(errno);
        url_ = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/profile-schema.json";
    }
    ~Canary() { ::close(fd_); }
    const std::string& url() const { return url_; }
    // Called after the mcph process has exited: any connection it made is queued by then.
    bool contacted() const {
        const int c = ::accept(fd_, nullptr, nullptr);
        if (c >= 0) ::close(c);
        return c >= 0;
    }

private:
    int fd_ = -1;
    std::string url_;
};

class HostileSchemaTest : public HostileServerTest {
protected:
    // One tool `t` with this outputSchema answering tools/call with this structuredContent.
    CliResult call_with(const std::string& output_schema, const std::string& structured, bool json = false) {
        write_file(tools_file, R"([{"name":"t","outputSchema":)" + output_schema + R"(,"structuredContent":)" +
                                   structured + "}]");
        std::vector<std::string> command = {"call", "mcp__evil__t", "{}"};
        if (json) command.push_back("--json");
        return mcph_against({"--tools-file", tools_file.string()}, command);
    }
};

TEST_F(HostileSchemaTest, ANetworkRefIsNeverFetchedWhenListingOrValidating) {
    Canary canary;
    const std::string schema =
        R"({"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"id":{"type":"string"}},
            "properties":{"id":{"$ref":"#/$defs/id"},"profile":{"$ref":")" + canary.url() + R"("}}})";
    const CliResult listed = [&] {
        write_file(tools_file, R"([{"name":"t","outputSchema":)" + schema + "}]");
        return mcph_against({"--tools-file", tools_file.string()}, {"tools", "--full"});
    }();
    ASSERT_EQ(listed.exit_code, 0) << listed.describe();
    EXPECT_TRUE(contains(listed.out, canary.url())) << "the schema is shown as sent\n" << listed.out;
    const CliResult as_json = mcph_against({"--tools-file", tools_file.string()}, {"tools", "--json"});
    ASSERT_EQ(as_json.exit_code, 0) << as_json.describe();
    Json tools = parse_output(as_json.out, "tools --json");
    ASSERT_TRUE(tools.IsObject() && tools["tools"].IsArray() && tools["tools"].Size() == 1) << as_json.out;
    const JsonValue* output = member_at(tools["tools"][0], "outputSchema");
    ASSERT_TRUE(output && output->IsObject()) << "outputSchema kept whole in --json\n" << as_json.out;
    EXPECT_EQ(string_at(*output, "$schema"), "https://json-schema.org/draft/2020-12/schema");
    EXPECT_TRUE(member_at(*output, "$defs")) << as_json.out;
    EXPECT_EQ(string_at((*output)["properties"]["profile"], "$ref"), canary.url());

    const CliResult r = call_with(schema, R"({"id":"u-1","profile":{"displayName":"x"}})");
    EXPECT_NE(r.exit_code, 0) << r.describe();
    EXPECT_TRUE(contains(r.err, "could not be checked against its outputSchema")) << r.describe();
    EXPECT_TRUE(contains(r.err, "never fetched")) << r.describe();
    EXPECT_FALSE(canary.contacted()) << "mcph connected to the URI a schema's $ref names";
}

TEST_F(HostileSchemaTest, ExponentialCompositionEndsAtABoundQuickly) {
    std::string defs = R"("d0":{"type":"object"})";
    for (int k = 1; k <= 60; ++k)
        defs += ",\"d" + std::to_string(k) + "\":{\"anyOf\":[{\"$ref\":\"#/$defs/d" + std::to_string(k - 1) +
                "\"},{\"$ref\":\"#/$defs/d" + std::to_string(k - 1) + "\"}]}";
    const auto start = std::chrono::steady_clock::now();
    const CliResult r = call_with("{\"$defs\":{" + defs + "},\"$ref\":\"#/$defs/d60\"}", "{}");
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(15));
    EXPECT_NE(r.exit_code, 0) << r.describe();
    EXPECT_TRUE(contains(r.err, "validation stopped")) << r.describe();
}

TEST_F(HostileSchemaTest, ARefCycleEndsAtTheDepthBound) {
    const CliResult r = call_with(R"({"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"})", "{}");
    EXPECT_NE(r.exit_code, 0) << r.describe();
    EXPECT_TRUE(contains(r.err, "nest deeper than")) << r.describe();
}

TEST_F(HostileSchemaTest, A2020_12SchemaChecksAnyJsonValue) {
    const std::string schema = R"({"type":"array","prefixItems":[{"type":"string"}],"items":{"type":"integer"}})";
    // The text content is what a person sees (structuredContent is printed only without text): the
    // structured value is read from --json.
    const CliResult ok = call_with(schema, R"(["a",1,2])", true);
    EXPECT_EQ(ok.exit_code, 0) << ok.describe();
    EXPECT_TRUE(contains(ok.out, "\"structuredContent\": [")) << ok.describe();
    const CliResult bad = call_with(schema, R"(["a","b"])");
    EXPECT_NE(bad.exit_code, 0) << bad.describe();
    EXPECT_TRUE(contains(bad.err, "keyword 'type' failed at '/1'")) << bad.describe();
}

}  // namespace
}  // namespace mcph::test::output
