#include "harness.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace stdio_test {
namespace {

std::mutex g_log_mutex;
std::vector<std::string> g_logs;

void host_log(void*, mcph_log_level, mcph_str source, mcph_str message) {
    std::lock_guard lock(g_log_mutex);
    g_logs.emplace_back(std::string(source.ptr, source.len) + ": " + std::string(message.ptr, message.len));
}

using mcph_test::make_error;

size_t count_dir(const char* path) {
    size_t n = 0;
    if (DIR* d = ::opendir(path)) {
        while (dirent* e = ::readdir(d))
            if (e->d_name[0] != '.') ++n;
        ::closedir(d);
    }
    return n;
}

const mcph_host_services* services() {
    static const mcph_host_services s = mcph_test::services_with_log(host_log);
    return &s;
}

}  // namespace

std::vector<std::string> Plugin::logs() {
    std::lock_guard lock(g_log_mutex);
    return g_logs;
}

Plugin& plugin() {
    static Plugin p{mcph_test::load_transport_plugin(MCPH_STDIO_PLUGIN, services())};
    return p;
}

// ---- JSON ------------------------------------------------------------------------------------

std::string json_array(const std::vector<std::string>& items) {
    std::string out = "[";
    for (size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + json_string(items[i]);
    return out + "]";
}

std::string Config::json() const {
    std::string out = "{\"type\":\"stdio\",\"name\":\"test\",\"command\":" + json_string(command);
    out += ",\"args\":" + json_array(args);
    if (!env.empty()) {
        out += ",\"env\":{";
        bool first = true;
        for (const auto& [k, v] : env) {
            out += (first ? "" : ",") + json_string(k) + ":" + json_string(v);
            first = false;
        }
        out += "}";
    }
    if (cwd) out += ",\"cwd\":" + json_string(*cwd);
    if (!extra.empty()) out += "," + extra;
    return out + "}";
}

Config sh(const std::string& script, std::string extra) {
    return Config{"/bin/sh", {"-c", script}, {}, std::nullopt, std::move(extra)};
}

Config script(const std::string& name, std::vector<std::string> args, std::string extra) {
    args.insert(args.begin(), std::string(MCPH_STDIO_SCRIPTS) + "/" + name);
    return Config{"/bin/sh", std::move(args), {}, std::nullopt, std::move(extra)};
}

// ---- Recorder --------------------------------------------------------------------------------

Recorder::Recorder(bool typed) {
    std::memset(&callbacks_, 0, sizeof callbacks_);
    callbacks_.struct_size = sizeof callbacks_;
    callbacks_.user_data = this;
    callbacks_.on_message = &Recorder::on_message;
    callbacks_.on_closed = &Recorder::on_closed;
    callbacks_.on_diagnostic = &Recorder::on_diagnostic;
    if (typed) {
        callbacks_.on_closed_ex = &Recorder::on_closed_ex;
        callbacks_.on_failure = &Recorder::on_failure;
    }
}

namespace {
RecordedFailure copy_failure(const mcph_failure* f) {
    RecordedFailure out;
    if (!f) return out;
    out.category = f->category;
    out.os_error = f->os_error;
    out.message.assign(f->message.ptr ? f->message.ptr : "", f->message.len);
    out.stderr_tail.assign(f->stderr_tail.ptr ? f->stderr_tail.ptr : "", f->stderr_tail.len);
    return out;
}
}  // namespace

void Recorder::on_closed_ex(void* self_ptr, mcph_close_reason reason, const mcph_failure* failure) {
    auto* self = static_cast<Recorder*>(self_ptr);
    self->note_callback();
    {
        std::lock_guard lock(self->mutex_);
        ++self->closed_count_;
        self->reason_ = reason;
        self->close_failure_ = copy_failure(failure);
        self->detail_ = self->close_failure_.message;
    }
    self->cv_.notify_all();
}

void Recorder::on_failure(void* self_ptr, const mcph_failure* failure) {
    auto* self = static_cast<Recorder*>(self_ptr);
    self->note_callback();
    std::lock_guard lock(self->mutex_);
    self->failures_.push_back(copy_failure(failure));
}

RecordedFailure Recorder::close_failure() {
    std::lock_guard lock(mutex_);
    return close_failure_;
}
std::vector<RecordedFailure> Recorder::failures() {
    std::lock_guard lock(mutex_);
    return failures_;
}

void Recorder::note_callback() {
    if (close_returned_.load()) late_callbacks_.fetch_add(1);
}

void Recorder::on_message(void* self_ptr, mcph_str message) {
    auto* self = static_cast<Recorder*>(self_ptr);
    self->note_callback();
    self->in_callback_.fetch_add(1);
    std::string_view text(message.ptr, message.len);
    if (self->on_message_hook) self->on_message_hook(text);
    {
        std::lock_guard lock(self->mutex_);
        self->messages_.emplace_back(text);
    }
    self->cv_.notify_all();
    self->in_callback_.fetch_sub(1);
}

void Recorder::on_closed(void* self_ptr, mcph_close_reason reason, mcph_str detail) {
    auto* self = static_cast<Recorder*>(self_ptr);
    self->note_callback();
    {
        std::lock_guard lock(self->mutex_);
        ++self->closed_count_;
        self->reason_ = reason;
        self->detail_.assign(detail.ptr, detail.len);
    }
    self->cv_.notify_all();
}

void Recorder::on_diagnostic(void* self_ptr, mcph_log_level, mcph_str message) {
    auto* self = static_cast<Recorder*>(self_ptr);
    self->note_callback();
    std::lock_guard lock(self->mutex_);
    self->diagnostics_.emplace_back(message.ptr, message.len);
}

bool Recorder::wait_messages(size_t count, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, timeout, [&] { return messages_.size() >= count; });
}

