// The public face of SessionCore: every call forwards; nothing else lives here.
#include "extensions/skills.hpp"
#include "json/json_access.hpp"
#include "session/session_core.hpp"

#include <mcph/session.hpp>

namespace mcph {

std::string CallToolResult::text() const {
    std::string out;
    const JsonValue* content = raw.IsObject() ? json::array_member(raw, "content") : nullptr;
    if (!content) return out;
    for (const JsonValue& block : content->GetArray()) {
        // Viewed, not copied: string_or's temporary would be a second copy of a 1 MiB text.
        const JsonValue* type = json::member(block, "type");
        if (!type || json::view(*type) != "text") continue;
        const JsonValue* text = json::member(block, "text");
        if (!out.empty()) out.push_back('\n');
        if (text) out += json::view(*text);
    }
    return out;
}

const JsonValue* CallToolResult::structured() const {
    return raw.IsObject() ? json::member(raw, "structuredContent") : nullptr;
}

ClientSession::ClientSession(std::shared_ptr<detail::SessionCore> core) : core_(std::move(core)) {}
ClientSession::~ClientSession() = default;

const std::string& ClientSession::server_name() const { return core_->settings().server_name; }
bool ClientSession::connected() const { return core_->connected(); }
std::string ClientSession::protocol_version() const { return core_->facts()->protocol_version; }
std::string ClientSession::era() const { return session::to_string(core_->facts()->era); }
Implementation ClientSession::server_info() const { return core_->facts()->server_info; }
Json ClientSession::server_capabilities() const { return clone_json(core_->facts()->capabilities); }
std::string ClientSession::instructions() const { return core_->facts()->instructions; }
bool ClientSession::has_capability(const char* name) const { return core_->has_capability(name); }

PendingRequest ClientSession::request(const std::string& method, Json params, const RequestOptions& options) {
    return core_->request(method, std::move(params), options);
}
Json ClientSession::call(const std::string& method, Json params, const RequestOptions& options) {
    return core_->call(method, std::move(params), options);
}
void ClientSession::request_async(const std::string& method, Json params, ResponseHandler done,
                                  const RequestOptions& options) {
    core_->request_async(method, std::move(params), std::move(done), options);
}
void ClientSession::notify(const std::string& method, Json params) { core_->notify(method, std::move(params)); }

std::vector<Tool> ClientSession::list_tools() { return core_->fetch_tools(); }
std::vector<Resource> ClientSession::list_resources() { return core_->fetch_resources(); }
std::vector<ResourceTemplate> ClientSession::list_resource_templates() { return core_->fetch_resource_templates(); }
std::vector<Prompt> ClientSession::list_prompts() { return core_->fetch_prompts(); }

CallToolResult ClientSession::call_tool(const std::string& name, const JsonValue& arguments, const RequestOptions& options) {
    return core_->call_tool(name, arguments, options);
}

namespace {
Json object_with(const char* key, const std::string& value) {
    Json params(rapidjson::kObjectType);
    params.AddMember(rapidjson::StringRef(key), json::string_value(value, params.GetAllocator()), params.GetAllocator());
    return params;
}
}  // namespace

Json ClientSession::read_resource(const std::string& uri) { return read_resource(uri, RequestOptions{}); }
Json ClientSession::read_resource(const std::string& uri, const RequestOptions& options) {
    return core_->cached_call("resources/read", object_with("uri", uri), options);
}
void ClientSession::subscribe_resource(const std::string& uri) { core_->subscribe_resource(uri); }
void ClientSession::unsubscribe_resource(const std::string& uri) { core_->unsubscribe_resource(uri); }
Json ClientSession::get_prompt(const std::string& name, const JsonValue& arguments) {
    return get_prompt(name, arguments, RequestOptions{});
}
Json ClientSession::get_prompt(const std::string& name, const JsonValue& arguments, const RequestOptions& options) {
    Json params = object_with("name", name);
    if (arguments.IsObject()) params.AddMember("arguments", JsonValue(arguments, params.GetAllocator()), params.GetAllocator());
    return core_->call("prompts/get", std::move(params), options);
}

Json ClientSession::complete(const JsonValue& ref, const std::string& argument_name, const std::string& argument_value) {
    Json params(rapidjson::kObjectType);
    auto& a = params.GetAllocator();
    params.AddMember("ref", JsonValue(ref, a), a);
    JsonValue argument(rapidjson::kObjectType);
    argument.AddMember("name", json::string_value(argument_name, a), a);
    argument.AddMember("value", json::string_value(argument_value, a), a);
    params.AddMember("argument", argument, a);
    return core_->call("completion/complete", std::move(params));
}

void ClientSession::set_logging_level(const std::string& level) { core_->set_log_level(level); }
// The modern revision has no ping: server/discover is the cheapest request every server answers.
void ClientSession::ping() { core_->call(core_->facts()->era == session::Era::Modern ? "server/discover" : "ping", Json()); }

// ---- skills: the logic lives in extensions/skills.cpp; here only the session's call and log.

namespace {
extensions::SkillCall skill_call(detail::SessionCore& core) {
    return [&core](const std::string& method, Json params) { return core.call(method, std::move(params)); };
}

void require_skills(const ClientSession& session) {
    if (!session.offers_skills())
        throw Error(ErrorKind::Usage, "server '" + session.server_name() + "' does not offer skills (no '" +
                                          extensions::kSkillsExtension + "' extension in its capabilities)");
}
}  // namespace

bool ClientSession::offers_skills() const { return extensions::server_offers_skills(core_->facts()->capabilities); }

std::vector<Skill> ClientSession::list_skills() {
    require_skills(*this);
    const auto& settings = core_->settings();
    return extensions::list_skills(settings.server_name, skill_call(*core_), [&settings](const std::string& warning) {
        if (settings.log) settings.log(LogLevel::Warn, settings.server_name, warning);
    });
}

LoadedSkill ClientSession::load_skill(const Skill& skill) {
    require_skills(*this);
    return extensions::load_skill(skill, skill_call(*core_));
}

Skill ClientSession::get_skill(const std::string& uri) {
    require_skills(*this);
    return extensions::get_skill(server_name(), uri, skill_call(*core_));
}

LoadedSkill ClientSession::load_skill(const std::string& name_or_uri) {
    constexpr int kMethodNotFound = -32601;
    constexpr int kInvalidParams = -32602;  // SEP-2640: skills/get of an unknown uri
    if (name_or_uri.find("://") != std::string::npos) {
        try {
            return load_skill(get_skill(name_or_uri));
        } catch (const Error& e) {
            if (e.kind() == ErrorKind::Remote && e.code() == kInvalidParams)
                throw Error(ErrorKind::NotFound, "server '" + server_name() + "' has no skill '" + name_or_uri + "': " + e.what());
            // Only a server that predates skills/get falls back to the list; any other answer stands.
            if (e.kind() != ErrorKind::Remote || e.code() != kMethodNotFound) throw;
        }
    }
    for (const Skill& skill : list_skills())
        if (skill.name == name_or_uri || skill.uri == name_or_uri) return load_skill(skill);
    throw Error(ErrorKind::NotFound, "server '" + server_name() + "' lists no skill named '" + name_or_uri + "'");
}

std::string ClientSession::read_skill_file(const LoadedSkill& skill, const std::string& uri) {
    require_skills(*this);
    return extensions::read_skill_file(skill, uri, skill_call(*core_));
}

std::vector<Tool> ClientSession::cached_tools() const { return core_->cached_tools(); }
std::vector<Resource> ClientSession::cached_resources() const { return core_->cached_resources(); }
std::vector<Prompt> ClientSession::cached_prompts() const { return core_->cached_prompts(); }

void ClientSession::close() { core_->close(); }

}  // namespace mcph
