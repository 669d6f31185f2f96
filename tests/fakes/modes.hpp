// The fake server's behaviour: a normal MCP server (initialize, ping, tools/list with one tool
// `work` or the tools of --tools-file, tools/call) that misbehaves in one scripted way chosen by
// --mode, shaped further by the Options (slow or crashing initialize, instructions, trace).
#pragma once

#include "options.hpp"
#include "wire.hpp"

#include <atomic>
#include <map>
#include <string>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

namespace fake {

enum class Mode {
    Normal,       // behaves
    InvalidJson,  // garbage lines before/among valid responses
    UnknownId,    // tools/call: a response with a wrong id first, then the right one
    ExitMidCall,  // tools/call: a line on stderr, then exit(3)
    NeverAnswer,  // tools/call (and prompts/get, with --prompts-file): read and ignored
    DeafCall,     // tools/call: never answered, and stdin is never read again
    StderrFlood,  // tools/call: 100 MiB to stderr, then a normal answer
    BigMessage,   // tools/call: a 50 MiB text content
    BadVersion,   // initialize: protocolVersion "1999-01-01"
    NoInit,       // initialize: never answered
    Progress,     // tools/call: notifications/progress 1..3 of 3, then the answer
    ListChanged,  // tools/call: answer, then a new tool list and notifications/tools/list_changed
    Paginate,     // tools/list: three pages joined by nextCursor
    BadCursor,    // tools/list: the same nextCursor on every page, forever
    DeepLine,     // tools/call: one line of 1,000,000 '[' first, then the answer
    DeepSchema,   // tools/list: `work` with an inputSchema nested 100,000 levels (~600 KB)
    RequestFlood, // tools/call: 100,000 server→client requests (sampling, elicitation, roots), then the answer
    DeafFlood,    // tools/call: the same flood from the main loop, which never reads stdin again
    ListFlood,    // tools/call: 20,000 tools/list_changed, then a new list (`fresh-tool`) and the answer
    ProgressForever,  // tools/call: notifications/progress every 100 ms, never an answer
    SilentDiscover,   // server/discover: read and never answered (a legacy server ignoring it); the rest behaves
    ModernOnlyInit,   // server/discover: -32601; initialize: -32022 with data.supported ["2026-07-28"]
    ListenUnacked,    // a modern server (discover: tools.listChanged) that never acknowledges subscriptions/listen
    UnlistedFeatures, // advertises resources and prompts, then answers their list methods with -32601
    Memory,           // tools remember {key,value} / recall {key}: state kept only in this process's memory
    ResourceUpdates,  // resources {subscribe}: fake://counter; resources/subscribe is answered, then 3 updates
    UpdateFlood,      // the same, with 100,000 updates after the answer
    Env,              // tools/call: answers with this process's whole environment, a JSON object as text
    AskRoots,         // tools/call: asks roots/list, answers with the client's answer as JSON text
};

std::optional<Mode> parse_mode(std::string_view name);
// Every mode name, for the usage text.
const char* mode_names();

class FakeServer {
public:
    FakeServer(Mode mode, Wire& wire, const Options& options, Trace& trace)
        : mode_(mode), wire_(wire), options_(options), trace_(trace) {}
    ~FakeServer();

    // Before the first message is read.
    void on_start();
    // One parsed JSON-RPC message from the client.
    void handle(const Json& message);

private:
    void on_initialize(const Value& id, const Value& params);
    void refuse_legacy(const Value& id, const Value& params);  // modern-only-init
    void on_tools_list(const Value& id, const Value& params);
    void on_tools_call(const Value& id, const Value& params);
    void on_prompts_list(const Value& id);  // --prompts-file
    // resource-updates, update-flood: resources/list, read, subscribe, unsubscribe.
    void on_resource_request(const Value& id, std::string_view method, const Value& params);
    // --skills-file: skills/list answers its "skills", resources/read its "files" (read afresh).
    void on_skills_request(const Value& id, std::string_view method, const Value& params);
    void answer_work(const Value& id, std::string_view text);
    // --elicit-file: sends elicitation/create with the file's params; the client's answer to it
    // (result or error, compact JSON) becomes the pending call's text (on_elicitation_answer).
    void ask_elicitation(const Value& id);
    void on_elicitation_answer(const Json& message);
    // ask-roots: sends roots/list (id "roots"); the answer completes the call as on_elicitation_answer does.
    void ask_roots(const Value& id);
    // tools/call of a tools-file entry with a `structuredContent` member: answered with it.
    bool answer_structured(const Value& id, const std::string& name);
    // --text-file: the file's bytes as a log notification, a progress message, a stderr line and
    // the call's result text.
    void answer_hostile_text(const Value& id, const Value& params);
    // The flood modes: `body` runs on a thread of its own, so the main loop keeps reading stdin
    // (the client's answers are read and ignored, never waited for).
    void in_background(const Value& id, const Value& params, void (FakeServer::*body)(const Value& id, const Value& params));
    void flood_requests(const Value& id, const Value& params);
    void flood_list_changed(const Value& id, const Value& params);
    void progress_forever(const Value& id, const Value& params);
    // --tools-file: a copy of the file's tools array, or false (with `error`).
    bool read_tools_file(Json& tools, std::string& error) const;
    // --tools-file: the file's tools array, or null (with `error`). The file is read at every use
    // (a test may change it between calls) and parsed again only when its bytes changed: a call
    // on a 500-tool file used to parse it twice, most of a call's time in bench/'s mapped rows.
    // The main loop's thread only.
    const Value* tools_file_tools(std::string& error) const;
    // Is `name` a tool this server offers (its tools file, or the mode's fixed list)?
    bool knows_tool(std::string_view name) const;

    Mode mode_;
    Wire& wire_;
    // tools_file_tools(): the bytes last read, and what they gave.
    mutable std::string tools_bytes_, tools_read_, tools_error_;
    mutable Json tools_doc_;
    mutable bool tools_read_once_ = false;
    const Options& options_;
    Trace& trace_;
    std::atomic<bool> tools_changed_{false};
    std::map<std::string, std::string> memory_;  // memory: what `remember` stored (main loop only)  // list-changed, list-flood: the list after the first call
    std::vector<std::thread> background_;
    bool crash_scheduled_ = false;
    Json pending_elicitation_call_;  // --elicit-file: the id of the tools/call waiting for the answer  // --exit-after-init-ms: the timer runs once
};

}  // namespace fake
