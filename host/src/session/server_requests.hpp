// Answers to server→client requests when the application supplies no callback, and the helpers
// the callbacks share: the default root (the working directory) and file:// URIs.
#pragma once

#include <mcph/callbacks.hpp>
#include <mcph/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace mcph::detail {

// file:// URI of an absolute path, percent-encoding everything outside RFC 3986 unreserved + '/'.
std::string file_uri(const std::filesystem::path& absolute_path);

// The working directory as the single root.
std::vector<Root> default_roots();

// {"roots":[{"uri":...,"name":...}]}
Json roots_result(const std::vector<Root>& roots);

// The ElicitResult object for a response (defaults applied to accepted content).
Json elicitation_result(const ElicitationRequest& request, ElicitationResponse response);

}  // namespace mcph::detail
