// One server from many channels (seed 000 §18.7): a server the user configured by hand and the same
// server brought in by a plugin or synced from the web (a webapp connector) would give the model two
// sets of the same tools. Duplicates are found by content signature (governance/server_signature.hpp,
// proxy URLs unwrapped by every configured parameter name), never by name, and the plugin's or
// connector's copy is suppressed — reported with a reason for the UI, not silently dropped.
#pragma once

#include "config/config_source.hpp"
#include "governance/server_signature.hpp"

#include <string>
#include <vector>

namespace mcph::governance {

struct SuppressedServer {
    config::ConfiguredServer server;
    std::string duplicate_of;  // the name of the server that was kept instead
    std::string reason;        // for people: which plugin, which kept server, what was the same
};

struct DedupResult {
    std::vector<config::ConfiguredServer> kept;  // in input order
    std::vector<SuppressedServer> suppressed;    // in input order
};

// Servers of every scope but Plugin and Webapp ("manual") are always kept, even when two of them are
// the same: the user configured both, and the merge by name already happened. A Plugin- or
// Webapp-scope server is suppressed when its signature equals a manual server's (wherever that
// appears in the list) or an earlier kept plugin / connector server's (plugins come first in the
// list, being the lower scope). Disabled servers count like any other: a user who disabled their
// Slack does not want a plugin's Slack to take its place.
DedupResult dedup_servers(std::vector<config::ConfiguredServer> servers,
                          const ProxyUrlParams& proxy_params = default_proxy_url_params());

}  // namespace mcph::governance
