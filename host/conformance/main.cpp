// mcph-conformance <server-url>: the client the official MCP conformance suite drives. It runs a
// generic session through the same Host code paths a user's config takes — connect over
// Streamable HTTP, list the tools, call each with arguments sampled from its schema, close — and
// answers server requests as a headless application would: elicitation accepted with the schema's
// defaults, sampling with a fixed reply. MCP_CONFORMANCE_SCENARIO labels the log and picks what the
// application does with skills (run_skills_scenario).
#include "headless_browser.hpp"
#include "tool_arguments.hpp"

#include <mcph/bounded_json.hpp>
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

bool has_auth_backend(const mcph::Host& host, const std::string& backend) {
    for (const auto& p : host.plugins())
        if (p.loaded && p.auth_backend == backend) return true;
    return false;
}

// The oauth settings a deployment would write for this server: a client ID metadata document
// URL (used when the authorization server supports it), plus whatever the suite hands over in
// MCP_CONFORMANCE_CONTEXT (pre-registered credentials, a signing key for machine clients).
mcph::Json oauth_config(const std::string& scenario) {
    const char* raw = std::getenv("MCP_CONFORMANCE_CONTEXT");
    mcph::Json context;
    if (raw) mcph::json_bounds::parse(context, raw);
    auto context_string = [&](const char* name) -> const mcph::JsonValue* {
        if (!context.IsObject() || !context.HasMember(name) || !context[name].IsString()) return nullptr;
        return &context[name];
    };
    // Enterprise-managed authorization (XAA): an application that already holds the user's
    // id_token from its own SSO, and a client registered at the MCP server's AS.
    if (context_string("idp_issuer")) {
        mcph::Json xaa = mcph::parse_json(R"({"xaa":true,"idp":{}})");
        auto& a = xaa.GetAllocator();
        auto put = [&](mcph::JsonValue& into, const char* from, const char* to) {
            if (const mcph::JsonValue* v = context_string(from))
                into.AddMember(mcph::JsonValue(to, a), mcph::JsonValue(*v, a), a);
        };
        put(xaa, "client_id", "clientId");
        put(xaa, "client_secret", "clientSecret");
        put(xaa["idp"], "idp_issuer", "issuer");
        put(xaa["idp"], "idp_client_id", "clientId");
        put(xaa["idp"], "idp_client_secret", "clientSecret");
        put(xaa["idp"], "idp_token_endpoint", "tokenEndpoint");
        put(xaa["idp"], "idp_id_token", "idToken");
        return xaa;
    }
    // Workload identity federation: a workload whose platform hands it a JWT, here through an
    // environment variable (assertionEnv) as a CI runner or a sidecar would.
    if (const mcph::JsonValue* jwt = context_string("valid_jwt")) {
        ::setenv("MCPH_CONFORMANCE_WORKLOAD_JWT", jwt->GetString(), 1);
        mcph::Json wif = mcph::parse_json(R"({"grant":"jwt_bearer","assertionEnv":"MCPH_CONFORMANCE_WORKLOAD_JWT"})");
        if (const mcph::JsonValue* id = context_string("client_id"))
            wif.AddMember("clientId", mcph::JsonValue(*id, wif.GetAllocator()), wif.GetAllocator());
        return wif;
    }
    mcph::Json oauth = mcph::parse_json(R"({"clientMetadataUrl":"https://conformance-test.local/client-metadata.json"})");
    auto copy = [&](const char* from, const char* to) {
        if (context.IsObject() && context.HasMember(from) && context[from].IsString())
            oauth.AddMember(mcph::JsonValue(to, oauth.GetAllocator()), mcph::JsonValue(context[from], oauth.GetAllocator()),
                            oauth.GetAllocator());
    };
    copy("client_id", "clientId");
    copy("client_secret", "clientSecret");
    copy("private_key_pem", "privateKeyPem");
    copy("signing_algorithm", "signingAlgorithm");
    // A machine-to-machine deployment configures the client-credentials grant for its server.
    if (scenario.rfind("auth/client-credentials", 0) == 0) oauth.AddMember("grant", "client_credentials", oauth.GetAllocator());
    return oauth;
}

// SEP-2640 (skills), as an application would drive it: it lists the server's skills; in the
// verify-* scenarios it then loads each (reading the supporting files only of one that loaded),
// in no-prefetch it picks none, so nothing may be read. A skill that fails verification is an
// outcome the scenario expects: the reason is printed and the run goes on.
void run_skills_scenario(mcph::ClientSession& session, const std::string& scenario) {
    if (scenario.rfind("sep-2640-client-", 0) != 0 || !session.offers_skills()) return;
    const std::vector<mcph::Skill> skills = session.list_skills();
    std::cerr << "listed " << skills.size() << " skill(s)\n";
    if (scenario.rfind("sep-2640-client-verify-", 0) != 0) return;
    for (const mcph::Skill& skill : skills) {
        try {
            const mcph::LoadedSkill loaded = session.load_skill(skill);
            std::cerr << "loaded skill " << skill.name << "\n";
            for (const mcph::SkillFile& file : skill.files)
                if (file.uri != skill.uri) session.read_skill_file(loaded, file.uri);
        } catch (const mcph::Error& e) {
            std::cerr << "skill " << skill.name << " rejected: " << e.what() << "\n";
        }
    }
}

std::string config_for(const std::string& url, const std::string& scenario, bool with_oauth) {
    mcph::Json doc = mcph::parse_json(R"({"mcpServers":{"conformance":{"type":"http"}}})");
    auto& a = doc.GetAllocator();
    auto& server = doc["mcpServers"]["conformance"];
    server.AddMember("url", mcph::JsonValue(url.c_str(), a), a);
    if (with_oauth) server.AddMember("oauth", mcph::JsonValue(oauth_config(scenario), a), a);
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
        options.open_url = mcph::conformance::open_headless;
        options.secret_storage = mcph::HostOptions::SecretStorage::Memory;  // every scenario starts signed out
        mcph::Host host(options);
        // With an OAuth plugin installed the server is configured for OAuth, as a user would for a
        // remote server: it only acts when the server answers 401.
        host.add_config_json(config_for(argv[1], scenario ? scenario : "", has_auth_backend(host, "oauth")));
        auto session = host.connect("conformance");
        run_skills_scenario(*session, scenario ? scenario : "");
        const std::vector<mcph::Tool> tools = session->cached_tools();
        for (const mcph::Tool& tool : tools) {
            mcph::Json args = mcph::conformance::tool_arguments(tool, tools);
            try {
                mcph::CallToolResult result = session->call_tool(tool.name, args);
                std::cerr << "called " << tool.name << ": " << (result.is_error ? "tool error: " : "") << result.text() << "\n";
            } catch (const mcph::Error& e) {
                // A JSON-RPC error answers this one call (json-schema-ref-no-deref's server serves
                // only tools/list); an application reports it and goes on with the other tools.
                if (e.kind() != mcph::ErrorKind::Remote) throw;
                std::cerr << "called " << tool.name << ": remote error: " << e.what() << "\n";
            }
        }
        host.close();
        return 0;
    } catch (const mcph::Error& e) {
        std::cerr << "mcph-conformance: " << mcph::to_string(e.kind()) << " error: " << e.what() << "\n";
        return 1;
    }
}