bool Recorder::wait_closed(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, timeout, [&] { return closed_count_ > 0; });
}

std::vector<std::string> Recorder::messages() {
    std::lock_guard lock(mutex_);
    return messages_;
}
std::vector<std::string> Recorder::diagnostics() {
    std::lock_guard lock(mutex_);
    return diagnostics_;
}
size_t Recorder::message_count() {
    std::lock_guard lock(mutex_);
    return messages_.size();
}
int Recorder::closed_count() {
    std::lock_guard lock(mutex_);
    return closed_count_;
}
mcph_close_reason Recorder::close_reason() {
    std::lock_guard lock(mutex_);
    return reason_;
}
std::string Recorder::close_detail() {
    std::lock_guard lock(mutex_);
    return detail_;
}

// ---- Transport -------------------------------------------------------------------------------

Transport::Transport(const std::string& config_json, bool typed)
    : mcph_test::Recording<Recorder>(typed),
      mcph_test::PluginTransport(plugin().vtable, services(), config_json, recorder.callbacks()) {}

void Transport::close() {
    close_transport();
    recorder.mark_closed_returned();
}

// ---- process introspection --------------------------------------------------------------------

long rss_kib() {
    std::ifstream in("/proc/self/status");
    std::string key;
    while (in >> key) {
        if (key == "VmRSS:") {
            long kib = 0;
            in >> kib;
            return kib;
        }
        in.ignore(1 << 20, '\n');
    }
    return -1;
}

size_t open_fd_count() { return count_dir("/proc/self/fd") - 1; }  // minus opendir's own descriptor

size_t thread_count() { return count_dir("/proc/self/task"); }

bool process_gone(long pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    if (!in) return true;
    std::string line;
    std::getline(in, line);
    size_t paren = line.rfind(')');
    return paren == std::string::npos || (paren + 2 < line.size() && line[paren + 2] == 'Z');
}

bool has_children() {
    siginfo_t info;
    std::memset(&info, 0, sizeof info);
    // ECHILD: no child at all, running or zombie.
    return ::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) == 0;
}

}  // namespace stdio_test
