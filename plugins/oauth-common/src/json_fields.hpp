// Reading optional members of the authorization server's and the token store's JSON documents:
// a member that is missing or of another type reads as empty — the callers decide whether that is
// an error (a token response without access_token is; metadata without registration_endpoint is not).
#pragma once

#include <rapidjson/document.h>

#include <string>

namespace mcph::oauth {

inline std::string string_member(const rapidjson::Value& obj, const char* name) {
    auto it = obj.FindMember(name);
    return it != obj.MemberEnd() && it->value.IsString() ? std::string(it->value.GetString(), it->value.GetStringLength())
                                                         : std::string();
}

}  // namespace mcph::oauth
