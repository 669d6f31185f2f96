// VS Code's "inputs": values a configuration asks the user for instead of storing them, referenced
// as ${input:id} (e.g. an API key: {"type":"promptString","id":"key","description":"API key",
// "password":true}). The loader asks through an InputResolver — the host's asks the embedder's
// HostOptions::ask_input once and keeps the answer in the secret store — and a server whose input
// has no answer is a ConfigProblem naming the input, while the file's other servers load.
#pragma once

#include "config/config_source.hpp"

#include <mcph/json.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mcph::config {

struct InputSpec {
    std::string id;
    std::string type = "promptString";  // VS Code also has "pickString" (options) and "command"
    std::string description;
    bool password = false;
    std::string default_value;          // "default"
    std::vector<std::string> options;   // pickString's choices
};

struct InputQuestion {
    std::string origin;  // the file (or source) defining the input, as messages name it
    std::string server;  // the first server that needs it, for the prompt
    InputSpec input;
    // Where the file is: a repository's file (Scope::Project) must not put a question to the user
    // before its server is approved (the host's resolver checks the approval under project_root).
    Scope scope = Scope::Dynamic;
    std::string project_root;
    // Where answers are kept (kept_inputs.hpp): the defining file's canonical path, so one file
    // spelled two ways is asked once; empty for a document that is not a file (then `origin`).
    std::string file;
};

// The answer, or nullopt when there is none (nobody to ask, or the user declined).
using InputResolver = std::function<std::optional<std::string>(const InputQuestion&)>;

// The document's "inputs", by id. A malformed list or entry is a problem (one message each, naming
// `origin` and the entry) and is left out, so only the servers that use it fail.
std::map<std::string, InputSpec> read_inputs(const JsonValue& doc, const std::string& origin,
                                             std::vector<std::string>& problems);

// The secret-store key of an answer: one per place (a file's canonical path, else the origin) and
// input id.
std::string input_secret_key(const std::string& place, const std::string& id);

}  // namespace mcph::config
