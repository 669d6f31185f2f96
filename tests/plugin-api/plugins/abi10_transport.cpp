// Test plugin "abi10": a transport built against the frozen ABI 1.0 header
// (tests/plugin-api/abi-1.0/include, copied from git before 1.1 was added), to prove that a host
// of a later minor version still loads a 1.0 plugin and carries a session over it. It must never
// include plugin_helper.hpp or the current plugin_api.h; the static_assert below fails the build if
// the include path ever resolves to them.
//
// It is a tiny in-process MCP server with one I/O thread, like a real transport:
//   initialize  → the client's protocolVersion, tools capability
//   tools/list  → "echo", "crash", "warn"
//   tools/call  → "echo": text = the arguments as JSON; "crash": on_closed(ERROR) with the 1.0
//                 stderr convention ("<message>; stderr:\n<lines>"); "warn": three on_diagnostic
//                 warnings worded like a dead link, then an answer
//   ping        → {}
// Config: {"type":"abi10"}; anything else in it is ignored. The vtable is exactly the 1.0 one
// (struct_size without traits/send_ex/cancel), and so are the callbacks it reads.
#include <mcph/plugin_api.h>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <new>
#include <string>
#include <thread>

static_assert(MCPH_ABI_MAJOR == 1 && MCPH_ABI_MINOR == 0, "abi10 must be built against the frozen 1.0 header");

namespace {

mcph_str str(const std::string& s) { return mcph_str_from(s.data(), s.size()); }

std::string to_json(const rapidjson::Value& v) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
    v.Accept(w);
    return std::string(buffer.GetString(), buffer.GetSize());
}

std::string quote(const std::string& s) {
    rapidjson::Value v(rapidjson::StringRef(s.data(), s.size()));
    return to_json(v);
}

void fill(mcph_error* err, mcph_status status, const char* message) {
    if (!err || err->struct_size < sizeof(mcph_error)) return;
    err->status = status;
    std::strncpy(err->message, message, MCPH_ERROR_MESSAGE_CAPACITY - 1);
    err->message[MCPH_ERROR_MESSAGE_CAPACITY - 1] = '\0';
}

class Server {
public:
    explicit Server(const mcph_transport_callbacks* cb) : cb_(cb) {}
    ~Server() { close(); }

    void start() { worker_ = std::thread([this] { run(); }); }

    mcph_status send(mcph_str message) {
        std::lock_guard lock(mutex_);
        if (stopping_ || dead_ || !worker_.joinable()) return MCPH_ERR_CLOSED;
        inbox_.emplace_back(message.ptr, message.len);
        wake_.notify_one();
        return MCPH_OK;
    }

    void close() {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
            wake_.notify_all();
        }
        if (worker_.joinable()) worker_.join();
    }

