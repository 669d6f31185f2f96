// From the configuration to the table of servers the host connects: every layer read (or only
// the application's documents), plugin duplicates suppressed, the allow/deny policy applied, and
// project servers held back until the user approves them. Whatever is left out is reported with
// its reason — never silently dropped (seed 000 §18.7, §18.9).
#include "governance/dedup.hpp"
#include "governance/policy.hpp"
#include "governance/server_signature.hpp"
#include "host/host_impl.hpp"
#include "url/redact.hpp"

namespace mcph {
namespace {

// Reasons may quote a server's URL (a policy decision, a config problem): redacted at the source,
// for every view of the report.
ExcludedServer excluded(const config::ConfiguredServer& server, const std::string& reason) {
    return ExcludedServer{server.config.name, std::string(config::scope_name(server.scope)), server.origin,
                          server.plugin_source, url::redact_urls_in_text(reason)};
}

bool same_definition(const config::ConfiguredServer& a, const config::ConfiguredServer& b) {
    return a.config.config_json == b.config.config_json && a.config.disabled == b.config.disabled && a.scope == b.scope;
}

// What the approval store says about a server; a store that cannot be read approves nothing.
struct ApprovalLookup {
    std::optional<config::Approval> approval;
    std::string error;
};

}  // namespace

// A project's and a local definition belong to one project; the others are the same everywhere.
config::ApprovalKey Host::Impl::approval_key(const config::ConfiguredServer& server) const {
    const bool per_project = server.scope == config::Scope::Project || server.scope == config::Scope::Local;
    return {std::string(config::scope_name(server.scope)), server.origin, per_project ? server.project_root : std::string(),
            server.config.name};
}

namespace {

// Every lower definition a server replaced from another scope. A project definition replacing the
// user's is the case that matters (a repository taking over a name the user trusts), so its reason
// says what approving it would mean.
void report_shadowing(const config::ConfiguredServer& s, ConfigReport& report) {
    const std::string by_scope(config::scope_name(s.scope));
    for (const auto& hidden : s.shadows) {
        if (hidden.scope == s.scope) continue;  // a closer .mcp.json over a farther one: one project
        const std::string scope(config::scope_name(hidden.scope));
        std::string reason = "your " + scope + "-scope '" + s.config.name + "' (" + hidden.origin + ") is replaced by the " +
                             by_scope + " definition in " + s.origin;
        if (s.scope == config::Scope::Project)
            reason += "; `mcph approve " + s.config.name + "` would approve the project's definition, not yours";
        report.shadowed.push_back({s.config.name, scope, hidden.origin, by_scope, s.origin, std::move(reason)});
    }
}

}  // namespace

// ${input:id} (config/inputs.hpp): the answer kept in the secret store, else the embedder's
// ask_input, whose answer is then kept there — so each input of each file is asked once.
config::KeptInputs Host::Impl::kept_inputs() const { return {secrets, services->bindings().lock_folder()}; }

config::InputResolver Host::Impl::input_resolver() {
    return [this](const config::InputQuestion& q) -> std::optional<std::string> {
        // A repository's file asks nothing before its server is approved: the question's text is
        // the repository's, and a prompt is no place for it to phish from. Until then the entry
        // loads with an empty value (it cannot connect unapproved); once approved, it is asked.
        if (q.scope == config::Scope::Project) {
            std::optional<config::Approval> approved;
            try {
                approved = approvals.find({std::string(config::scope_name(q.scope)), q.origin, q.project_root, q.server});
            } catch (const std::exception&) {
            }
            if (!approved) return std::string();
        }
        // Kept under the file's canonical path (`./a.json` and `$PWD/a.json` are one file), with an
        // index entry for `mcph inputs list` (config/kept_inputs.hpp).
        const std::string place = q.file.empty() ? q.origin : q.file;
        const config::KeptAnswer entry{config::input_secret_key(place, q.input.id), q.file,          q.origin,
                                       q.input.id,                                 q.input.description, q.input.password};
        try {
            if (secrets) {
                config::KeptInputs kept = kept_inputs();
                if (std::optional<std::string> answer = kept.find(entry)) return answer;
                // Answers kept before keys were canonical are under the origin as typed
                // ("--mcp-config ./a.json"): when that spelling is met again, the answer moves.
                if (std::optional<std::string> answer = kept.adopt(config::input_secret_key(q.origin, q.input.id), entry))
                    return answer;
            }
        } catch (const std::exception& e) {
            if (options.logger) options.logger(LogLevel::Warn, "inputs", std::string("cannot read a kept input: ") + e.what());
        }
        if (!options.ask_input) return std::nullopt;
        std::optional<std::string> answer = options.ask_input(InputRequest{q.origin, q.server, q.input.id, q.input.description,
                                                                           q.input.password, q.input.default_value, q.input.options});
        try {
            if (answer && secrets) kept_inputs().keep(entry, *answer);
        } catch (const std::exception& e) {
            if (options.logger) options.logger(LogLevel::Warn, "inputs", std::string("cannot keep an input's answer: ") + e.what());
        }
        return answer;
    };
}

void Host::Impl::load_servers() {
    std::vector<config::DynamicConfig> documents;
    {
        std::lock_guard lock(mutex);
        documents = dynamic;
    }
    config::LayeredConfig layered =
        options.load_layered_config
            ? config::load_layered_config(locations, documents, {}, config::lookup_process_environment, input_resolver())
            : config::load_dynamic_config(documents, config::lookup_process_environment, input_resolver());
    ConfigReport next_report;
    next_report.enterprise_exclusive = layered.enterprise_exclusive;
    next_report.legacy_local_settings = layered.legacy_local_file.string();
    next_report.local_settings = locations.local_settings_file().string();
    if (layered.webapp) {
        next_report.webapp_endpoint = layered.webapp->origin;
        next_report.webapp_stale = layered.webapp->stale;
        next_report.webapp_error = url::redact_urls_in_text(layered.webapp->fetch_error);
        // A warning, not a config problem: the service being down costs only freshness.
        if (!next_report.webapp_error.empty() && options.logger)
            options.logger(LogLevel::Warn, "connectors",
                           next_report.webapp_error + (layered.webapp->stale ? " (using the cached connector list, marked stale)"
                                                                             : " (no cached connector list)"));
    }
    next_report.managed_endpoint = layered.managed_endpoint;
    next_report.managed_from_cache = layered.managed_from_cache;
    next_report.managed_error = url::redact_urls_in_text(layered.managed_fetch_error);
    if (layered.managed_from_cache && options.logger)
        options.logger(LogLevel::Warn, "managed", next_report.managed_error + " (using the cached managed settings: useCachedOnFailure)");
    for (const auto& s : layered.servers) report_shadowing(s, next_report);
    for (const auto& p : layered.problems)
        next_report.problems.push_back({p.server, "", p.origin, "", url::redact_urls_in_text(p.message), p.written});
    if (layered.policy.fail_closed) next_report.problems.push_back({"", "", "policy", "", layered.policy.fail_closed_reason});

    std::map<std::string, config::ConfiguredServer> all;
    for (const auto& s : layered.servers) all[s.config.name] = s;
    auto deduped = governance::dedup_servers(layered.servers, layered.policy.proxy_url_parameters);
    for (const auto& s : deduped.suppressed) next_report.suppressed_duplicates.push_back(excluded(s.server, s.reason));

    auto lookup = [&](const config::ConfiguredServer& s) {
        ApprovalLookup out;
        try {
            out.approval = approvals.find(approval_key(s));
        } catch (const Error& e) {
            out.error = e.what();
        }
        return out;
    };
    std::vector<config::ConfiguredServer> eligible;
    std::map<std::string, config::Pins> next_pins;
    for (const auto& s : deduped.kept) {
        const std::string& name = s.config.name;
        auto decision = governance::check_server_allowed(s.config, layered.policy);
        if (!decision.allowed) {
            next_report.denied.push_back(excluded(s, decision.reason));
            continue;
        }
        auto found = lookup(s);
        if (s.scope == config::Scope::Project) {
            if (!found.error.empty()) {
                next_report.unapproved.push_back(excluded(s, "approvals cannot be read: " + found.error));
                continue;
            }
            if (!found.approval) {
                next_report.unapproved.push_back(
                    excluded(s, "project servers need your approval before they connect: review " + s.origin +
                                    " and run `mcph approve " + name + "`"));
                continue;
            }
            if (found.approval->signature != governance::written_fingerprint(s)) {
                next_report.unapproved.push_back(
                    excluded(s, "its definition changed since you approved it: review " + s.origin + " and run `mcph approve " +
                                    name + "`"));
                continue;
            }
        } else if (!found.error.empty()) {
            // Whether this server was approved (and what was pinned) cannot be known: everything it
            // shows is held back rather than let through unpinned, until the store is fixed.
            next_report.problems.push_back({name, "", "approvals", "", found.error + " (its tools are withheld meanwhile)"});
            next_pins[name] = config::Pins{};
        }
        if (found.approval) next_pins[name] = found.approval->pins;
        eligible.push_back(s);
    }

    std::vector<std::shared_ptr<connection::ServerConnection>> retired;
    {
        std::lock_guard lock(mutex);
        std::map<std::string, std::shared_ptr<connection::ServerConnection>> next;
        std::vector<std::string> next_order;
        for (const auto& s : eligible) {
            const std::string& name = s.config.name;
            next_order.push_back(name);
            auto it = connections.find(name);
            if (it != connections.end() && same_definition(it->second->server(), s)) {
                next[name] = it->second;
                continue;
            }
            if (it != connections.end()) retired.push_back(it->second);
            next[name] = make_connection(s);
        }
        for (auto& [name, connection] : connections)
            if (!next.count(name)) retired.push_back(connection);
        connections = std::move(next);
        order = std::move(next_order);
        every_server = std::move(all);
        pins = std::move(next_pins);
        report = std::move(next_report);
        policy = layered.policy;
        review_inputs_changed();  // pins, policy and table as one change: no review sees half of it
    }
    for (auto& connection : retired) connection->shutdown();
}

}  // namespace mcph
