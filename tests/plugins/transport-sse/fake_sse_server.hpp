// A scripted legacy MCP "HTTP with SSE" server inside the test process (Boost.Beast 1.74,
// blocking, one thread per connection) on 127.0.0.1:0.
//
// GET /sse opens the event stream: optional prelude chunks, then (unless scripted otherwise) the
// `endpoint` event, then whatever the test pushes with push()/end_stream()/cut_stream(). POSTs to
// any other path are recorded and answered with the scripted status; in echo mode each request
// POSTed gets a response pushed on the stream, like a real server. Every request is recorded.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace sse_test {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

struct Request {
    std::string method;
    std::string target;
    std::string body;
    std::map<std::string, std::string> headers;  // lower-cased names
    std::string header(const std::string& lower_name) const;
};

// What the server does. Set before the client connects (guarded by the server's mutex).
struct Script {
    // GET: a non-200 status, or another content type, is answered as a plain response with `get_body`.
    int get_status = 200;
    std::string get_content_type = "text/event-stream";
    std::string get_body;
    int unauthorized_gets = 0;                // the first N GETs get 401 with WWW-Authenticate
    std::vector<std::string> prelude;         // raw chunks before the endpoint event
    std::optional<std::string> endpoint = "/messages?sessionId=abc";  // nullopt: never sent
    bool end_after_prelude = false;           // end the stream cleanly right after the prelude
    // POST
    int post_status = 202;
    std::string post_body = "Accepted";
    int unauthorized_posts = 0;  // the first N POSTs get 401
    int nonce_demands = 0;       // the N POSTs after those get 401 DPoP use_dpop_nonce + DPoP-Nonce (RFC 9449 §9)
    std::chrono::milliseconds post_delay{0};  // wait this long before answering a POST
    std::string delay_only_body;              // when set, post_delay is for a POST of this body only
    bool echo = true;            // push {"jsonrpc":"2.0","id":<id>,"result":{"echo":<method>}} per request
};

class FakeSseServer {
public:
    FakeSseServer();
    ~FakeSseServer();
    FakeSseServer(const FakeSseServer&) = delete;
    FakeSseServer& operator=(const FakeSseServer&) = delete;

    unsigned short port() const { return port_; }
    std::string origin() const;   // http://127.0.0.1:<port>
    std::string sse_url() const;  // origin() + "/sse"

    void script(const std::function<void(Script&)>& edit);

    // The open event stream (the most recent GET). Raw SSE text, sent as one chunk.
    void push(const std::string& raw);
    void push_message(const std::string& json);  // "event: message\ndata: <json>\n\n"
    void end_stream();                           // a clean end (last chunk)
    void cut_stream();                           // drop the connection
    bool wait_stream_open(std::chrono::milliseconds timeout = 5s);
    bool wait_stream_closed(std::chrono::milliseconds timeout = 5s);  // the client went away / we ended it

    std::vector<Request> requests(const std::string& method = "");
    // POSTs in the order things happened: "arrived <body>" when read, "answered <body>" when the
    // response was written.
    std::vector<std::string> post_events();
    bool wait_requests(size_t count, const std::string& method, std::chrono::milliseconds timeout = 5s);

private:
    struct Impl;
    struct Command {
        enum class Kind { Send, End, Cut } kind;
        std::string raw;
    };
    void accept_loop();
    void serve(int fd);
    template <class Stream>
    void handle(Stream& stream, const Request& r);
    template <class Stream>
    void run_stream(Stream& stream, const Script& script);
    void echo(const Request& r);
    void enqueue(Command c);

    std::unique_ptr<Impl> impl_;
    unsigned short port_ = 0;
    std::atomic<bool> stopping_{false};
    std::thread acceptor_thread_;

    std::mutex mutex_;
    std::condition_variable cv_;
    Script script_;
    int gets_seen_ = 0;
    int posts_seen_ = 0;
    std::vector<Request> requests_;
    std::vector<std::string> post_events_;
    std::deque<Command> commands_;  // for the open stream
    int open_streams_ = 0;
    int streams_opened_ = 0;
    std::vector<std::thread> connection_threads_;
    std::vector<int> live_fds_;
};

// A port on 127.0.0.1 where nothing listens: bound and held, never listening (connections are refused).
unsigned short closed_port();
// A port on 127.0.0.1 that was free a moment ago (bound, then closed), for a server process to bind;
// another socket may take it first, so callers retry.
unsigned short free_port();

}  // namespace sse_test
