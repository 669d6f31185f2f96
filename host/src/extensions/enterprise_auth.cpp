#include "extensions/enterprise_auth.hpp"

namespace mcph::extensions {

Json enterprise_auth_client_extensions(const config::ServerConfig& server) {
    Json extensions(rapidjson::kObjectType);
    if (server.auth_backend == "xaa")
        extensions.AddMember(rapidjson::StringRef(kEnterpriseAuthExtension), JsonValue(rapidjson::kObjectType),
                             extensions.GetAllocator());
    return extensions;
}

}  // namespace mcph::extensions
