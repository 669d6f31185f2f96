#include "harness.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace sse_test {
namespace {

const mcph_host_services* services() { return mcph_test::quiet_services(); }

using mcph_test::make_error;

}  // namespace

Plugin& plugin() {
    static Plugin p = mcph_test::load_transport_plugin(MCPH_SSE_PLUGIN, services());
    return p;
}

std::string config(const std::string& url, const std::string& extra, const std::string& type) {
    std::string out = "{\"type\":" + json_string(type) + ",\"name\":\"test\",\"url\":" + json_string(url);
    if (!extra.empty()) out += "," + extra;
    return out + "}";
}

// ---- Recorder ----------------------------------------------------------------------------------

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
        callbacks_.on_request_failed = &Recorder::on_request_failed;
    }
}

namespace {
std::string copy(mcph_str s) { return s.len ? std::string(s.ptr, s.len) : std::string(); }
RecordedFailure copy_failure(const mcph_failure* f) {
    RecordedFailure out;
    out.category = f->category;
    out.os_error = f->os_error;
    out.http_status = f->http_status;
    out.message = copy(f->message);
    out.body = copy(f->body);
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
    {
        std::lock_guard lock(self->mutex_);
        self->failures_.push_back(copy_failure(failure));
    }
    self->cv_.notify_all();
}

void Recorder::on_request_failed(void* self_ptr, mcph_str request_id, const mcph_failure* failure) {
    auto* self = static_cast<Recorder*>(self_ptr);
    self->note_callback();
    {
        std::lock_guard lock(self->mutex_);
        RecordedFailure f = copy_failure(failure);
        f.request_id = copy(request_id);
        self->request_failures_.push_back(std::move(f));
    }
    self->cv_.notify_all();
}

RecordedFailure Recorder::close_failure() {
    std::lock_guard lock(mutex_);
    return close_failure_;
}
std::vector<RecordedFailure> Recorder::failures() {
    std::lock_guard lock(mutex_);
    return failures_;
}
std::vector<RecordedFailure> Recorder::request_failures() {
    std::lock_guard lock(mutex_);
    return request_failures_;
}
bool Recorder::wait_request_failures(size_t count, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, timeout, [&] { return request_failures_.size() >= count; });
}

void Recorder::note_callback() {
    if (close_returned_.load()) late_callbacks_.fetch_add(1);
}

void Recorder::on_message(void* self_ptr, mcph_str message) {
    auto* self = static_cast<Recorder*>(self_ptr);
    self->note_callback();
    std::string_view text(message.ptr, message.len);
    if (self->on_message_hook) self->on_message_hook(text);
    {
        std::lock_guard lock(self->mutex_);
        self->messages_.emplace_back(text);
    }
    self->cv_.notify_all();
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

mcph_status Recorder::get_request_headers(void* self_ptr, const mcph_header_sink* sink, mcph_error*) {
    auto* self = static_cast<Recorder*>(self_ptr);
    self->note_callback();
    std::vector<std::pair<std::string, std::string>> headers;
    {
        std::lock_guard lock(self->mutex_);
        ++self->header_requests_;
        headers = self->auth_headers_;
    }
    for (const auto& [n, v] : headers)
        sink->add(sink->user_data, mcph_str_from(n.data(), n.size()), mcph_str_from(v.data(), v.size()));
    return MCPH_OK;
}

mcph_status Recorder::on_auth_challenge(void* self_ptr, int status, mcph_str www_authenticate, mcph_str,
                                        mcph_error*) {
    auto* self = static_cast<Recorder*>(self_ptr);
    self->note_callback();
    std::lock_guard lock(self->mutex_);
    ++self->challenges_;
    self->last_challenge_status_ = status;
    self->last_challenge_header_.assign(www_authenticate.ptr, www_authenticate.len);
    return self->challenge_answer_ ? MCPH_OK : MCPH_ERR_AUTH;
}

void Recorder::enable_async_auth() { callbacks_.get_request_headers_ex = &Recorder::get_request_headers_ex; }

mcph_status Recorder::get_request_headers_ex(void* self_ptr, const mcph_auth_request* request,
                                             const mcph_header_sink* sink, const mcph_auth_completion* done,
                                             mcph_error* err) {
    auto* self = static_cast<Recorder*>(self_ptr);
    if (copy(request->method) == "POST" && self->pending_posts.load()) {
        std::lock_guard lock(self->mutex_);
        self->pending_.push_back(*done);
        self->cv_.notify_all();
        return MCPH_PENDING;
    }
    return get_request_headers(self_ptr, sink, err);
}

bool Recorder::wait_pending(size_t count, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, timeout, [&] { return pending_.size() >= count; });
}

bool Recorder::complete_pending(mcph_status status, const std::vector<std::pair<std::string, std::string>>& headers) {
    mcph_auth_completion done{};
    {
        std::lock_guard lock(mutex_);
        if (pending_.empty()) return false;
        done = pending_.front();
        pending_.erase(pending_.begin());
    }
    std::vector<mcph_header> c;
    for (const auto& [n, v] : headers) c.push_back({mcph_str_from(n.data(), n.size()), mcph_str_from(v.data(), v.size())});
    done.complete(done.user_data, status, c.empty() ? nullptr : c.data(), c.size(), nullptr);
    return true;
}

size_t Recorder::cancel_all_pending() {
    size_t n = 0;
    while (complete_pending(MCPH_ERR_CANCELLED)) ++n;
    return n;
}

void Recorder::set_auth_headers(std::vector<std::pair<std::string, std::string>> headers) {
    std::lock_guard lock(mutex_);
    auth_headers_ = std::move(headers);
}
void Recorder::set_challenge_answer(bool retry) {
    std::lock_guard lock(mutex_);
    challenge_answer_ = retry;
}
int Recorder::challenges() {
    std::lock_guard lock(mutex_);
    return challenges_;
}
int Recorder::last_challenge_status() {
    std::lock_guard lock(mutex_);
    return last_challenge_status_;
}
std::string Recorder::last_challenge_header() {
    std::lock_guard lock(mutex_);
    return last_challenge_header_;
}
int Recorder::header_requests() {
    std::lock_guard lock(mutex_);
    return header_requests_;
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

// ---- Transport ---------------------------------------------------------------------------------

Transport::Transport(const std::string& config_json, bool typed)
    : mcph_test::Recording<Recorder>(typed),
      mcph_test::PluginTransport(plugin().vtable, services(), config_json, recorder.callbacks()) {}

void Transport::close() {
    recorder.cancel_all_pending();  // as the host does (ABI v1.2): before the plugin's close
    close_transport();
    recorder.mark_closed_returned();
}

bool any_contains(const std::vector<std::string>& lines, const std::string& needle) {
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.find(needle) != std::string::npos; });
}

}  // namespace sse_test
