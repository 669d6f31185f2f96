// Test plugin "echo": an in-memory transport written with plugin_helper.hpp. It owns one I/O
// thread, like a real transport, and delivers every message from it.
//
// Config (the server's config object; "type" is "echo"):
//   "mode": "echo"  — every sent message comes straight back, byte for byte; but
//       "diagnose <level> <bytes>" first reports a diagnostic of that raw level and size (a
//       misbehaving plugin: a level outside the enum, an enormous text), then echoes.
//   "mode": "mcp"   — (default) a tiny in-process MCP server:
//       initialize   → protocolVersion (config "answerProtocolVersion", else the client's), tools capability
//       tools/list   → config "tools", paginated by config "pageSize" (0 = one page)
//       tools/call   → "fail": JSON-RPC error -32000; "slow": never answered; "crash": the transport
//                      reports on_closed(ERROR); "roots": asks the client roots/list first and
//                      answers with its result; "state": the notifications, options and cancelled
//                      ids seen so far; any other name: text "<name> <arguments>", and
//                      structuredContent = arguments.structured when present.
//       ping         → {}
//   "failStart": true — start() fails with MCPH_ERR_IO.
// A config that is not an object, a field of the wrong type, or an unknown mode is
// MCPH_ERR_INVALID_ARGUMENT.
#include <mcph/plugin_helper.hpp>

#include <rapidjson/document.h>

#include <cstdio>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

// set_option calls with an "unsupported-" key, across every transport of this library.
std::atomic<int> g_unsupported_option_calls{0};

using mcph::plugin::Error;

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

class EchoTransport : public mcph::plugin::Transport {
public:
    // Read with the SDK's ConfigReader, as a vendor would (docs/plugin-abi.md).
    EchoTransport(mcph::plugin::TransportHost host, std::string_view config) : host_(host) {
        mcph::plugin::ConfigReader r(config, "echo");
        mode_ = r.string("mode").value_or(mode_);
        if (mode_ != "echo" && mode_ != "mcp") r.fail("mode", "is an unknown mode '" + mode_ + "'");
        protocol_version_ = r.string("answerProtocolVersion").value_or("");
        if (const rapidjson::Value* t = r.value("tools"); t && t->IsArray())
            for (const auto& tool : t->GetArray()) tools_.push_back(to_json(tool));
        page_size_ = r.integer<std::size_t>("pageSize", 0, 1000000, page_size_);
        fail_start_ = r.boolean("failStart").value_or(false);
        r.throw_if_error();
    }

    ~EchoTransport() override { close(); }

    void start() override {
        if (fail_start_) throw Error(MCPH_ERR_IO, "echo: start refused by config (failStart)");
        std::lock_guard lock(mutex_);
        if (!worker_.joinable()) worker_ = std::thread([this] { run(); });
    }

    void send(std::string_view message) override {
        std::lock_guard lock(mutex_);
        if (stopping_ || dead_) throw Error(MCPH_ERR_CLOSED, "echo: transport closed");
        if (!worker_.joinable()) throw Error(MCPH_ERR_CLOSED, "echo: not started");
        inbox_.emplace_back(message);
        wake_.notify_one();
    }

