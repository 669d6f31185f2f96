// `read -o FILE|DIR` and `call -o DIR`: resource contents and tool result content saved to files.
// Text is written as its UTF-8 bytes, a blob (and image/audio data) base64-decoded. A file that
// exists is kept (Error(Usage) naming it) unless `force`; files written into a directory get names
// mcph makes (<n>.<ext>), never one a server chose, so nothing can land outside the directory.
#pragma once

#include <mcph/json.hpp>

#include <string>
#include <vector>

namespace mcph::cli {

// The paths written, in order. `result` is a resources/read result ({"contents":[...]}).
std::vector<std::string> save_read_result(const JsonValue& result, const std::string& output, bool force);
// The image, audio and blob items of a tools/call result's content, saved into the directory
// `dir` (created when missing); text items are left to be printed.
std::vector<std::string> save_call_content(const JsonValue& result, const std::string& dir, bool force);

// "png" for image/png, "jpg" for image/jpeg, ...; "bin" for anything unknown.
std::string extension_for(const std::string& mime_type);

}  // namespace mcph::cli
