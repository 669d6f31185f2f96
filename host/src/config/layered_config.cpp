#include "config/layered_config.hpp"

#include "config/atomic_write.hpp"
#include "config/config_roots.hpp"
#include "config/connectors.hpp"
#include "config/file_trust.hpp"
#include "config/inherit_env.hpp"
#include "config/inputs.hpp"
#include "config/kept_inputs.hpp"
#include "config/jsonc.hpp"
#include "config/managed_endpoint.hpp"
#include "json/json_access.hpp"

#include <mcph/error.hpp>

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

namespace mcph::config {
namespace {

using governance::PolicyRule;
using Rules = std::vector<PolicyRule>;

// A JSON object read from a file or given as text. `error` says why it cannot be used.
struct Document {
    bool present = false;
    Json doc;
    std::string error;
};

Document parse_document(std::string_view text, const std::string& origin) {
    Document out;
    out.present = true;
    try {
        out.doc = parse_config_json(text, origin);  // files people edit: comments and trailing commas
    } catch (const Error& e) {
        out.error = e.what();
        return out;
    }
    if (!out.doc.IsObject()) out.error = origin + ": the file must hold a JSON object";
    return out;
}

// Who may have written each kind of file (file_trust.hpp).
constexpr TrustRule kAdminFile{Owner::CurrentUserOrRoot, true};
constexpr TrustRule kPrivateFile{Owner::CurrentUser, false};  // the config home's files
constexpr TrustRule kRepositoryFile{Owner::CurrentUser, true};
constexpr TrustRule kPluginFile{Owner::CurrentUserOrRoot, true};

Document refused(const std::string& why) {
    Document out;
    out.present = true;
    out.error = why;
    return out;
}

// A file is read only when its owner and mode say nobody else wrote it; a file inside the
// repository (`confined_to`) also only when no symlink leads out of it.
Document read_document(const fs::path& path, TrustRule rule, const fs::path& confined_to = {}) {
    std::error_code ec;
    if (!confined_to.empty() && fs::exists(path, ec) && !resolves_inside(path, confined_to))
        return refused(path.string() + " is a symlink leading out of the project " + confined_to.string() +
                       "; refusing to read it (a repository's files must not make mcph read yours)");
    std::optional<std::string> text;
    try {
        text = read_trusted_file(path, rule);
    } catch (const Error& e) {
        Document out;
        out.present = true;
        out.error = e.what();
        return out;
    }
    if (!text) return {};
    return parse_document(*text, path.string());
}

// Where a document's servers come from, and what each of them is tagged with.
struct Source {
    Scope scope;
    std::string origin;
    std::string plugin_source;
    std::string project_root;
    // Off for what a web service sent (connectors.hpp): it must not read this machine's environment.
    bool expand_variables = true;
    std::string file = {};  // the document's file, where it is one (inputs are kept per canonical file)
};

// The object holding a document's server definitions: "mcpServers", or VS Code's "servers" where
// that shape is accepted. nullptr when neither is there and `required` is false. Throws naming the
// origin when the shape is wrong.
const JsonValue* servers_of(const JsonValue& doc, const std::string& origin, bool vscode_shape, bool required) {
    const JsonValue* servers = json::member(doc, "mcpServers");
    if (!servers && vscode_shape) servers = json::member(doc, "servers");
    if (!servers && required)
        throw Error(ErrorKind::Usage, origin + ": expected {\"mcpServers\": {...}}" +
                                          (vscode_shape ? " (or VS Code's {\"servers\": {...}})" : ""));
    if (servers && !servers->IsObject())
        throw Error(ErrorKind::Usage, origin + ": mcpServers must be an object of server definitions");
    return servers;
}

// The shared enterprise IdP of XAA servers ("xaaIdp"), as parse_mcp_config reads it.
const JsonValue* xaa_idp_of(const JsonValue& doc, const std::string& origin) {
    const JsonValue* idp = json::member(doc, "xaaIdp");
    if (idp && !idp->IsObject()) throw Error(ErrorKind::Usage, origin + ": xaaIdp must be an object");
    return idp;
}

// Servers by name, whole-entry replacement, in the order names were first defined.
class ServerTable {
public:
    void put(ConfiguredServer server) {
        auto [it, inserted] = index_.try_emplace(server.config.name, servers_.size());
        if (inserted) {
            servers_.push_back(std::move(server));
            return;
        }
        ConfiguredServer& old = servers_[it->second];
        server.shadows = std::move(old.shadows);
        if (old.origin != server.origin) server.shadows.push_back({old.scope, old.origin});
        old = std::move(server);
    }
    std::vector<ConfiguredServer> take() { return std::move(servers_); }

private:
    std::vector<ConfiguredServer> servers_;
    std::map<std::string, size_t> index_;
};

// {"entry": <as written>, "xaaIdp": <shared idp or null>} — hashed for approvals.
std::string written(const JsonValue& entry, const JsonValue* xaa_idp) {
    Json doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("entry", JsonValue(entry, a), a);
    doc.AddMember("xaaIdp", xaa_idp ? JsonValue(*xaa_idp, a) : JsonValue(rapidjson::kNullType), a);
    return to_json(doc);
}

// A default "inheritEnv" is the user's choice alone: from a repository's file it would hand the
// user's secrets (tokens, keys in the environment) to every server the repository names.
std::string ignored_inherit_env_default(const Source& source) {
    return source.origin + ": \"inheritEnv\" at the top of this file is ignored: a default for every server is read only "
                           "from your own settings (settings.json in the config home, or this project's local settings) "
                           "and the administrator's managed settings" +
           std::string(source.scope == Scope::Project ? ", never from a repository's file, which anyone who can commit may "
                                                        "write; a server of this file may set its own \"inheritEnv\", which "
                                                        "`mcph approve` shows"
                                                      : "");
}

// A settings default given to a server: recorded beside its written form as "inheritEnvDefault",
// so that what an approval hashes (governance::written_fingerprint) covers what the server
// receives — turning the default on, or changing it, asks again for the approval of a project
// server that inherits it. Absent when no default applies, so existing approvals stay valid.
void give_inherit_env_default(ConfiguredServer& server, const std::string& value_json, const std::string& from) {
    if (!apply_inherit_env_default(server.config, value_json, from) || server.written_json.empty()) return;
    Json written = parse_json(server.written_json, "written definition");
    auto& a = written.GetAllocator();
    written.AddMember("inheritEnvDefault", JsonValue(parse_json(value_json, "inheritEnv"), a), a);
    server.written_json = to_json(written);
}

// Everything one pass over the sources needs.
struct Loader {
    const VariableLookup& lookup;
    const InputResolver& resolver;
    std::string workspace;  // ${workspaceFolder}; empty: the cwd
    ServerTable table;
    std::vector<ConfigProblem> problems;
    // Answers (or their absence) by (file, input id): each input is asked once per load.
    std::map<std::pair<std::string, std::string>, std::optional<std::string>> answers;

