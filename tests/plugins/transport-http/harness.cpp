#include "harness.hpp"

#include <strings.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace http_test {
namespace {

const mcph_host_services* services() { return mcph_test::quiet_services(); }

using mcph_test::make_error;
using mcph_test::text;

}  // namespace

Plugin& plugin() {
    static Plugin p = mcph_test::load_transport_plugin(MCPH_HTTP_PLUGIN, services());
    return p;
}

std::string request(int id, const std::string& method) {
    return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":")" + method + R"("})";
}

std::string empty_result(int id) { return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"result":{}})"; }

std::string event(const std::string& data, const std::string& id) {
    return (id.empty() ? "" : "id: " + id + "\n") + "data: " + data + "\n\n";
}

rapidjson::Document parse(const std::string& text) {
    rapidjson::Document d;
    d.Parse(text.c_str());
    return d;
}

const rapidjson::Value* error_for(const rapidjson::Document& d, int id) {
    if (!d.IsObject() || !d.HasMember("id") || !d["id"].IsInt() || d["id"].GetInt() != id) return nullptr;
    if (!d.HasMember("error") || !d["error"].IsObject()) return nullptr;
    return &d["error"];
}

std::string error_message_for(const std::vector<std::string>& messages, int id) {
    for (const std::string& m : messages) {
        rapidjson::Document d = parse(m);
        if (const rapidjson::Value* e = error_for(d, id)) return (*e)["message"].GetString();
    }
    return {};
}

std::string http_config(const std::string& url, const std::string& extra) {
    std::string out = "{\"type\":\"http\",\"name\":\"test\",\"url\":" + json_string(url);
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
        callbacks_.on_request_failed = &Recorder::on_request_failed;
        callbacks_.on_failure = &Recorder::on_failure;
        callbacks_.on_closed_ex = &Recorder::on_closed_ex;
    }
}

namespace {
TypedFailure typed_of(std::string request_id, const mcph_failure* f) {
    TypedFailure out;
    out.request_id = std::move(request_id);
    out.category = f->category;
    out.os_error = f->os_error;
    out.http_status = f->http_status;
    out.message = text(f->message);
    out.body = text(f->body);
    return out;
}
}  // namespace

void Recorder::on_request_failed(void* self_ptr, mcph_str request_id, const mcph_failure* failure) {
    auto* self = static_cast<Recorder*>(self_ptr);
    self->note_callback();
    {
        std::lock_guard lock(self->mutex_);
        self->request_failures_.push_back(typed_of(text(request_id), failure));
    }
    self->cv_.notify_all();
}

void Recorder::on_failure(void* self_ptr, const mcph_failure* failure) {
    auto* self = static_cast<Recorder*>(self_ptr);
    self->note_callback();
    {
        std::lock_guard lock(self->mutex_);
        self->failures_.push_back(typed_of({}, failure));
    }
    self->cv_.notify_all();
}

void Recorder::on_closed_ex(void* self_ptr, mcph_close_reason reason, const mcph_failure* failure) {
    auto* self = static_cast<Recorder*>(self_ptr);
    self->note_callback();
    {
        std::lock_guard lock(self->mutex_);
        ++self->closed_count_;
        self->reason_ = reason;
        self->detail_ = text(failure->message);
        self->close_failure_ = typed_of({}, failure);
    }
    self->cv_.notify_all();
}

bool Recorder::wait_request_failures(size_t count, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, timeout, [&] { return request_failures_.size() >= count; });
}
std::vector<TypedFailure> Recorder::request_failures() {
    std::lock_guard lock(mutex_);
    return request_failures_;
}
std::vector<TypedFailure> Recorder::failures() {
    std::lock_guard lock(mutex_);
    return failures_;
}
TypedFailure Recorder::close_failure() {
    std::lock_guard lock(mutex_);
    return close_failure_;
}

void Recorder::note_callback() {
    if (close_returned_.load()) late_callbacks_.fetch_add(1);
}