private:
    void run() {
        for (;;) {
            std::string message;
            {
                std::unique_lock lock(mutex_);
                wake_.wait(lock, [this] { return stopping_ || !inbox_.empty(); });
                if (stopping_) return;
                message = std::move(inbox_.front());
                inbox_.pop_front();
            }
            if (!serve(message)) return;
        }
    }

    void deliver(const std::string& text) { cb_->on_message(cb_->user_data, str(text)); }
    void reply(const rapidjson::Value& id, const std::string& result) {
        deliver("{\"jsonrpc\":\"2.0\",\"id\":" + to_json(id) + ",\"result\":" + result + "}");
    }

    // False once the "server" has crashed: the worker stops.
    bool serve(const std::string& text) {
        rapidjson::Document msg;
        msg.Parse(text.data(), text.size());
        if (msg.HasParseError() || !msg.IsObject() || !msg.HasMember("method") || !msg["method"].IsString() ||
            !msg.HasMember("id"))
            return true;  // notifications and responses: nothing to answer
        const std::string method = msg["method"].GetString();
        const rapidjson::Value& id = msg["id"];
        static const rapidjson::Value kEmpty(rapidjson::kObjectType);
        const rapidjson::Value& params = msg.HasMember("params") ? msg["params"] : kEmpty;
        if (method == "initialize") {
            std::string version = params.IsObject() && params.HasMember("protocolVersion") && params["protocolVersion"].IsString()
                                      ? params["protocolVersion"].GetString()
                                      : "2025-06-18";
            reply(id, "{\"protocolVersion\":" + quote(version) +
                          ",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"abi10-server\",\"version\":\"1.0.0\"}}");
        } else if (method == "ping") {
            reply(id, "{}");
        } else if (method == "tools/list") {
            reply(id, R"({"tools":[{"name":"echo","inputSchema":{"type":"object"}},)"
                      R"({"name":"crash","inputSchema":{"type":"object"}},{"name":"warn","inputSchema":{"type":"object"}}]})");
        } else if (method == "tools/call") {
            const std::string name =
                params.IsObject() && params.HasMember("name") && params["name"].IsString() ? params["name"].GetString() : "";
            if (name == "crash") {
                {
                    std::lock_guard lock(mutex_);
                    dead_ = true;
                }
                const std::string detail = "abi10 server crashed; stderr:\nline one\nline two";
                cb_->on_closed(cb_->user_data, MCPH_CLOSE_ERROR, str(detail));
                return false;
            }
            if (name == "warn" && cb_->on_diagnostic)
                for (const char* text : {"recv failure: Connection reset by peer", "write failed: Broken pipe",
                                         "connection refused (ECONNREFUSED)"})
                    cb_->on_diagnostic(cb_->user_data, MCPH_LOG_WARN, mcph_str_from(text, std::strlen(text)));
            const std::string args = params.IsObject() && params.HasMember("arguments") ? to_json(params["arguments"]) : "{}";
            reply(id, "{\"content\":[{\"type\":\"text\",\"text\":" + quote(name + " " + args) + "}]}");
        } else {
            deliver("{\"jsonrpc\":\"2.0\",\"id\":" + to_json(id) +
                    ",\"error\":{\"code\":-32601,\"message\":" + quote("method not found: " + method) + "}}");
        }
        return true;
    }

    const mcph_transport_callbacks* cb_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::string> inbox_;
    bool stopping_ = false;
    bool dead_ = false;
    std::thread worker_;
};

Server* as_server(mcph_transport* t) { return reinterpret_cast<Server*>(t); }

mcph_status create(const mcph_host_services*, mcph_str, const mcph_transport_callbacks* cb, mcph_transport** out,
                   mcph_error* err) {
    if (!cb || !out) {
        fill(err, MCPH_ERR_INVALID_ARGUMENT, "abi10: null argument");
        return MCPH_ERR_INVALID_ARGUMENT;
    }
    Server* s = new (std::nothrow) Server(cb);
    if (!s) {
        fill(err, MCPH_ERR_INTERNAL, "abi10: out of memory");
        return MCPH_ERR_INTERNAL;
    }
    *out = reinterpret_cast<mcph_transport*>(s);
    return MCPH_OK;
}

mcph_status start(mcph_transport* t, mcph_error* err) {
    try {
        as_server(t)->start();
        return MCPH_OK;
    } catch (...) {
        fill(err, MCPH_ERR_IO, "abi10: cannot start the I/O thread");
        return MCPH_ERR_IO;
    }
}

mcph_status send(mcph_transport* t, mcph_str message, mcph_error* err) {
    try {
        mcph_status st = as_server(t)->send(message);
        if (st != MCPH_OK) fill(err, st, "abi10: transport closed");
        return st;
    } catch (...) {
        fill(err, MCPH_ERR_INTERNAL, "abi10: out of memory");
        return MCPH_ERR_INTERNAL;
    }
}

void close_transport(mcph_transport* t) { as_server(t)->close(); }
void destroy(mcph_transport* t) { delete as_server(t); }

const char* const kTypes[] = {"abi10", nullptr};

// Field by field, as a 1.0 plugin fills it: no traits, no send_ex, no cancel.
const mcph_transport_vtable_v1 kVtable = {sizeof(mcph_transport_vtable_v1), kTypes, create, start, send, nullptr,
                                          close_transport, destroy};

const void* get_interface(const char* id) {
    return id && std::strcmp(id, MCPH_TRANSPORT_INTERFACE_V1) == 0 ? &kVtable : nullptr;
}

}  // namespace

extern "C" MCPH_PLUGIN_EXPORT const mcph_plugin* mcph_plugin_entry(void) {
    static const mcph_plugin descriptor = {sizeof(mcph_plugin), MCPH_ABI_MAJOR, MCPH_ABI_MINOR, "test-abi10", "1.0.0",
                                           "a transport built against the frozen ABI 1.0 header (tests only)", nullptr,
                                           get_interface, nullptr};
    return &descriptor;
}