    // ${input:id} of one server: the document's input, answered by the resolver, or an error
    // naming it (the server is then a problem of its own; the other servers load).
    ExpansionContext context_for(const std::string& name, const Source& source,
                                 const std::map<std::string, InputSpec>* inputs) {
        ExpansionContext context;
        context.workspace_folder = workspace;
        if (!inputs) return context;
        context.input = [this, inputs, name, origin = source.origin, scope = source.scope, root = source.project_root,
                         file = source.file](std::string_view id) -> std::string {
            auto it = inputs->find(std::string(id));
            if (it == inputs->end())
                throw Error(ErrorKind::Usage, "${input:" + std::string(id) + "}: no input with that id in \"inputs\"");
            // A project file's question depends on its server's approval: memoised per server.
            auto [memo, first] = answers.try_emplace({scope == Scope::Project ? origin + "\n" + name : origin, it->second.id});
            if (first && resolver)
                memo->second = resolver(
                    InputQuestion{origin, name, it->second, scope, root, file.empty() ? std::string() : canonical_input_place(file)});
            const std::optional<std::string>& answer = memo->second;
            if (!answer)
                throw Error(ErrorKind::Usage, "input '" + it->second.id + "'" +
                                                  (it->second.description.empty() ? "" : " (" + it->second.description + ")") +
                                                  " has no answer (an input is asked for once, on a terminal, and the answer "
                                                  "kept in the secret store; here nobody could be asked, or it was declined)");
            return *answer;
        };
        return context;
    }

