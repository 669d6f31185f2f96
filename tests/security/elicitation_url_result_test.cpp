// URL-mode elicitation (MCP 2025-11-25): the user acts out of band, so an accepted URL-mode
// elicitation/create is answered with {"action":"accept"} and no "content" — the ElicitResult's
// content is "only present when action is accept and mode was form". Whatever the embedder's
// callback put in `content` never reaches the server. A form-mode accept, on the same path, does
// carry its content (so the check below can tell the two apart). Real fake-mcp-server process.
#include "governance_support.hpp"
#include "test_support.hpp"

#include <mcph/host.hpp>

#include <gtest/gtest.h>

namespace mcph::test {
namespace {

// What the fake received as the elicitation result, after `params` was asked and the callback
// accepted with a content object.
Json result_received(const std::string& params, std::string& mode_seen) {
    TempDir dir("elicit-url");
    write_file(dir / "elicit.json", params);
    LogCapture logs;
    HostOptions options = test_options(logs);
    options.callbacks.elicitation = [&](const ElicitationRequest& r) {
        mode_seen = r.mode;
        ElicitationResponse response;
        response.action = "accept";
        response.content = parse_json(R"({"note":"typed-by-the-embedder"})");
        return response;
    };
    Host host(options);
    Json config = parse_json(R"({"command":"","args":["--elicit-file",""]})");
    config["command"].SetString(fake_server_path().c_str(), config.GetAllocator());
    config["args"][1].SetString((dir / "elicit.json").c_str(), config.GetAllocator());
    host.add_server("fake", config);
    host.connect("fake");
    RequestOptions ro;
    ro.timeout = std::chrono::seconds(10);
    const CallToolResult result = host.call_tool("fake/work", parse_json("{}"), ro);
    return parse_json(result.text(), "the elicitation result the fake received");
}

TEST(ElicitationUrlResult, AnAcceptedUrlElicitationSendsNoContent) {
    std::string mode;
    const Json url = result_received(R"({"mode":"url","message":"Sign in to continue","url":"https://example.com/auth",)"
                                     R"("elicitationId":"e-1"})",
                                     mode);
    EXPECT_EQ(mode, "url");
    EXPECT_EQ(to_json(url), R"({"action":"accept"})");

    const Json form = result_received(R"({"mode":"form","message":"A note?","requestedSchema":{"type":"object",)"
                                      R"("properties":{"note":{"type":"string"}}}})",
                                      mode);
    EXPECT_EQ(mode, "form");
    EXPECT_EQ(to_json(form), R"({"action":"accept","content":{"note":"typed-by-the-embedder"}})");
}

}  // namespace
}  // namespace mcph::test
