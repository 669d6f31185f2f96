// mcph-conformance <server-url>: the client the official MCP conformance suite drives. It runs a
// generic session through the same Host code paths a user's config takes — connect over
// Streamable HTTP, list the tools, call each with arguments sampled from its schema, close — and
// answers server requests as a headless application would: elicitation accepted with the schema's
// defaults, sampling with a fixed reply. MCP_CONFORMANCE_SCENARIO only labels the log.
#include "tools/sample_arguments.hpp"

#include <mcph/host.hpp>

#include <cstdlib>
#include <iostream>

namespace {

mcph::ClientCallbacks headless_callbacks() {
    mcph::ClientCallbacks cb;
    cb.elicitation = [](const mcph::ElicitationRequest&) {
        mcph::ElicitationResponse response;
        response.action = "accept";  // the host fills every omitted field from the schema's defaults
        response.content.SetObject();
        return response;
    };
    cb.sampling = [](const std::string&, const mcph::JsonValue&) {
        return mcph::parse_json(
            R"({"role":"assistant","content":{"type":"text","text":"ok"},"model":"mcph-conformance","stopReason":"endTurn"})");
    };
    return cb;
}

std::string config_for(const std::string& url) {
    mcph::Json doc = mcph::parse_json(R"({"mcpServers":{"conformance":{"type":"http"}}})");
    auto& server = doc["mcpServers"]["conformance"];
    server.AddMember("url", mcph::JsonValue(url.c_str(), doc.GetAllocator()), doc.GetAllocator());
    return mcph::to_json(doc);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: mcph-conformance <server-url>\n";
        return 2;
    }
    const char* scenario = std::getenv("MCP_CONFORMANCE_SCENARIO");
    std::cerr << "mcph-conformance: scenario " << (scenario ? scenario : "(none)") << " against " << argv[1] << "\n";
    try {
        mcph::HostOptions options;
        options.client_info = {"mcph-conformance", "0.1.0", "mcph conformance client"};
        options.callbacks = headless_callbacks();
        mcph::Host host(options);
        host.add_config_json(config_for(argv[1]));
        auto session = host.connect("conformance");
        for (const mcph::Tool& tool : session->cached_tools()) {
            mcph::Json args = mcph::tools::sample_arguments(tool.input_schema);
            mcph::CallToolResult result = session->call_tool(tool.name, args);
            std::cerr << "called " << tool.name << ": " << (result.is_error ? "tool error: " : "") << result.text() << "\n";
        }
        host.close();
        return 0;
    } catch (const mcph::Error& e) {
        std::cerr << "mcph-conformance: " << mcph::to_string(e.kind()) << " error: " << e.what() << "\n";
        return 1;
    }
}