    // "roots" resolved where the file stands (config_roots.hpp): a relative path from a project
    // file's folder (and the result inside the repository), from the project root for the local
    // settings and runtime documents (--mcp-config, the API), else from the defining file's folder.
    // A connector service's list is refused: a web service has no business naming local folders.
    std::vector<fs::path> roots_of(const std::vector<std::string>& written, const Source& source, const std::string& where) const {
        if (source.scope == Scope::Webapp)
            throw Error(ErrorKind::Usage, where + "roots are not accepted from a connector service");
        const fs::path origin(source.origin);
        const bool file_folder = source.scope != Scope::Local && source.scope != Scope::Dynamic && origin.is_absolute();
        const fs::path base = file_folder ? origin.parent_path() : fs::path(workspace);
        const fs::path confined_to = source.scope == Scope::Project ? fs::path(source.project_root) : fs::path();
        return resolve_roots(written, base, confined_to, lookup, where);
    }

    // The default "roots" of a user or local settings file (every server without its own list):
    // expanded like a server's, resolved from the file's folder (user) or the project root (local).
    // A bad list is a problem of the file, and ignored.
    std::optional<std::vector<fs::path>> settings_roots(const Document& file, const Source& source) {
        if (!file.present || !file.error.empty()) return std::nullopt;
        try {
            return default_roots(roots_member(file.doc, source.origin + ": "), source);
        } catch (const Error& e) {
            problems.push_back({source.origin, "", std::string(e.what()) + "; the default roots are ignored"});
            return std::nullopt;
        }
    }

    // A default list already read (`written`, nullopt: none) expanded and resolved as above; a
    // list that cannot be resolved here (a folder missing on this machine) is a problem of the file.
    std::optional<std::vector<fs::path>> default_roots(std::optional<std::vector<std::string>> written, const Source& source) {
        if (!written) return std::nullopt;
        try {
            ExpansionContext context;
            context.workspace_folder = workspace;
            for (std::string& entry : *written) entry = expand_variables(entry, lookup, context);
            return roots_of(*written, source, source.origin + ": ");
        } catch (const Error& e) {
            problems.push_back({source.origin, "", std::string(e.what()) + "; the default roots are ignored"});
            return std::nullopt;
        }
    }

    // Each entry expanded then validated on its own: one bad entry costs only itself.
    void add_servers(const JsonValue& servers, const JsonValue* xaa_idp, const Source& source,
                     const std::map<std::string, InputSpec>* inputs = nullptr) {
        for (const auto& m : servers.GetObject()) {
            const std::string name(json::view(m.name));
            try {
                Json entry;
                entry.CopyFrom(m.value, entry.GetAllocator());
                if (source.expand_variables)
                    expand_server_entry(entry, entry.GetAllocator(), name, lookup, context_for(name, source, inputs));
                ConfiguredServer server{parse_server_config(name, entry), source.scope, source.origin,
                                        source.plugin_source, source.project_root, written(m.value, xaa_idp), {}};
                // A repository's envFile must stay inside the repository (env_file.hpp).
                if (source.scope == Scope::Project) server.config.env_file_confined_to = source.project_root;
                if (server.config.written_roots)
                    server.config.roots = roots_of(*server.config.written_roots, source, "server '" + name + "': ");
                if (xaa_idp) share_xaa_idp(*xaa_idp, server.config);
                table.put(std::move(server));
            } catch (const Error& e) {
                problems.push_back({source.origin, name, e.what(), to_json(m.value)});
            }
        }
    }

