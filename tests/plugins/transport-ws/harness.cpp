#include "harness.hpp"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace ws_test {
namespace {

const mcph_host_services* services() { return mcph_test::quiet_services(); }

using mcph_test::make_error;
using mcph_test::text;

}  // namespace

Plugin& plugin() {
    static Plugin p = mcph_test::load_transport_plugin(MCPH_WS_PLUGIN, services());
    return p;
}

std::string ws_config(const std::string& url, const std::string& extra, const std::string& type) {
    std::string out = "{\"type\":" + json_string(type) + ",\"name\":\"test\",\"url\":" + json_string(url);
    if (!extra.empty()) out += "," + extra;
    return out + "}";
}

// ---- Recorder --------------------------------------------------------------------------------

Recorder::Recorder(bool typed) {
    std::memset(&callbacks_, 0, sizeof callbacks_);
    callbacks_.struct_size = sizeof callbacks_;
    callbacks_.user_data = this;
    callbacks_.on_message = &Recorder::on_message;
    callbacks_.on_closed = &Recorder::on_closed;
    callbacks_.on_diagnostic = &Recorder::on_diagnostic;
    callbacks_.get_request_headers = &Recorder::get_request_headers;
    callbacks_.on_auth_challenge = &Recorder::on_auth_challenge;
    if (typed) {
        callbacks_.on_closed_ex = &Recorder::on_closed_ex;
        callbacks_.on_failure = &Recorder::on_failure;
    }
}

void Recorder::on_closed_ex(void* p, mcph_close_reason reason, const mcph_failure* failure) {
    auto* self = static_cast<Recorder*>(p);
    self->note_callback();
    {
        std::lock_guard lock(self->mutex_);
        ++self->closed_count_;
        self->reason_ = reason;
        self->close_category_ = failure->category;
        self->detail_ = text(failure->message);
    }
    self->cv_.notify_all();
}

void Recorder::on_failure(void* p, const mcph_failure* failure) {
    auto* self = static_cast<Recorder*>(p);
    self->note_callback();
    std::lock_guard lock(self->mutex_);
    self->failures_.push_back(failure->category);
}

void Recorder::note_callback() {
    if (close_returned_.load()) late_callbacks_.fetch_add(1);
}

void Recorder::on_message(void* p, mcph_str message) {
    auto* self = static_cast<Recorder*>(p);
    self->note_callback();
    if (self->in_message_.fetch_add(1) != 0) self->overlap_.fetch_add(1);
    std::string_view v(message.ptr, message.len);
    if (self->on_message_hook) self->on_message_hook(v);
    {
        std::lock_guard lock(self->mutex_);
        self->messages_.emplace_back(v);
    }
    self->in_message_.fetch_sub(1);
    self->cv_.notify_all();
}

void Recorder::on_closed(void* p, mcph_close_reason reason, mcph_str detail) {
    auto* self = static_cast<Recorder*>(p);
    self->note_callback();
    {
        std::lock_guard lock(self->mutex_);
        ++self->closed_count_;
        self->reason_ = reason;
        self->detail_ = text(detail);
    }
    self->cv_.notify_all();
}

void Recorder::on_diagnostic(void* p, mcph_log_level, mcph_str message) {
    auto* self = static_cast<Recorder*>(p);
    self->note_callback();
    std::lock_guard lock(self->mutex_);
    self->diagnostics_.push_back(text(message));
}

mcph_status Recorder::get_request_headers(void* p, const mcph_header_sink* sink, mcph_error*) {
    auto* self = static_cast<Recorder*>(p);
    Headers h;
    {
        std::lock_guard lock(self->mutex_);
        ++self->header_requests_;
        h = self->auth_headers_;
    }
    for (auto& [n, v] : h) sink->add(sink->user_data, mcph_str_from(n.data(), n.size()), mcph_str_from(v.data(), v.size()));
    return MCPH_OK;
}

mcph_status Recorder::on_auth_challenge(void* p, int status, mcph_str www, mcph_str resource, mcph_error*) {
    auto* self = static_cast<Recorder*>(p);
    std::lock_guard lock(self->mutex_);
    ++self->challenges_;
    self->challenge_status_ = status;
    self->challenge_header_ = text(www);
    self->challenge_resource_ = text(resource);
    if (!self->challenge_refreshes_) return MCPH_ERR_AUTH;
    self->auth_headers_ = self->headers_after_challenge_;
    return MCPH_OK;
}

void Recorder::set_auth_headers(Headers h) {
    std::lock_guard lock(mutex_);
    auth_headers_ = std::move(h);
}

void Recorder::set_challenge_answer(bool refreshed, Headers after) {
    std::lock_guard lock(mutex_);
    challenge_refreshes_ = refreshed;
    headers_after_challenge_ = std::move(after);
}

bool Recorder::wait_messages(size_t count, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, timeout, [&] { return messages_.size() >= count; });
}

bool Recorder::wait_closed(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, timeout, [&] { return closed_count_ > 0; });
}

#define LOCKED_GETTER(type, name, member) \
    type Recorder::name() {               \
        std::lock_guard lock(mutex_);     \
        return member;                    \
    }
LOCKED_GETTER(std::vector<std::string>, messages, messages_)
LOCKED_GETTER(std::vector<std::string>, diagnostics, diagnostics_)
LOCKED_GETTER(int, closed_count, closed_count_)
LOCKED_GETTER(mcph_close_reason, close_reason, reason_)
LOCKED_GETTER(std::string, close_detail, detail_)
LOCKED_GETTER(mcph_failure_category, close_category, close_category_)
LOCKED_GETTER(std::vector<mcph_failure_category>, failures, failures_)
LOCKED_GETTER(int, challenges, challenges_)
LOCKED_GETTER(int, last_challenge_status, challenge_status_)
LOCKED_GETTER(std::string, last_challenge_header, challenge_header_)
LOCKED_GETTER(std::string, last_challenge_resource, challenge_resource_)
LOCKED_GETTER(int, header_requests, header_requests_)
#undef LOCKED_GETTER

// ---- Transport -------------------------------------------------------------------------------

Transport::Transport(const std::string& config_json, bool typed)
    : mcph_test::Recording<Recorder>(typed),
      mcph_test::PluginTransport(plugin().vtable, services(), config_json, recorder.callbacks()) {}

void Transport::close() {
    close_transport();
    recorder.mark_closed_returned();
}

size_t thread_count() {
    size_t n = 0;
    if (DIR* d = ::opendir("/proc/self/task")) {
        while (dirent* e = ::readdir(d))
            if (e->d_name[0] != '.') ++n;
        ::closedir(d);
    }
    return n;
}

long ms_since(std::chrono::steady_clock::time_point start) {
    return static_cast<long>(
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count());
}

int free_port() {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    ::close(fd);
    return ntohs(a.sin_port);
}

}  // namespace ws_test
