#include "lws_log.hpp"

#include <libwebsockets.h>
#include <mcph/plugin_helper.hpp>

#include <atomic>
#include <mutex>
#include <string>

namespace mcph::ws {
namespace {

thread_local const LogSink* t_sink = nullptr;
std::atomic<const mcph_host_services*> g_host{nullptr};

void emit(int, const char* line) {
    if (!line) return;
    std::string_view text(line);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
    if (text.empty()) return;
    if (const LogSink* sink = t_sink) {
        (*sink)(text);
        return;
    }
    const mcph_host_services* host = g_host.load();
    if (host && host->log) host->log(host->host_data, MCPH_LOG_DEBUG, mcph::plugin::str("transport-ws"), mcph::plugin::str(text));
}

std::atomic<bool> g_installed{false};

}  // namespace

void install_lws_log(const mcph_host_services* host) {
    g_host.store(host);
    lws_set_log_level(LLL_ERR | LLL_WARN, emit);
    g_installed.store(true);
}

void ensure_lws_log(const mcph_host_services* host) {
    // lws_set_log_level() writes unsynchronised globals that service threads read: only the first
    // transport (when the host skipped init) may call it, never every create().
    static std::once_flag once;
    if (!g_installed.load()) std::call_once(once, [&] { install_lws_log(host); });
}

void uninstall_lws_log() {
    lws_set_log_level(LLL_ERR | LLL_WARN, lwsl_emit_stderr);
    g_host.store(nullptr);
    g_installed.store(false);
}

ScopedLogSink::ScopedLogSink(const LogSink* sink) : previous_(t_sink) { t_sink = sink; }
ScopedLogSink::~ScopedLogSink() { t_sink = previous_; }

}  // namespace mcph::ws