    // A whole document whose servers are optional (settings files) or required (.mcp.json files).
    void add_document(const Document& d, const Source& source, bool vscode_shape, bool required) {
        if (!d.present) return;
        if (!d.error.empty()) {
            problems.push_back({source.origin, "", d.error});
            return;
        }
        if (source.scope != Scope::User && source.scope != Scope::Local && json::member(d.doc, "inheritEnv"))
            problems.push_back({source.origin, "", ignored_inherit_env_default(source)});
        try {
            const JsonValue* servers = servers_of(d.doc, source.origin, vscode_shape, required);
            const JsonValue* idp = xaa_idp_of(d.doc, source.origin);
            // VS Code's "inputs": a bad input definition is a problem; only its users fail.
            std::vector<std::string> input_problems;
            const std::map<std::string, InputSpec> inputs = read_inputs(d.doc, source.origin, input_problems);
            for (std::string& p : input_problems) problems.push_back({source.origin, "", std::move(p)});
            if (servers) add_servers(*servers, idp, source, json::member(d.doc, "inputs") ? &inputs : nullptr);
        } catch (const Error& e) {
            problems.push_back({source.origin, "", e.what()});
        }
    }

    void add_plugin_dir(const fs::path& dir) {
        std::error_code ec;
        if (!fs::is_directory(dir, ec)) return;  // a plugin without servers has no folder
        std::vector<fs::path> files;
        for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
            const std::string name = it->path().filename().string();
            constexpr std::string_view suffix = ".mcp.json";
            std::error_code type_ec;  // one unreadable entry must not end the listing
            if (name.size() > suffix.size() && name.ends_with(suffix) && it->is_regular_file(type_ec)) files.push_back(it->path());
        }
        if (ec) problems.push_back({dir.string(), "", "cannot list the folder: " + ec.message()});
        std::sort(files.begin(), files.end());  // a stable order whatever the directory order is
        for (const fs::path& file : files) {
            const std::string name = file.filename().string();
            const std::string plugin = name.substr(0, name.size() - std::string_view(".mcp.json").size());
            add_document(read_document(file, kPluginFile), {Scope::Plugin, file.string(), plugin, "", true, file.string()}, true, true);
        }
    }
};

std::optional<Rules> rules_of(const JsonValue& doc, const char* field, const std::string& origin) {
    const JsonValue* list = json::member(doc, field);
    if (!list) return std::nullopt;
    return governance::parse_policy_rules(*list, origin, field);
}

void append(Rules& to, Rules from) { std::move(from.begin(), from.end(), std::back_inserter(to)); }

// The list, now defined (an allow list that exists, even empty, restricts; an absent one does not).
Rules& defined(std::optional<Rules>& list) { return list ? *list : list.emplace(); }

bool bool_setting(const JsonValue& doc, const char* field, const std::string& origin) {
    const JsonValue* v = json::member(doc, field);
    if (!v) return false;
    if (!v->IsBool()) throw Error(ErrorKind::Usage, origin + ": " + field + " must be true or false");
    return v->GetBool();
}

// What the administrator's files say about policy. Any problem here throws: the caller fails closed.
struct AdminPolicy {
    std::optional<Rules> allowed;
    Rules denied;
    // Defaults for every server, as in the user's settings; the administrator's win over the user's
    // and the local ones (the last managed document's, like connectors). Shape-checked here.
    std::string inherit_env_json, inherit_env_origin;
    std::optional<std::vector<std::string>> roots;
    std::string roots_origin;
    bool managed_allow_list_only = false;
    bool plugin_only_agents = false;
    bool withhold_flagged_tools = false;
    std::optional<ConnectorEndpoint> connectors;  // the last managed document's "connectors" wins

