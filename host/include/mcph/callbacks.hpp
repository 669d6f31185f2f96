// Application callbacks for server→client requests and server notifications.
//
// Request handlers (roots, sampling, elicitation) run on the host's callback pool, never on a
// transport thread or the timer loop, so they may block (e.g. ask the user on a TTY).
// Notification observers run on a transport thread and must be quick.
#pragma once

#include <mcph/export.hpp>
#include <mcph/json.hpp>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace mcph {

struct Root {
    std::string uri;  // file://...
    std::string name;
};

struct ElicitationRequest {
    std::string server;
    std::string mode;     // "form", or "url": the server wants the user to visit `url` (never fetched by mcph)
    std::string message;
    std::string url;      // url mode: the full URL, to be shown to the user, who decides whether to open it
    Json requested_schema;  // the requestedSchema object
};

struct ElicitationResponse {
    std::string action = "decline";  // "accept" | "decline" | "cancel"
    Json content;                    // an object when action == "accept" (form mode; url mode sends none)
};

struct ClientCallbacks {
    // roots/list. Unset: the server's configured roots ("roots" in its entry, else in the user's or
    // local settings; an empty list is answered as one), else the working directory (HostOptions::cwd
    // when set) as one file:// root. The CLI's --root sets this (for every server).
    std::function<std::vector<Root>(const std::string& server)> roots;
    // sampling/createMessage: params in, CreateMessageResult object out. Throw mcph::Error to
    // refuse. Unset: the request is declined with a JSON-RPC error.
    std::function<Json(const std::string& server, const JsonValue& params)> sampling;
    // elicitation/create (form mode). Schema defaults are applied to the returned content before
    // it is sent. Unset: declined.
    std::function<ElicitationResponse(const ElicitationRequest& request)> elicitation;

    // notifications/message (server log lines).
    std::function<void(const std::string& server, const std::string& level, const std::string& logger,
                       const JsonValue& data)>
        on_log;
    // notifications/resources/updated.
    std::function<void(const std::string& server, const std::string& uri)> on_resource_updated;
    // A cached list was re-fetched after a list_changed notification ("tools", "resources", "prompts").
    std::function<void(const std::string& server, const std::string& list)> on_list_changed;
};

// The Root of a directory: a file:// URI of the path (percent-encoded outside RFC 3986's unreserved
// characters and '/'), named by its last component. The path is used as given: pass an absolute,
// canonical one (std::filesystem::canonical), as servers compare roots with the paths they see.
MCPH_API Root file_root(const std::filesystem::path& directory);

// Fills `content` with the `default` of each property of `schema` it lacks (form elicitation).
MCPH_API void apply_schema_defaults(const JsonValue& schema, Json& content);

}  // namespace mcph
