// Routes libwebsockets' own log lines into mcph instead of stderr.
//
// lws has one process-wide log hook with no user pointer, but every transport runs lws only on
// its own service thread. So the hook looks up a thread-local "current transport" sink and hands
// the line to that transport's on_diagnostic at debug level; a line logged on any other thread
// goes to the host log (debug), or nowhere. Only lws errors and warnings are enabled: its notices
// are chatty and say nothing a host user could act on.
#pragma once

#include <mcph/plugin_api.h>

#include <functional>
#include <string_view>

namespace mcph::ws {

using LogSink = std::function<void(std::string_view line)>;

// Plugin init: install the hook (idempotent). `host` may be NULL; it must outlive uninstall.
void install_lws_log(const mcph_host_services* host);
// create(): install the hook once if plugin init did not run (hosts must call init, but a missing
// hook would only mean lws writing to stderr, so be forgiving).
void ensure_lws_log(const mcph_host_services* host);
// Plugin shutdown: point lws back at a hook that lives in libwebsockets itself, so no dangling
// pointer into this unloaded plugin remains.
void uninstall_lws_log();

// While alive, lws lines logged on this thread go to `sink`.
class ScopedLogSink {
public:
    explicit ScopedLogSink(const LogSink* sink);
    ~ScopedLogSink();
    ScopedLogSink(const ScopedLogSink&) = delete;
    ScopedLogSink& operator=(const ScopedLogSink&) = delete;

private:
    const LogSink* previous_;
};

}  // namespace mcph::ws