    void read(const JsonValue& doc, const std::string& origin, bool settings_file) {
        if (auto allow = rules_of(doc, "allowedMcpServers", origin)) append(defined(allowed), std::move(*allow));
        if (auto deny = rules_of(doc, "deniedMcpServers", origin)) append(denied, std::move(*deny));
        if (!settings_file) return;
        // |=: the file and the endpoint's document are both read; a flag either sets is set.
        managed_allow_list_only |= bool_setting(doc, "allowManagedMcpServersOnly", origin);
        plugin_only_agents |= bool_setting(doc, "pluginOnlyMcpServers", origin);
        withhold_flagged_tools |= bool_setting(doc, "withholdFlaggedTools", origin);
        if (const JsonValue* c = json::member(doc, "connectors")) connectors = parse_connector_endpoint(*c, origin);
        if (const JsonValue* inherit = json::member(doc, "inheritEnv")) {
            if (std::optional<std::string> problem = inherit_env_problem(*inherit))
                throw Error(ErrorKind::Usage, origin + ": inheritEnv " + *problem);
            inherit_env_json = to_json(*inherit);
            inherit_env_origin = origin;
        }
        if (std::optional<std::vector<std::string>> list = roots_member(doc, origin + ": ")) {
            roots = std::move(list);
            roots_origin = origin;
        }
    }
};

// A user or local settings file: its own servers plus lists about servers defined anywhere.
// A bad list is reported and ignored; the rest of the file still counts.
struct PersonalSettings {
    Document file;
    std::string origin;
    std::optional<Rules> allowed;
    Rules denied;
    std::set<std::string> disabled;
    std::set<std::string> enabled;
    bool withhold_flagged_tools = false;
    std::optional<ConnectorEndpoint> connectors;
    std::string inherit_env_json;  // the file's default "inheritEnv" (compact JSON); empty: none

    void read(const fs::path& path, std::vector<ConfigProblem>& problems, const std::optional<std::string>& home_problem) {
        origin = path.string();
        std::error_code ec;
        file = home_problem && fs::exists(path, ec) ? refused(*home_problem + " (so " + origin + " is not used)")
                                                    : read_document(path, kPrivateFile);
        if (!file.error.empty()) {
            // Reported here, since under an enterprise file the loader never reads this file's
            // servers; then treated as absent so it is not reported twice.
            problems.push_back({origin, "", file.error});
            file.present = false;
        }
        if (!file.present) return;
        guarded(problems, [&] { allowed = rules_of(file.doc, "allowedMcpServers", origin); });
        guarded(problems, [&] {
            if (auto deny = rules_of(file.doc, "deniedMcpServers", origin)) denied = std::move(*deny);
        });
        guarded(problems, [&] { disabled = names_of("disabledMcpServers"); });
        guarded(problems, [&] { enabled = names_of("enabledMcpServers"); });
        guarded(problems, [&] { withhold_flagged_tools = bool_setting(file.doc, "withholdFlaggedTools", origin); });
        if (const JsonValue* inherit = json::member(file.doc, "inheritEnv")) {
            if (std::optional<std::string> problem = inherit_env_problem(*inherit))
                problems.push_back({origin, "", origin + ": inheritEnv " + *problem + "; the default is not used"});
            else
                inherit_env_json = to_json(*inherit);
        }
        try {
            if (const JsonValue* c = json::member(file.doc, "connectors")) connectors = parse_connector_endpoint(*c, origin);
        } catch (const Error& e) {
            problems.push_back({origin, "", std::string(e.what()) + "; no connectors are synced"});
        }
    }

