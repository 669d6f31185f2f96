// Transport type "loopback": instead of reaching a server, it *is* one — a tiny in-memory MCP
// server with one tool, `greet`. It shows everything a transport plugin does: read its config,
// start, take messages from the host (send), hand messages back (deliver) from its own thread,
// and close. Replace serve() with your real I/O (a socket, a pipe, a message bus) to make it yours.
//
// Server config (an entry of "mcpServers"):  {"type": "loopback", "greeting": "Hello"}
//   greeting — optional string, the word `greet` answers with (default "Hello").
#include <mcph/bounded_json.hpp>    // depth-bounded RapidJSON parsing: config and messages are untrusted
#include <mcph/plugin_helper.hpp>   // C++ classes over the C ABI in plugin_api.h

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

namespace {

using mcph::plugin::Error;  // thrown from any method: becomes an mcph_status + message for the host

// Writes under the same nesting bound the host uses (bounded_json.hpp): a plugin never serialises
// a tree deeper than the host would accept.
std::string to_json(const rapidjson::Value& v) {
    rapidjson::StringBuffer out;
    if (!mcph::json_bounds::write(v, out)) throw Error(MCPH_ERR_INTERNAL, "loopback: reply nested too deep");
    return std::string(out.GetString(), out.GetSize());
}

std::string quote(const std::string& s) { return to_json(rapidjson::Value(rapidjson::StringRef(s.data(), s.size()))); }

class LoopbackTransport : public mcph::plugin::Transport {
public:
    // Called when the host creates a connection; `config` is the server's JSON config object.
    LoopbackTransport(mcph::plugin::TransportHost host, std::string_view config) : host_(host) {
        // ConfigReader: bounded parse, typed fields, errors that name the field (docs/plugin-abi.md).
        mcph::plugin::ConfigReader r(config, "loopback");
        greeting_ = r.string("greeting").value_or(greeting_);
        r.throw_if_error();  // the first failure, as MCPH_ERR_INVALID_ARGUMENT + its message
    }
    ~LoopbackTransport() override { close(); }

    // Messages are delivered from our own thread, never from inside send() on the host's thread.
    void start() override {
        std::lock_guard lock(mutex_);
        if (!worker_.joinable()) worker_ = std::thread([this] { run(); });
    }

    // One JSON-RPC message from the host (thread-safe: any host thread may call it).
    void send(std::string_view message) override {
        std::lock_guard lock(mutex_);
        if (stopping_ || !worker_.joinable()) throw Error(MCPH_ERR_CLOSED, "loopback: not running");
        inbox_.emplace_back(message);
        wake_.notify_one();
    }

    // Idempotent; after it returns no callback runs.
    void close() noexcept override {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
            wake_.notify_all();
        }
        if (worker_.joinable() && worker_.get_id() != std::this_thread::get_id()) worker_.join();
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
            serve(message);
        }
    }

    void reply(const rapidjson::Value& id, const std::string& result) {
        host_.deliver(R"({"jsonrpc":"2.0","id":)" + to_json(id) + R"(,"result":)" + result + "}");
    }

    // The "server": answers requests, ignores notifications (no id) and anything malformed.
    void serve(const std::string& text) {
        rapidjson::Document msg;
        if (!mcph::json_bounds::parse(msg, text) || !msg.IsObject() || !msg.HasMember("id") || !msg.HasMember("method") ||
            !msg["method"].IsString()) {
            return;
        }
        const std::string method = msg["method"].GetString();
        const rapidjson::Value& id = msg["id"];
        static const rapidjson::Value kNoParams(rapidjson::kObjectType);
        const rapidjson::Value& params = msg.HasMember("params") ? msg["params"] : kNoParams;
        if (method == "initialize") {
            const std::string version = params.IsObject() && params.HasMember("protocolVersion") &&
                                                params["protocolVersion"].IsString()
                                            ? params["protocolVersion"].GetString()
                                            : "2025-06-18";
            reply(id, R"({"protocolVersion":)" + quote(version) +
                          R"(,"capabilities":{"tools":{}},"serverInfo":{"name":"loopback","version":"0.1.0"}})");
        } else if (method == "tools/list") {
            reply(id, R"({"tools":[{"name":"greet","description":"Greets someone",)"
                      R"("inputSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}]})");
        } else if (method == "tools/call") {
            reply(id, call(params));
        } else if (method == "ping") {
            reply(id, "{}");
        } else {
            host_.deliver(R"({"jsonrpc":"2.0","id":)" + to_json(id) +
                          R"(,"error":{"code":-32601,"message":)" + quote("method not found: " + method) + "}}");
        }
    }

    std::string call(const rapidjson::Value& params) {
        auto text = [](const std::string& s, bool error) {
            return R"({"content":[{"type":"text","text":)" + quote(s) + R"(}],"isError":)" + (error ? "true" : "false") + "}";
        };
        if (!params.IsObject() || !params.HasMember("name") || !params["name"].IsString() ||
            std::string(params["name"].GetString()) != "greet")
            return text("unknown tool", true);
        const auto args = params.FindMember("arguments");
        if (args == params.MemberEnd() || !args->value.IsObject() || !args->value.HasMember("name") ||
            !args->value["name"].IsString())
            return text("greet needs a string argument 'name'", true);
        return text(greeting_ + ", " + args->value["name"].GetString() + "!", false);
    }

    mcph::plugin::TransportHost host_;
    std::string greeting_ = "Hello";

    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::string> inbox_;
    bool stopping_ = false;
    std::thread worker_;
};

// The config "type" values this plugin serves (null-terminated), and its transport vtable.
const char* const kTypes[] = {"loopback", nullptr};
const auto kVtable = mcph::plugin::make_transport_vtable<LoopbackTransport>(kTypes);

}  // namespace

// The one exported symbol: name, version, description, init hook (none), the interface served.
MCPH_DEFINE_PLUGIN("transport-loopback", "0.1.0", "in-memory loopback MCP server (plugin template)", nullptr,
                   MCPH_TRANSPORT_INTERFACE_V1, &kVtable)
