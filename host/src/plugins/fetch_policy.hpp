// The safe-fetch policy handed to auth plugins as check_fetch_url (plugin_api.h): may the plugin
// fetch `url` (discovery, registration, token endpoints, each redirect hop) on behalf of the MCP
// server at `server_url`? A remote server's metadata must not make this machine send requests into
// its own loopback or private network (a Docker API, Redis, a cloud metadata endpoint).
//
//  - https only; http only to a loopback host (RFC 8252 §8.3);
//  - loopback, private, link-local, CGNAT, benchmarking and unspecified addresses — in any spelling,
//    IPv4-mapped / -compatible / NAT64 / 6to4 IPv6 included — only when the server itself is local;
//  - multicast, broadcast and reserved (documentation, 240/4) addresses never.
//
// A DNS name is judged where it resolves: the plugin checks the address it actually connects to by
// calling the same policy with "scheme://<address>:<port>/" from libcurl's open-socket callback
// (oauth-common/http_client.cpp), which also closes DNS rebinding between check and connect.
#pragma once

#include <string>

namespace mcph::plugins {

// Empty when allowed, else the reason (URLs in it redacted).
std::string check_fetch_url(const std::string& url, const std::string& server_url);

// Is the MCP server at `server_url` on this machine or its network, going by the URL the user
// configured (never by what its name resolves to — an attacker's DNS could say anything)? A
// loopback, private or unspecified address literal; "localhost" or a name under .localhost,
// .local, .internal or .home.arpa; or a single-label name ("mcp", a compose service).
bool is_local_server(const std::string& server_url);

}  // namespace mcph::plugins