    // Applied user first, then local, so local wins; within one file enabled beats disabled.
    void apply(ServerConfig& config) const {
        if (disabled.count(config.name)) config.disabled = true;
        if (enabled.count(config.name)) config.disabled = false;
    }

private:
    template <class F>
    void guarded(std::vector<ConfigProblem>& problems, F&& read_list) {
        try {
            read_list();
        } catch (const Error& e) {
            problems.push_back({origin, "", std::string(e.what()) + "; the list is ignored"});
        }
    }

    std::set<std::string> names_of(const char* field) const {
        std::set<std::string> out;
        const JsonValue* list = json::member(file.doc, field);
        if (!list) return out;
        if (!list->IsArray()) throw Error(ErrorKind::Usage, origin + ": " + field + " must be an array of server names");
        for (const JsonValue& name : list->GetArray()) {
            if (!name.IsString()) throw Error(ErrorKind::Usage, origin + ": " + field + " must contain only server names");
            out.emplace(json::view(name));
        }
        return out;
    }
};

// allowManagedMcpServersOnly: only the administrator's allow list counts. When the administrator set
// the flag without any list, nothing is allowed: the flag exists to stop users from widening the
// allow list, and "everything allowed" would silently defeat it — failing safe, visibly, is the
// better reading of a half-finished policy.
std::optional<Rules> combine_allowed(const AdminPolicy& admin, const PersonalSettings& user, const PersonalSettings& local) {
    if (admin.managed_allow_list_only) return admin.allowed.value_or(Rules{});
    std::optional<Rules> out;
    for (const std::optional<Rules>* list : {&admin.allowed, &user.allowed, &local.allowed})
        if (*list) append(defined(out), **list);
    return out;
}

// Says what happens to a settings.local.json inside the work tree, and how to make it the user's.
std::string legacy_local_warning(const Document& legacy, const ConfigLocations& locations) {
    const std::string prefix = legacy.error.empty() ? "" : legacy.error + "; besides, ";
    return prefix + "this file is inside the project, where anyone who can commit can write it, so it is not trusted as "
                    "your local settings: its servers are project servers (they need `mcph approve`), and its "
                    "allowedMcpServers, deniedMcpServers, enabledMcpServers and disabledMcpServers are ignored. If you "
                    "wrote it, run `mcph migrate-local` to move it to " +
           locations.local_settings_file().string();
}

LayeredConfig fail_closed(LayeredConfig out, const std::string& reason,
                          std::string_view until = "the administrator's file is fixed") {
    out.servers.clear();
    out.problems.clear();
    out.webapp.reset();
    out.policy = {};
    out.policy.fail_closed = true;
    out.policy.fail_closed_reason = reason + " (no MCP server may connect until " + std::string(until) + ")";
    return out;
}

constexpr std::string_view kUntilEndpoint = "the managed settings endpoint answers with valid settings";

// "mcp_url" and every name a connectors setting adds, once each, in that order.
std::vector<std::string> proxy_url_parameters(const AdminPolicy& admin, const PersonalSettings& user) {
    std::vector<std::string> out{"mcp_url"};
    for (const std::optional<ConnectorEndpoint>* c : {&admin.connectors, &user.connectors})
        if (*c)
            for (const std::string& name : (*c)->proxy_url_parameters)
                if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    return out;
}

}  // namespace

