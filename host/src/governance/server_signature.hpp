// Content signatures of server definitions (seed 000 §18.7): two definitions with the same signature
// reach the same server, whatever they are called, so dedup can keep one. Names are deliberately not
// part of a signature — a user's "my-slack" and a plugin's "slack-connector" are the same Slack.
#pragma once

#include "config/config_source.hpp"
#include "config/server_config.hpp"

#include <mcph/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace mcph::governance {

// Query parameters in which a rewriting proxy keeps the URL it stands in for. Web connectors reach a
// remote session through such a proxy, so the same server shows up once as its own URL and once as
// https://proxy/...?mcp_url=<encoded original>. "mcp_url" is the default; settings may name more
// ("proxyUrlParameters", config/connectors.hpp), never fewer.
inline constexpr std::string_view kDefaultProxyUrlParam = "mcp_url";
using ProxyUrlParams = std::vector<std::string>;
const ProxyUrlParams& default_proxy_url_params();  // {"mcp_url"}

// The URL with its scheme in lower case, its host canonical (url::canonical_host: case, trailing
// dots, IDN, IP literal spelling), a default port dropped and an empty path made "/" (libcurl's URL
// API does the parsing). Text libcurl cannot parse comes back unchanged.
std::string normalize_url(const std::string& url);

// The original URL behind a proxy-rewritten one (the value of the first of `params`, in their order,
// that the query has, decoded), or the URL itself when it is not a proxy URL; normalised either way.
std::string unwrap_proxy_url(const std::string& url, const ProxyUrlParams& params = default_proxy_url_params());

// Keys sorted (recursively, by bytes), no whitespace: equal JSON gives equal text however it was
// written, and any change of a value changes the text.
std::string canonical_json(const JsonValue& value);

// A stdio server's command followed by its args, from the entry's "command" and "args".
std::vector<std::string> stdio_command_line(const config::ServerConfig& server);

// Which rule server_signature() applied: dedup names it when it explains a suppression.
enum class SignatureKind { Stdio, Sdk, Remote, Other };
SignatureKind signature_kind(const config::ServerConfig& server);

//   stdio:  "stdio:" + ["command","arg"...] + "|env:" + sha256(canonical env)   (no env == {})
//           + "|inheritEnv:" + true or the sorted, unique list of names   (absent == false: nothing)
//           inheritEnv as the server receives it: its own, else the settings default given to it
//   sdk:    "sdk:" + name  (an in-process server is known only by its name)
//   remote: "url:" + unwrap_proxy_url(url, params) + "|headers:" + sha256(headers, names lower-cased, sorted)
//   other:  type + ":" + the canonical entry without its name
std::string server_signature(const config::ServerConfig& server, const ProxyUrlParams& params = default_proxy_url_params());

// sha256 of the whole canonical entry except its name: every field, including those that do not
// change which server it is (cwd, timeout, headersHelper, auth, ...). For approvals ("has this
// definition changed since the user approved it?"), where server_signature() is too coarse — a
// project file could add a headersHelper shell command without changing the signature. An XAA
// server's effective auth config (with the document's shared xaaIdp merged in) is covered too.
std::string definition_fingerprint(const config::ServerConfig& server);

// sha256 of the canonical JSON of the definition as written in its file, before ${VAR} expansion
// (ConfiguredServer::written_json): what an approval records. A token rotated in the environment
// keeps the approval; any change of the entry in the file (or of the shared xaaIdp) revokes it.
// What a stdio server inherits from the user's environment is covered too: its own "inheritEnv" is
// part of the entry, and a settings default given to it is recorded in the written form as
// "inheritEnvDefault" (layered_config.cpp), so widening either asks for the approval again.
// Falls back to definition_fingerprint when the written form is unknown.
std::string written_fingerprint(const config::ConfiguredServer& server);

}  // namespace mcph::governance