    void set_option(std::string_view key, std::string_view value) override {
        // An unknown key, as the ABI answers it; counted process-wide (the host should ask once).
        if (key.substr(0, 12) == "unsupported-") {
            ++g_unsupported_option_calls;
            throw Error(MCPH_ERR_UNSUPPORTED, "unknown option");
        }
        std::lock_guard lock(mutex_);
        options_[std::string(key)] = std::string(value);
    }

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
            if (mode_ == "echo") {
                unsigned level = 0;
                std::size_t bytes = 0;
                if (std::sscanf(message.c_str(), "diagnose %u %zu", &level, &bytes) == 2)
                    host_.diagnostic(static_cast<mcph_log_level>(level), std::string(bytes, 'x'));
                host_.deliver(message);
                continue;
            }
            if (!serve(message)) return;  // crashed
        }
    }

    void reply(const rapidjson::Value& id, const std::string& result_json) {
        host_.deliver("{\"jsonrpc\":\"2.0\",\"id\":" + to_json(id) + ",\"result\":" + result_json + "}");
    }
    void reply_error(const rapidjson::Value& id, int code, const std::string& message) {
        host_.deliver("{\"jsonrpc\":\"2.0\",\"id\":" + to_json(id) + ",\"error\":{\"code\":" + std::to_string(code) +
                      ",\"message\":" + quote(message) + "}}");
    }

    // Returns false when the server "crashed" (the worker stops).
    bool serve(const std::string& text) {
        rapidjson::Document msg;
        msg.Parse(text.data(), text.size());
        if (msg.HasParseError() || !msg.IsObject()) {
            host_.diagnostic(MCPH_LOG_WARN, "echo: client sent something that is not a JSON object");
            return true;
        }
        auto method_it = msg.FindMember("method");
        auto id_it = msg.FindMember("id");
        if (method_it == msg.MemberEnd()) {  // a response to one of our requests
            if (id_it == msg.MemberEnd() || !id_it->value.IsString()) return true;
            auto waiting = server_requests_.find(id_it->value.GetString());
            if (waiting == server_requests_.end()) return true;
            rapidjson::Document original;
            original.Parse(waiting->second.c_str());
            server_requests_.erase(waiting);
            auto result = msg.FindMember("result");
            std::string payload = result != msg.MemberEnd() ? to_json(result->value) : to_json(msg["error"]);
            reply(original, "{\"content\":[{\"type\":\"text\",\"text\":" + quote(payload) + "}]}");
            return true;
        }
        const std::string method = method_it->value.IsString() ? method_it->value.GetString() : "";
        auto params_it = msg.FindMember("params");
        if (id_it == msg.MemberEnd()) {  // a notification
            std::lock_guard lock(mutex_);
            notifications_.push_back(method);
            if (method == "notifications/cancelled" && params_it != msg.MemberEnd() && params_it->value.IsObject()) {
                auto rid = params_it->value.FindMember("requestId");
                if (rid != params_it->value.MemberEnd()) cancelled_.push_back(to_json(rid->value));
            }
            return true;
        }
        const rapidjson::Value& id = id_it->value;
        static const rapidjson::Value kEmpty(rapidjson::kObjectType);
        const rapidjson::Value& params = params_it != msg.MemberEnd() ? params_it->value : kEmpty;

        if (method == "initialize") {
            std::string version = protocol_version_;
            if (version.empty() && params.IsObject() && params.HasMember("protocolVersion") &&
                params["protocolVersion"].IsString())
                version = params["protocolVersion"].GetString();
            reply(id, "{\"protocolVersion\":" + quote(version) +
                          ",\"capabilities\":{\"tools\":{\"listChanged\":true}},"
                          "\"serverInfo\":{\"name\":\"echo-server\",\"version\":\"1.2.3\",\"title\":\"Echo\"},"
                          "\"instructions\":\"say something\"}");
        } else if (method == "ping") {
            reply(id, "{}");
        } else if (method == "tools/list") {
            std::size_t offset = 0;
            if (params.IsObject() && params.HasMember("cursor") && params["cursor"].IsString())
                offset = std::stoul(params["cursor"].GetString());
            const std::size_t count = page_size_ ? page_size_ : tools_.size();
            std::string list = "[";
            for (std::size_t i = offset; i < tools_.size() && i < offset + count; ++i)
                list += (i == offset ? "" : ",") + tools_[i];
            list += "]";
            std::string result = "{\"tools\":" + list;
            if (offset + count < tools_.size()) result += ",\"nextCursor\":" + quote(std::to_string(offset + count));
            reply(id, result + "}");
        } else if (method == "tools/call") {
            return call_tool(id, params);
        } else {
            reply_error(id, -32601, "method not found: " + method);
        }
        return true;
    }

    bool call_tool(const rapidjson::Value& id, const rapidjson::Value& params) {
        const std::string name =
            params.IsObject() && params.HasMember("name") && params["name"].IsString() ? params["name"].GetString() : "";
        static const rapidjson::Value kEmpty(rapidjson::kObjectType);
        const rapidjson::Value& args = params.IsObject() && params.HasMember("arguments") ? params["arguments"] : kEmpty;
        if (name == "fail") {
            reply_error(id, -32000, "tool failed on purpose");
        } else if (name == "slow") {
            // never answered
        } else if (name == "crash") {
            {
                std::lock_guard lock(mutex_);
                dead_ = true;
            }
            host_.closed(MCPH_CLOSE_ERROR, "echo server crashed on request");
            return false;
        } else if (name == "roots") {
            const std::string request_id = "srv-" + std::to_string(++server_request_counter_);
            server_requests_[request_id] = to_json(id);
            host_.deliver("{\"jsonrpc\":\"2.0\",\"id\":" + quote(request_id) + ",\"method\":\"roots/list\"}");
        } else if (name == "state") {
            std::string state;
            {
                std::lock_guard lock(mutex_);
                state = "{\"notifications\":[";
                for (std::size_t i = 0; i < notifications_.size(); ++i) state += (i ? "," : "") + quote(notifications_[i]);
                state += "],\"cancelled\":[";
                for (std::size_t i = 0; i < cancelled_.size(); ++i) state += (i ? "," : "") + cancelled_[i];
                state += "],\"options\":{";
                bool first = true;
                for (const auto& [k, v] : options_) {
                    state += (first ? "" : ",") + quote(k) + ":" + quote(v);
                    first = false;
                }
                state += "},\"unsupported_option_calls\":" + std::to_string(g_unsupported_option_calls.load()) + "}";
            }
            reply(id, "{\"content\":[{\"type\":\"text\",\"text\":" + quote(state) + "}]}");
        } else {
            std::string result = "{\"content\":[{\"type\":\"text\",\"text\":" + quote(name + " " + to_json(args)) + "}]";
            if (args.IsObject() && args.HasMember("structured"))
                result += ",\"structuredContent\":" + to_json(args["structured"]);
            reply(id, result + "}");
        }
        return true;
    }

    mcph::plugin::TransportHost host_;
    std::string mode_ = "mcp";
    std::string protocol_version_;
    std::vector<std::string> tools_;
    std::size_t page_size_ = 0;
    bool fail_start_ = false;

    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::string> inbox_;
    bool stopping_ = false;
    bool dead_ = false;
    std::thread worker_;
    std::vector<std::string> notifications_;
    std::vector<std::string> cancelled_;
    std::map<std::string, std::string> options_;

    // Worker-thread only.
    std::map<std::string, std::string> server_requests_;  // our request id -> the tools/call id (JSON)
    int server_request_counter_ = 0;
};

const char* const kTypes[] = {"echo", nullptr};
// The lazy/ and lying/ builds of this plugin carry a manifest (the loader tests of lazy loading).
#ifdef MCPH_TEST_MANIFEST
MCPH_PLUGIN_MANIFEST(MCPH_TEST_MANIFEST)
#endif
const auto kVtable = mcph::plugin::make_transport_vtable<EchoTransport>(kTypes);

}  // namespace

MCPH_DEFINE_PLUGIN("test-echo", "1.0.0", "in-memory echo transport / tiny MCP server (tests only)", nullptr,
                   MCPH_TRANSPORT_INTERFACE_V1, &kVtable)