LayeredConfig load_layered_config(const ConfigLocations& locations, const std::vector<DynamicConfig>& dynamic,
                                  std::vector<PluginContribution> plugins, const VariableLookup& lookup,
                                  const InputResolver& inputs) {
    LayeredConfig out;
    out.project_root = locations.project_root;
    const std::string enterprise_origin = locations.enterprise_file().string();
    const std::string managed_origin = locations.managed_settings_file().string();
    const Document enterprise = read_document(locations.enterprise_file(), kAdminFile);
    const Document managed = read_document(locations.managed_settings_file(), kAdminFile);
    out.enterprise_exclusive = enterprise.present;
    if (!enterprise.error.empty()) return fail_closed(std::move(out), enterprise.error);
    if (!managed.error.empty()) return fail_closed(std::move(out), managed.error);
    // The endpoint's managed settings: fetched once per process, then merged like the file.
    const ManagedEndpointResult endpoint = managed_endpoint_settings(locations);
    out.managed_endpoint = endpoint.url;
    out.managed_from_cache = endpoint.from_cache;
    out.managed_fetch_error = endpoint.fetch_error;
    if (!endpoint.error.empty()) return fail_closed(std::move(out), endpoint.error, kUntilEndpoint);
    const std::string remote_origin = "managed settings endpoint " + endpoint.url;
    const Document remote = endpoint.configured ? parse_document(endpoint.settings_json, remote_origin) : Document{};
    if (!remote.error.empty()) return fail_closed(std::move(out), remote.error, kUntilEndpoint);

    // The administrator's files are checked whole before anything is merged, so a structural
    // problem anywhere in them fails closed rather than half-applying.
    AdminPolicy admin;
    const JsonValue* enterprise_servers = nullptr;
    const JsonValue* managed_servers = nullptr;
    const JsonValue* remote_servers = nullptr;
    try {
        if (enterprise.present) {
            enterprise_servers = servers_of(enterprise.doc, enterprise_origin, false, true);
            xaa_idp_of(enterprise.doc, enterprise_origin);
            admin.read(enterprise.doc, enterprise_origin, false);
        }
        if (managed.present) {
            managed_servers = servers_of(managed.doc, managed_origin, false, false);
            xaa_idp_of(managed.doc, managed_origin);
            admin.read(managed.doc, managed_origin, true);
        }
    } catch (const Error& e) {
        return fail_closed(std::move(out), e.what());
    }
    try {
        if (remote.present) {
            remote_servers = servers_of(remote.doc, remote_origin, false, false);
            xaa_idp_of(remote.doc, remote_origin);
            admin.read(remote.doc, remote_origin, true);
        }
    } catch (const Error& e) {
        return fail_closed(std::move(out), e.what(), kUntilEndpoint);
    }

    Loader loader{lookup, inputs, locations.project_root.string(), {}, {}, {}};
    // A config home others can write is no more the user's than a repository is.
    std::optional<std::string> home_problem;
    std::error_code ec;
    if (fs::exists(locations.config_home, ec)) home_problem = distrust_reason(locations.config_home, kPrivateFile);
    PersonalSettings user, local;
    user.read(locations.user_settings_file(), loader.problems, home_problem);
    local.read(locations.local_settings_file(), loader.problems, home_problem);
    // The old in-repository local file: servers with project trust, lists ignored (see the header).
    const fs::path legacy = locations.legacy_local_settings_file();
    Document legacy_doc;
    if (fs::exists(fs::symlink_status(legacy, ec))) {
        out.legacy_local_file = legacy;
        legacy_doc = read_document(legacy, kRepositoryFile, locations.project_root);
        loader.problems.push_back({legacy.string(), "", legacy_local_warning(legacy_doc, locations)});
        if (!legacy_doc.error.empty()) legacy_doc.present = false;  // reported just above
    }

    if (enterprise.present) {
        loader.add_servers(*enterprise_servers, json::member(enterprise.doc, "xaaIdp"), {Scope::Enterprise, enterprise_origin, "", "", true, ""});
    } else {
        for (const PluginContribution& p : plugins)
            loader.add_document(parse_document(p.json_text, p.origin), {Scope::Plugin, p.origin, p.plugin_source, "", true, ""}, true, true);
        for (const fs::path& dir : locations.plugin_dirs) loader.add_plugin_dir(dir);
        // The administrator's connector service, else the user's (connectors.hpp).
        if (const std::optional<ConnectorEndpoint>& c = admin.connectors ? admin.connectors : user.connectors) {
            ConnectorSync sync = sync_connectors(*c, home_problem ? fs::path() : locations.config_home);
            out.webapp = LayeredConfig::Webapp{sync.origin, sync.stale, sync.fetch_error, sync.cache_file};
            if (!sync.problem.empty()) loader.problems.push_back({sync.origin, "", sync.problem});
            if (!sync.servers_json.empty())
                loader.add_document(parse_document(sync.servers_json, sync.origin), {Scope::Webapp, sync.origin, "", "", false, ""},
                                    false, true);
        }
        loader.add_document(user.file, {Scope::User, user.origin, "", "", true, user.origin}, false, false);
        const std::string root = locations.project_root.string();
        for (const fs::path& file : locations.project_files())
            loader.add_document(read_document(file, kRepositoryFile, locations.project_root),
                                {Scope::Project, file.string(), "", root, true, file.string()}, true, true);
        loader.add_document(legacy_doc, {Scope::Project, legacy.string(), "", root, true, legacy.string()}, false, false);
        loader.add_document(local.file, {Scope::Local, local.origin, "", root, true, local.origin}, false, false);
        for (const DynamicConfig& d : dynamic)
            loader.add_document(parse_document(d.json_text, d.origin), {Scope::Dynamic, d.origin, "", "", true, d.file}, true, true);
        if (managed_servers) loader.add_servers(*managed_servers, json::member(managed.doc, "xaaIdp"), {Scope::Managed, managed_origin, "", "", true, ""});
        if (remote_servers) loader.add_servers(*remote_servers, json::member(remote.doc, "xaaIdp"), {Scope::Managed, remote_origin, "", "", true, ""});
    }

    // The default roots: the managed settings', else the local settings', else the user's; a
    // server's own list over all of them. A managed list that cannot be resolved here is reported
    // and the next one used.
    std::optional<std::vector<fs::path>> default_roots = loader.default_roots(admin.roots, {Scope::Managed, admin.roots_origin, "", ""});
    if (!default_roots) default_roots = loader.settings_roots(local.file, {Scope::Local, local.origin, "", locations.project_root.string()});
    if (!default_roots) default_roots = loader.settings_roots(user.file, {Scope::User, user.origin, "", ""});
    out.servers = loader.table.take();
    // The default inheritEnv: the managed settings', else the local settings' (this project), else the user's.
    std::string inherit_json = admin.inherit_env_json, inherit_from = admin.inherit_env_origin;
    if (inherit_json.empty()) {
        const PersonalSettings& personal = local.inherit_env_json.empty() ? user : local;
        inherit_json = personal.inherit_env_json;
        inherit_from = personal.origin;
    }
    for (ConfiguredServer& s : out.servers) {
        user.apply(s.config);
        local.apply(s.config);
        if (!inherit_json.empty()) give_inherit_env_default(s, inherit_json, inherit_from);
        if (!s.config.roots) s.config.roots = default_roots;
    }
    out.problems = std::move(loader.problems);
    out.policy.allowed = combine_allowed(admin, user, local);
    out.policy.denied = std::move(admin.denied);
    append(out.policy.denied, user.denied);
    append(out.policy.denied, local.denied);
    out.policy.plugin_only_agents = admin.plugin_only_agents;
    out.policy.proxy_url_parameters = proxy_url_parameters(admin, user);
    out.policy.withhold_flagged_tools =
        admin.withhold_flagged_tools || user.withhold_flagged_tools || local.withhold_flagged_tools;
    return out;
}

LayeredConfig load_dynamic_config(const std::vector<DynamicConfig>& dynamic, const VariableLookup& lookup,
                                  const InputResolver& inputs) {
    Loader loader{lookup, inputs, "", {}, {}, {}};
    for (const DynamicConfig& d : dynamic)
        loader.add_document(parse_document(d.json_text, d.origin), {Scope::Dynamic, d.origin, "", "", true, d.file}, true, true);
    LayeredConfig out;
    out.servers = loader.table.take();
    out.problems = std::move(loader.problems);
    return out;
}

}  // namespace mcph::config