void Recorder::on_message(void* self_ptr, mcph_str message) {
    auto* self = static_cast<Recorder*>(self_ptr);
    self->note_callback();
    int now = self->in_message_.fetch_add(1) + 1;
    int seen = self->max_concurrent_.load();
    while (now > seen && !self->max_concurrent_.compare_exchange_weak(seen, now)) {
    }
    // One copy per message (the memory tests count this process's peak RSS): the hook gets its
    // own only when there is a hook.
    std::string m = text(message);
    std::string for_hook = self->on_message_hook ? m : std::string();
    {
        std::lock_guard lock(self->mutex_);
        self->messages_.push_back(std::move(m));
    }
    self->cv_.notify_all();
    if (self->on_message_hook) self->on_message_hook(for_hook);
    self->in_message_.fetch_sub(1);
}

void Recorder::on_closed(void* self_ptr, mcph_close_reason reason, mcph_str detail) {
    auto* self = static_cast<Recorder*>(self_ptr);
    self->note_callback();
    {
        std::lock_guard lock(self->mutex_);
        ++self->closed_count_;
        self->reason_ = reason;
        self->detail_ = text(detail);
    }
    self->cv_.notify_all();
}

void Recorder::on_diagnostic(void* self_ptr, mcph_log_level, mcph_str message) {
    auto* self = static_cast<Recorder*>(self_ptr);
    self->note_callback();
    std::lock_guard lock(self->mutex_);
    self->diagnostics_.push_back(text(message));
}

mcph_status Recorder::get_request_headers(void* self_ptr, const mcph_header_sink* sink, mcph_error* err) {
    auto* self = static_cast<Recorder*>(self_ptr);
    self->note_callback();
    if (!self->headers_hook) return MCPH_OK;
    try {
        for (const auto& [n, v] : self->headers_hook())
            sink->add(sink->user_data, mcph_str_from(n.data(), n.size()), mcph_str_from(v.data(), v.size()));
        return MCPH_OK;
    } catch (int status) {
        std::snprintf(err->message, sizeof err->message, "no credentials (test)");
        err->status = static_cast<mcph_status>(status);
        return static_cast<mcph_status>(status);
    }
}

mcph_status Recorder::on_auth_challenge(void* self_ptr, int status, mcph_str www, mcph_str url, mcph_error*) {
    auto* self = static_cast<Recorder*>(self_ptr);
    self->note_callback();
    Challenge c{status, text(www), text(url)};
    {
        std::lock_guard lock(self->mutex_);
        self->challenges_.push_back(c);
    }
    return self->challenge_hook && self->challenge_hook(c) ? MCPH_OK : MCPH_ERR_AUTH;
}

// ---- ABI v1.2 auth hooks --------------------------------------------------------------------

std::string AuthCall::header(const std::string& name) const {
    for (const auto& [n, v] : response_headers)
        if (strcasecmp(n.c_str(), name.c_str()) == 0) return v;
    return {};
}

void Recorder::enable_async_auth() {
    callbacks_.get_request_headers_ex = &Recorder::get_request_headers_ex;
    callbacks_.on_auth_challenge_ex = &Recorder::on_auth_challenge_ex;
}

namespace {
AuthCall call_of(const mcph_auth_request* r, bool challenge) {
    AuthCall c;
    c.challenge = challenge;
    c.method = text(r->method);
    c.url = text(r->url);
    c.http_status = r->http_status;
    c.www_authenticate = text(r->www_authenticate);
    for (size_t i = 0; r->response_headers && i < r->response_header_count; ++i)
        c.response_headers.emplace_back(text(r->response_headers[i].name), text(r->response_headers[i].value));
    return c;
}
}  // namespace

