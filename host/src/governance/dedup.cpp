#include "governance/dedup.hpp"

#include "governance/server_signature.hpp"

#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace mcph::governance {
namespace {

bool is_manual(const config::ConfiguredServer& s) {
    return s.scope != config::Scope::Plugin && s.scope != config::Scope::Webapp;
}

// "server 'x' from plugin 'p'" / "connector 'x' from <endpoint>": where a synced copy came from.
std::string describe_synced(const config::ConfiguredServer& s) {
    if (s.scope == config::Scope::Webapp) return "connector '" + s.config.name + "' from " + s.origin;
    return "server '" + s.config.name + "' from plugin '" + s.plugin_source + "'";
}

// What the signature compared, in the words of the server's kind.
std::string what_was_same(const config::ServerConfig& server) {
    switch (signature_kind(server)) {
        case SignatureKind::Stdio: return "same command, env and inheritEnv";
        case SignatureKind::Sdk: return "same SDK server name";
        // The URL itself is not repeated: it may carry a token in its query.
        case SignatureKind::Remote: return "same URL and headers";
        case SignatureKind::Other: return "same " + server.type + " configuration";
    }
    return "same configuration";
}

std::string describe_kept(const config::ConfiguredServer& kept) {
    if (is_manual(kept)) return "manually configured server '" + kept.config.name + "'";
    return describe_synced(kept);
}

std::string suppression_reason(const config::ConfiguredServer& server, const config::ConfiguredServer& kept) {
    return describe_synced(server) + " is a duplicate of " +
           describe_kept(kept) + " (" + what_was_same(server.config) + ")";
}

// Signatures of different kinds never compare equal (server_signature.hpp: each begins with its
// kind, or with its type for the others), so a server needs one only when a synced server of its
// kind is there to compare with.
std::string kind_of(const config::ServerConfig& server) {
    switch (signature_kind(server)) {
        case SignatureKind::Stdio: return "stdio";
        case SignatureKind::Sdk: return "sdk";
        case SignatureKind::Remote: return "url";
        case SignatureKind::Other: break;
    }
    return server.type;
}

// For each server, the index of the server it duplicates (only ever set for plugin and webapp servers).
std::vector<std::optional<size_t>> find_duplicates(const std::vector<config::ConfiguredServer>& servers,
                                                   const ProxyUrlParams& params) {
    // Only a synced copy is ever dropped, and only for a server of its own kind: a server with no
    // synced server of its kind beside it gets no signature. That spares the usual config (manual
    // scopes only, or synced stdio servers) the URL parser, whose first use maps libcurl and its
    // ~30 dependencies (~7 ms and ~6 MB for a CLI one-shot that may never reach a remote server).
    std::unordered_set<std::string> synced_kinds;
    for (const auto& s : servers)
        if (!is_manual(s)) synced_kinds.insert(kind_of(s.config));
    std::vector<std::optional<std::string>> signatures;
    signatures.reserve(servers.size());
    for (const auto& s : servers)
        signatures.push_back(synced_kinds.count(kind_of(s.config)) ? std::optional(server_signature(s.config, params))
                                                                   : std::nullopt);
    // Manual servers first, wherever they sit in the list: they win over any plugin's copy.
    std::unordered_map<std::string, size_t> owner;
    for (size_t i = 0; i < servers.size(); ++i)
        if (is_manual(servers[i]) && signatures[i]) owner.try_emplace(*signatures[i], i);
    std::vector<std::optional<size_t>> duplicate_of(servers.size());
    for (size_t i = 0; i < servers.size(); ++i) {
        if (is_manual(servers[i])) continue;
        auto [it, first] = owner.try_emplace(*signatures[i], i);  // the first synced copy owns it
        if (!first) duplicate_of[i] = it->second;
    }
    return duplicate_of;
}

}  // namespace

DedupResult dedup_servers(std::vector<config::ConfiguredServer> servers, const ProxyUrlParams& proxy_params) {
    const std::vector<std::optional<size_t>> duplicate_of = find_duplicates(servers, proxy_params);
    // Reasons before any move: a reason names a kept server that may sit anywhere in the list.
    std::vector<std::string> reasons(servers.size()), kept_names(servers.size());
    for (size_t i = 0; i < servers.size(); ++i) {
        if (!duplicate_of[i]) continue;
        reasons[i] = suppression_reason(servers[i], servers[*duplicate_of[i]]);
        kept_names[i] = servers[*duplicate_of[i]].config.name;
    }
    DedupResult out;
    for (size_t i = 0; i < servers.size(); ++i) {
        if (!duplicate_of[i]) {
            out.kept.push_back(std::move(servers[i]));
            continue;
        }
        out.suppressed.push_back({std::move(servers[i]), std::move(kept_names[i]), std::move(reasons[i])});
    }
    return out;
}

}  // namespace mcph::governance
