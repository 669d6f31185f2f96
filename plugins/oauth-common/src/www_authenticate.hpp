// A parser for the WWW-Authenticate header (RFC 9110 §11.6.1, RFC 6750 §3, RFC 9728 §5.1).
//
// The grammar is ambiguous to a naive split: commas separate both challenges and the parameters
// of one challenge, and values are tokens or quoted-strings with backslash escapes. A new
// challenge starts where a token is *not* followed by "=". Parsing is lenient where servers are
// known to be sloppy (unquoted URLs, stray commas) and never throws.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace mcph::oauth {

struct AuthChallenge {
    std::string scheme;                         // as sent
    std::string token68;                        // e.g. "Basic abc==" (rare for Bearer)
    std::map<std::string, std::string> params;  // names lower-cased; first occurrence wins
};

std::vector<AuthChallenge> parse_www_authenticate(std::string_view header);

// What the OAuth logic needs from the Bearer challenge — or, when there is none, the DPoP
// challenge (RFC 9449 §7.1) — with empty strings when absent.
struct BearerChallenge {
    bool present = false;
    std::string resource_metadata;
    std::string scope;
    std::string error;
    std::string error_description;
};
BearerChallenge bearer_challenge(std::string_view header);

}  // namespace mcph::oauth