mcph_status Recorder::get_request_headers_ex(void* self_ptr, const mcph_auth_request* request,
                                             const mcph_header_sink* sink, const mcph_auth_completion* done,
                                             mcph_error*) {
    auto* self = static_cast<Recorder*>(self_ptr);
    self->note_callback();
    AuthCall call = call_of(request, false);
    std::optional<std::vector<std::pair<std::string, std::string>>> answer =
        self->async_headers_hook ? self->async_headers_hook(call) : std::vector<std::pair<std::string, std::string>>{};
    std::lock_guard lock(self->mutex_);
    self->auth_calls_.push_back(call);
    if (!answer) {
        self->pending_.push_back(*done);
        self->cv_.notify_all();
        return MCPH_PENDING;
    }
    for (const auto& [n, v] : *answer)
        sink->add(sink->user_data, mcph_str_from(n.data(), n.size()), mcph_str_from(v.data(), v.size()));
    return MCPH_OK;
}

mcph_status Recorder::on_auth_challenge_ex(void* self_ptr, const mcph_auth_request* request,
                                           const mcph_auth_completion* done, mcph_error*) {
    auto* self = static_cast<Recorder*>(self_ptr);
    self->note_callback();
    AuthCall call = call_of(request, true);
    std::optional<bool> answer = self->async_challenge_hook ? self->async_challenge_hook(call) : std::optional<bool>(false);
    std::lock_guard lock(self->mutex_);
    self->auth_calls_.push_back(call);
    self->challenges_.push_back(Challenge{call.http_status, call.www_authenticate, call.url});
    if (!answer) {
        self->pending_.push_back(*done);
        self->cv_.notify_all();
        return MCPH_PENDING;
    }
    return *answer ? MCPH_OK : MCPH_ERR_AUTH;
}

bool Recorder::wait_pending(size_t count, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, timeout, [&] { return pending_.size() >= count; });
}

size_t Recorder::pending_count() {
    std::lock_guard lock(mutex_);
    return pending_.size();
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
    mcph_error err;
    std::memset(&err, 0, sizeof err);
    err.struct_size = sizeof err;
    err.status = status;
    std::snprintf(err.message, sizeof err.message, "test host refused (%d)", static_cast<int>(status));
    done.complete(done.user_data, status, c.empty() ? nullptr : c.data(), c.size(), status == MCPH_OK ? nullptr : &err);
    return true;
}

size_t Recorder::cancel_all_pending() {
    size_t n = 0;
    while (complete_pending(MCPH_ERR_CANCELLED)) ++n;
    return n;
}

std::vector<AuthCall> Recorder::auth_calls() {
    std::lock_guard lock(mutex_);
    return auth_calls_;
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
std::vector<Challenge> Recorder::challenges() {
    std::lock_guard lock(mutex_);
    return challenges_;
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

mcph_status Transport::send_ex(std::string_view message, const Facts& facts) {
    std::vector<mcph_header> params;
    for (const auto& [n, v] : facts.params) params.push_back({mcph_str_from(n.data(), n.size()), mcph_str_from(v.data(), v.size())});
    mcph_message_facts f;
    std::memset(&f, 0, sizeof f);
    f.struct_size = sizeof f;
    f.id = mcph_str_from(facts.id.data(), facts.id.size());
    f.method = mcph_str_from(facts.method.data(), facts.method.size());
    f.name = mcph_str_from(facts.name.data(), facts.name.size());
    f.protocol_version = mcph_str_from(facts.protocol_version.data(), facts.protocol_version.size());
    f.params = params.empty() ? nullptr : params.data();
    f.param_count = params.size();
    f.flags = facts.flags;
    mcph_error err = make_error();
    return noted(vtable()->send_ex(handle(), mcph_str_from(message.data(), message.size()), &f, &err), err);
}

mcph_status Transport::cancel(std::string_view request_id) {
    mcph_error err = make_error();
    return vtable()->cancel(handle(), mcph_str_from(request_id.data(), request_id.size()), &err);
}

void Transport::close() {
    recorder.cancel_all_pending();  // as the host does (ABI v1.2): before the plugin's close
    close_transport();
    recorder.mark_closed_returned();
}

}  // namespace http_test
