// A configuration service on loopback for the remote-config tests (remote_config_test.cpp): the
// webapp connector service and the managed settings endpoint of issue #15, as a real HTTP server
// (hostile_peer_support.hpp's RawHttpServer) whose answer to GET the test scripts — a status and
// body, or accepting the request and never answering — and which counts the requests it received.
#pragma once

#include "hostile_peer_support.hpp"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

namespace mcph::test {

class ConfigService {
public:
    struct Answer {
        std::string status = "200 OK";
        std::string body;
        bool hang = false;  // accept the request, never answer (until the service is destroyed)
    };

    ConfigService() = default;
    ~ConfigService() {
        std::lock_guard lock(mutex_);
        released_ = true;
        wake_.notify_all();
    }
    ConfigService(const ConfigService&) = delete;
    ConfigService& operator=(const ConfigService&) = delete;

    void answer(Answer a) {
        std::lock_guard lock(mutex_);
        answer_ = std::move(a);
    }
    void answer_json(const std::string& body) { answer({"200 OK", body, false}); }

    // http://127.0.0.1:<port><path>
    std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port()) + path; }
    int port() const {  // from RawHttpServer's "http://127.0.0.1:<port>/mcp"
        const std::string u = http_.url();
        const std::size_t colon = u.rfind(':');
        return std::stoi(u.substr(colon + 1, u.find('/', colon) - colon - 1));
    }
    int requests() const {
        std::lock_guard lock(mutex_);
        return static_cast<int>(heads_.size());
    }
    // The GET requests for `path` (the connectors served may point back at this service).
    int gets(const std::string& path) const {
        std::lock_guard lock(mutex_);
        int n = 0;
        for (const std::string& head : heads_) n += head.rfind("get " + path + " ", 0) == 0;
        return n;
    }
    // The request heads received, lower-cased (request line and headers).
    std::vector<std::string> heads() const {
        std::lock_guard lock(mutex_);
        return heads_;
    }

private:
    hostile::HttpReply reply(const HttpRequest& request) {
        std::unique_lock lock(mutex_);
        heads_.push_back(request.lower_head());
        // The scripted answer is for configuration GETs; anything else (an MCP POST of a connector
        // that points back here) is turned away at once, so only the fetch under test can hang.
        if (request.method != "GET") return {"404 Not Found", "", ""};
        const Answer a = answer_;
        if (a.hang) {
            // Bounded all the same: a test that forgot the service must not hang its process.
            wake_.wait_for(lock, std::chrono::seconds(30), [this] { return released_; });
            return {"503 Service Unavailable", "", ""};
        }
        return {a.status, "Content-Type: application/json\r\n", a.body};
    }

    mutable std::mutex mutex_;
    std::condition_variable wake_;
    bool released_ = false;
    Answer answer_;
    std::vector<std::string> heads_;
    hostile::RawHttpServer http_{[this](const HttpRequest& r) { return reply(r); }};  // last: it calls reply()
};

}  // namespace mcph::test
