// The server's "oauth" config object (auth_config_json), parsed and validated up front so a
// typo fails at create time, not in the middle of a browser flow.
#pragma once

#include "workload_assertion.hpp"
#include "dpop.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcph::oauth {

// jwt_bearer: workload identity federation, RFC 7523 §2.1 (no browser, no client secret needed).
enum class Grant { authorization_code, client_credentials, jwt_bearer };

struct OAuthConfig {
    std::string client_id;
    std::string client_secret;
    std::string client_metadata_url;  // CIMD: an https URL used as client_id
    uint16_t callback_port = 0;       // 0: any free port
    std::string callback_path = "/callback";
    std::optional<std::vector<std::string>> scopes;  // override of the scope selection
    Grant grant = Grant::authorization_code;
    std::string private_key_pem;           // private_key_jwt (RFC 7523) for client_credentials
    std::string signing_algorithm = "ES256";
    std::string token_endpoint_auth_method;  // override
    long auth_timeout_ms = 300000;           // how long the browser step may take
    long http_timeout_ms = 30000;
    std::string client_name = "mcph";
    AssertionSourceConfig assertion;  // jwt_bearer: where the workload's JWT comes from
    DpopPolicy dpop = DpopPolicy::automatic;  // "dpop": "auto" | true | false (RFC 9449)
};

// Throws mcph::plugin::ConfigException (MCPH_ERR_INVALID_ARGUMENT) on a bad config, naming the field.
OAuthConfig parse_config(std::string_view json);

}  // namespace mcph::oauth
