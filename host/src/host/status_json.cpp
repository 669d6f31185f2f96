// The status view ("/mcp" in seed 000 §18.12) as JSON: every server with its state, what it said
// about itself, its tools under mapped and original names (and those the rug-pull guard withholds),
// the servers left out (duplicates, policy, approval, bad config), and every plugin.
#include "governance/tool_scanner.hpp"
#include "host/host_impl.hpp"
#include "json/json_access.hpp"
#include "tools/name_mapping.hpp"
#include "url/redact.hpp"

#include <mcph/bounded_json.hpp>

namespace mcph {
namespace {

using Alloc = Json::AllocatorType;

JsonValue str(const std::string& s, Alloc& a) { return json::string_value(s, a); }

JsonValue plugin_json(const PluginInfo& p, Alloc& a) {
    JsonValue o(rapidjson::kObjectType);
    o.AddMember("path", str(p.path.string(), a), a);
    o.AddMember("loaded", p.loaded, a);
    if (!p.error.empty()) o.AddMember("error", str(p.error, a), a);
    if (!p.name.empty()) o.AddMember("name", str(p.name, a), a);
    if (!p.version.empty()) o.AddMember("version", str(p.version, a), a);
    if (p.abi_major) o.AddMember("abi", str(std::to_string(p.abi_major) + "." + std::to_string(p.abi_minor), a), a);
    JsonValue interfaces(rapidjson::kArrayType);
    for (const auto& i : p.interfaces) interfaces.PushBack(str(i, a), a);
    o.AddMember("interfaces", interfaces, a);
    JsonValue types(rapidjson::kArrayType);
    for (const auto& t : p.config_types) types.PushBack(str(t, a), a);
    o.AddMember("transportTypes", types, a);
    if (!p.auth_backend.empty()) o.AddMember("authBackend", str(p.auth_backend, a), a);
    return o;
}

// Changed instructions are text for the model that the user has not seen: held back (flagged in
// unapprovedChanges) until the server is approved again.
// `member`: [{key: id_of(item), "findings": [...]}] for each item whose description the scanner
// flags; left out when none is.
template <class Item, class IdOf>
void add_description_findings(JsonValue& o, const char* member, const char* key, const std::vector<Item>& items,
                              FindingField field, IdOf id_of, Alloc& a) {
    JsonValue flagged(rapidjson::kArrayType);
    for (const Item& item : items)
        if (auto f = scan_server_text(item.description, field); !f.empty()) {
            JsonValue entry(rapidjson::kObjectType);
            entry.AddMember(JsonValue(key, a), str(id_of(item), a), a);
            entry.AddMember("findings", findings_json(f, a), a);
            flagged.PushBack(entry, a);
        }
    if (!flagged.Empty()) o.AddMember(JsonValue(member, a), flagged, a);
}

void add_session_details(JsonValue& o, detail::SessionCore& core, const std::vector<Tool>& usable_tools,
                         bool instructions_withheld, Alloc& a) {
    const auto facts = core.facts();
    o.AddMember("era", str(session::to_string(facts->era), a), a);
    o.AddMember("protocolVersion", str(facts->protocol_version, a), a);
    JsonValue info(rapidjson::kObjectType);
    info.AddMember("name", str(facts->server_info.name, a), a);
    info.AddMember("version", str(facts->server_info.version, a), a);
    o.AddMember("serverInfo", info, a);
    o.AddMember("capabilities", JsonValue(facts->capabilities, a), a);
    // Tools left out for an invalid x-mcp-header annotation: the rest of the server stays usable.
    const auto set_aside = core.set_aside_tools();
    if (!set_aside.empty()) {
        JsonValue list(rapidjson::kArrayType);
        for (const auto& [tool, why] : set_aside) {
            JsonValue entry(rapidjson::kObjectType);
            entry.AddMember("name", str(tool, a), a);
            entry.AddMember("reason", str(why, a), a);
            list.PushBack(entry, a);
        }
        o.AddMember("setAsideTools", list, a);
    }
    // Modern era: the listen stream that carries change notifications.
    Json subscription = core.listen_status();
    if (subscription.IsObject()) o.AddMember("subscription", JsonValue(subscription, a), a);
    if (!facts->instructions.empty() && !instructions_withheld) {
        o.AddMember("instructions", str(facts->instructions, a), a);
        const auto findings = governance::scan_instructions(facts->instructions);
        if (!findings.empty()) o.AddMember("instructionsFindings", findings_json(findings, a), a);
    }
    JsonValue tools(rapidjson::kArrayType);
    for (const Tool& t : usable_tools) {
        JsonValue tool(rapidjson::kObjectType);
        tool.AddMember("name", str(tools::map_tool_name(t.server, t.name), a), a);
        tool.AddMember("originalName", str(t.name, a), a);
        if (!t.description.empty()) tool.AddMember("description", str(t.description, a), a);
        if (t.destructive) tool.AddMember("destructive", true, a);
        if (!t.findings.empty()) tool.AddMember("findings", findings_json(t.findings, a), a);
        tools.PushBack(tool, a);
    }
    o.AddMember("tools", tools, a);
    JsonValue resources(rapidjson::kArrayType);
    for (const Resource& r : core.cached_resources()) {
        JsonValue res(rapidjson::kObjectType);
        res.AddMember("uri", str(r.uri, a), a);
        res.AddMember("name", str(r.name, a), a);
        resources.PushBack(res, a);
    }
    o.AddMember("resources", resources, a);
    JsonValue prompts(rapidjson::kArrayType);
    for (const Prompt& p : core.cached_prompts()) prompts.PushBack(str(p.name, a), a);
    o.AddMember("prompts", prompts, a);
    // The scanner on prompt and resource descriptions: [{"name"|"uri", "findings"}], when any.
    add_description_findings(o, "promptFindings", "name", core.cached_prompts(), FindingField::PromptDescription,
                             [](const Prompt& p) -> const std::string& { return p.name; }, a);
    add_description_findings(o, "resourceFindings", "uri", core.cached_resources(), FindingField::ResourceDescription,
                             [](const Resource& r) -> const std::string& { return r.uri; }, a);
}

JsonValue excluded_json(const std::vector<ExcludedServer>& list, Alloc& a) {
    JsonValue out(rapidjson::kArrayType);
    for (const auto& e : list) {
        JsonValue o(rapidjson::kObjectType);
        if (!e.name.empty()) o.AddMember("name", str(e.name, a), a);
        if (!e.scope.empty()) o.AddMember("scope", str(e.scope, a), a);
        if (!e.origin.empty()) o.AddMember("origin", str(e.origin, a), a);
        if (!e.plugin_source.empty()) o.AddMember("pluginSource", str(e.plugin_source, a), a);
        o.AddMember("reason", str(url::redact_urls_in_text(e.reason), a), a);
        out.PushBack(o, a);
    }
    return out;
}

void add_state_details(JsonValue& o, const ServerStatus& s, Alloc& a) {
    if (auto* p = std::get_if<state::Pending>(&s.connection)) {
        o.AddMember("attempt", p->attempt, a);
        o.AddMember("maxAttempts", p->max_attempts, a);
    }
    if (!s.error.empty()) o.AddMember("error", str(url::redact_urls_in_text(s.error), a), a);
    if (!s.stderr_tail.empty()) {
        JsonValue tail(rapidjson::kArrayType);
        for (const auto& line : s.stderr_tail) tail.PushBack(str(line, a), a);
        o.AddMember("stderrTail", tail, a);
    }
    JsonValue withheld(rapidjson::kArrayType);
    for (const auto& w : s.withheld_tools) {
        JsonValue t(rapidjson::kObjectType);
        t.AddMember("name", str(w.name, a), a);
        t.AddMember("reason", str(w.reason, a), a);
        t.AddMember("why", rapidjson::StringRef(w.why == WithheldTool::Why::Flagged ? "flagged"
                                                : w.why == WithheldTool::Why::New    ? "new"
                                                                                      : "changed"),
                    a);
        if (!w.findings.empty()) t.AddMember("findings", findings_json(w.findings, a), a);
        withheld.PushBack(t, a);
    }
    o.AddMember("withheldTools", withheld, a);
    JsonValue changes(rapidjson::kArrayType);
    for (const auto& c : s.unapproved_changes) {
        JsonValue v(rapidjson::kObjectType);
        v.AddMember("kind", str(c.kind, a), a);
        if (!c.name.empty()) v.AddMember("name", str(c.name, a), a);
        v.AddMember("reason", str(c.reason, a), a);
        changes.PushBack(v, a);
    }
    o.AddMember("unapprovedChanges", changes, a);
}

bool instructions_changed(const ServerStatus& s) {
    for (const auto& c : s.unapproved_changes)
        if (c.kind == "instructions") return true;
    return false;
}

JsonValue shadowed_json(const std::vector<ShadowedServer>& list, Alloc& a) {
    JsonValue out(rapidjson::kArrayType);
    for (const auto& sh : list) {
        JsonValue o(rapidjson::kObjectType);
        o.AddMember("name", str(sh.name, a), a);
        o.AddMember("scope", str(sh.scope, a), a);
        o.AddMember("origin", str(sh.origin, a), a);
        o.AddMember("byScope", str(sh.by_scope, a), a);
        o.AddMember("byOrigin", str(sh.by_origin, a), a);
        o.AddMember("reason", str(sh.reason, a), a);
        out.PushBack(o, a);
    }
    return out;
}

// {"agents":[...],"problems":[...]}: the sub-agents and the agent files that could not be used
// (the "agents" member; `mcph agents --json` prints it alone).
JsonValue agents_json(const AgentCatalog& catalog, Json::AllocatorType& al) {
    const auto str = [&al](const std::string& s) { return JsonValue(s.data(), static_cast<rapidjson::SizeType>(s.size()), al); };
    JsonValue agents(rapidjson::kArrayType);
    for (const auto& a : catalog.agents) {
        JsonValue v(rapidjson::kObjectType);
        v.AddMember("name", str(a.name), al);
        v.AddMember("source", str(agent_source_name(a.source)), al);
        v.AddMember("origin", str(a.origin), al);
        v.AddMember("plugin", str(a.plugin_source), al);
        v.AddMember("approved", a.approved, al);
        v.AddMember("reason", str(a.unapproved_reason), al);
        JsonValue refs(rapidjson::kArrayType), owned(rapidjson::kArrayType), shadows(rapidjson::kArrayType);
        for (const auto& s : a.servers) (s.reference.empty() ? owned : refs).PushBack(str(s.reference.empty() ? s.name : s.reference), al);
        for (const auto& origin : a.shadows) shadows.PushBack(str(origin), al);
        v.AddMember("references", refs, al);
        v.AddMember("inline", owned, al);
        v.AddMember("shadows", shadows, al);
        agents.PushBack(v, al);
    }
    JsonValue problems(rapidjson::kArrayType);
    for (const auto& p : catalog.problems) {
        JsonValue v(rapidjson::kObjectType);
        v.AddMember("origin", str(p.origin), al);
        v.AddMember("line", p.line, al);
        v.AddMember("message", str(p.message), al);
        problems.PushBack(v, al);
    }
    JsonValue out(rapidjson::kObjectType);
    out.AddMember("agents", agents, al);
    out.AddMember("problems", problems, al);
    return out;
}

}  // namespace

Json Host::status_json() const {
    Json doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    JsonValue servers(rapidjson::kArrayType);
    const auto review = impl_->tool_review();
    const ConfigReport report = config_report();
    for (const ServerStatus& s : status()) {
        JsonValue o(rapidjson::kObjectType);
        o.AddMember("name", str(s.name, a), a);
        o.AddMember("type", str(s.type, a), a);
        o.AddMember("scope", str(s.scope, a), a);
        o.AddMember("origin", str(s.origin, a), a);
        if (!s.plugin_source.empty()) o.AddMember("pluginSource", str(s.plugin_source, a), a);
        if (s.scope == "webapp") o.AddMember("stale", report.webapp_stale, a);  // the cached list: the service did not answer
        o.AddMember("state", str(s.state, a), a);
        add_state_details(o, s, a);
        std::shared_ptr<detail::SessionCore> core;
        {
            std::lock_guard lock(impl_->mutex);
            if (auto it = impl_->connections.find(s.name); it != impl_->connections.end()) core = it->second->live_core();
        }
        auto reviewed = review->servers.find(s.name);
        if (core && reviewed != review->servers.end())
            add_session_details(o, *core, reviewed->second.allowed, instructions_changed(s), a);
        std::shared_ptr<auth::AuthSession> auth;
        {
            std::lock_guard lock(impl_->mutex);
            if (auto it = impl_->auth_sessions.find(s.name); it != impl_->auth_sessions.end()) auth = it->second;
        }
        if (auth) {
            Json described;
            // The backend's own view may quote the server or issuer URL: redacted like every other text.
            const bool parsed =
                static_cast<bool>(json_bounds::parse(described, url::redact_urls_in_text(auth->describe())));
            JsonValue entry(rapidjson::kObjectType);
            entry.AddMember("backend", str(auth->backend(), a), a);
            if (parsed && described.IsObject()) entry.AddMember("state", JsonValue(described, a), a);
            o.AddMember("auth", entry, a);
        }
        servers.PushBack(o, a);
    }
    doc.AddMember("servers", servers, a);
    doc.AddMember("suppressed", excluded_json(report.suppressed_duplicates, a), a);
    doc.AddMember("denied", excluded_json(report.denied, a), a);
    doc.AddMember("unapproved", excluded_json(report.unapproved, a), a);
    doc.AddMember("configProblems", excluded_json(report.problems, a), a);
    doc.AddMember("shadowed", shadowed_json(report.shadowed, a), a);
    if (!report.legacy_local_settings.empty()) doc.AddMember("legacyLocalSettings", str(report.legacy_local_settings, a), a);
    doc.AddMember("localSettings", str(report.local_settings, a), a);
    doc.AddMember("enterpriseExclusive", report.enterprise_exclusive, a);
    if (!report.webapp_endpoint.empty()) {  // where the webapp connectors come from, and how fresh they are
        JsonValue w(rapidjson::kObjectType);
        w.AddMember("origin", str(report.webapp_endpoint, a), a);
        w.AddMember("stale", report.webapp_stale, a);
        if (!report.webapp_error.empty()) w.AddMember("error", str(report.webapp_error, a), a);
        doc.AddMember("webapp", w, a);
    }
    if (!report.managed_endpoint.empty()) {  // managed settings from an endpoint
        JsonValue m(rapidjson::kObjectType);
        m.AddMember("origin", str(report.managed_endpoint, a), a);
        m.AddMember("fromCache", report.managed_from_cache, a);
        if (!report.managed_error.empty()) m.AddMember("error", str(report.managed_error, a), a);
        doc.AddMember("managedEndpoint", m, a);
    }
    doc.AddMember("agents", agents_json(agents(), a), a);
    JsonValue store(rapidjson::kObjectType);  // which secret store holds the tokens, and why
    const secrets::SelectedStore& chosen = impl_->secret_store->chosen();  // a diagnostic view: choose now
    store.AddMember("kind", str(chosen.kind, a), a);
    store.AddMember("detail", str(chosen.detail, a), a);
    doc.AddMember("secretStore", store, a);
    JsonValue plugins(rapidjson::kArrayType);
    // As they are: listing a plugin no server needed does not load it (the manifest names it);
    // `mcph plugins` loads every one first (Host::plugins()) to check each.
    for (const auto& listed : impl_->registry.listing()) {
        JsonValue p = plugin_json(listed.info, a);
        if (listed.not_loaded_yet) p.AddMember("notLoadedYet", true, a);
        plugins.PushBack(p, a);
    }
    doc.AddMember("plugins", plugins, a);
    return doc;
}

}  // namespace mcph
