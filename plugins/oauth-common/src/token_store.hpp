// Persistence through the host's secret store (keychain or whatever the application provides).
//
// Keys are derived from SHA-256 over the server name, URL and configured client id, so two
// servers with the same name but different configs never share credentials (seed §18.5), and no
// key reveals which server it belongs to. Two records per server: the tokens (with everything a
// refresh needs, so a new process can refresh without discovery) and a dynamically registered
// client (kept across logins so we do not register a new client every time).
#pragma once

#include <mcph/plugin_api.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mcph::oauth {

// How we authenticate to the token endpoint, and as whom.
struct ClientIdentity {
    std::string client_id;
    std::string client_secret;
    std::string auth_method;  // client_secret_basic | client_secret_post | none | private_key_jwt
    std::string source;       // preregistered | cimd | dcr
    std::string issuer;       // DCR: the AS it was registered with
    std::string redirect_uri; // DCR: the redirect URI it was registered for
};

struct StoredTokens {
    std::string access_token;
    std::string refresh_token;
    std::string scope;       // granted (or requested when the AS did not say)
    int64_t expires_at = 0;  // unix seconds; 0 = unknown (treated as not expiring)
    std::string token_endpoint;
    std::string issuer;
    std::string resource;
    ClientIdentity client;
    std::string token_type = "Bearer";  // "DPoP": bound to the server's DPoP key (dpop.hpp)

    bool dpop_bound() const { return token_type == "DPoP"; }
};

// Seconds since the epoch: the unit of expires_at.
inline int64_t now_seconds() {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// True when the token expires within `seconds` from now (never, when its lifetime is unknown).
inline bool expires_within(const StoredTokens& t, int64_t seconds) {
    return t.expires_at != 0 && t.expires_at - now_seconds() < seconds;
}


std::string store_key_base(std::string_view server_name, std::string_view server_url, std::string_view client_id);

std::string serialize(const StoredTokens& t);
std::optional<StoredTokens> deserialize_tokens(std::string_view json);
std::string serialize(const ClientIdentity& c);
std::optional<ClientIdentity> deserialize_client(std::string_view json);

class TokenStore {
public:
    TokenStore(const mcph_host_services* host, std::string key_base);

    std::optional<StoredTokens> load_tokens() const;
    void save_tokens(const StoredTokens& t) const;
    void erase_tokens() const;
    std::optional<ClientIdentity> load_client() const;
    void save_client(const ClientIdentity& c) const;
    void erase_client() const;

    // Raw access to any key of the host's secret store (auth-xaa keeps its shared IdP id_token
    // there). get: nullopt when absent; set without a store: a no-op (memory only).
    std::optional<std::string> get(const std::string& key) const;
    void set(const std::string& key, const std::string& value) const;
    void erase(const std::string& key) const;

private:

    const mcph_host_services* host_;
    std::string tokens_key_;
    std::string client_key_;
};

}  // namespace mcph::oauth
