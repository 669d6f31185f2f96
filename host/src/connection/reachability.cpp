#include "connection/reachability.hpp"

#include "url/redact.hpp"

#include <mcph/error.hpp>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <variant>

namespace mcph::connection {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

struct Target {
    std::string host;  // as curl prints it: IPv6 literals keep their brackets, for messages
    std::string port;
};

using CurlUrl = std::unique_ptr<CURLU, decltype(&curl_url_cleanup)>;
using CurlText = std::unique_ptr<char, decltype(&curl_free)>;

std::string bad_url(const std::string& url, const std::string& why) {
    return "not a valid URL: '" + url::redact_url(url) + "' (" + why + ")";  // it may carry a key
}

std::optional<std::string> url_part(CURLU* h, CURLUPart part) {
    char* raw = nullptr;
    if (curl_url_get(h, part, &raw, 0) != CURLUE_OK) return std::nullopt;
    CurlText owned(raw, curl_free);
    return std::string(raw);
}

std::optional<std::string> default_port(const std::string& scheme) {
    if (scheme == "http" || scheme == "ws") return "80";
    if (scheme == "https" || scheme == "wss") return "443";
    return std::nullopt;
}

// libcurl's parser, not ours: it is the one the HTTP transports use, so both agree on what a URL is.
// CURLU_NON_SUPPORT_SCHEME lets ws/wss through on a libcurl built without WebSocket support; the
// scheme is checked here instead.
std::variant<Target, std::string> parse_target(const std::string& url) {
    CurlUrl h(curl_url(), curl_url_cleanup);
    if (!h) throw std::bad_alloc();
    if (CURLUcode rc = curl_url_set(h.get(), CURLUPART_URL, url.c_str(), CURLU_NON_SUPPORT_SCHEME); rc != CURLUE_OK)
        return bad_url(url, curl_url_strerror(rc));
    std::string scheme = url_part(h.get(), CURLUPART_SCHEME).value_or("");
    std::optional<std::string> fallback_port = default_port(scheme);
    if (!fallback_port) return bad_url(url, "scheme '" + scheme + "' is not http, https, ws or wss");
    std::optional<std::string> port = url_part(h.get(), CURLUPART_PORT);  // none when the URL names none
    if (!port) port = fallback_port;
    std::string host = url_part(h.get(), CURLUPART_HOST).value_or("");
    if (host.empty()) return bad_url(url, "no host");
    if (*port == "0") return bad_url(url, "port 0");
    return Target{host, *port};
}

std::string without_brackets(const std::string& host) {
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') return host.substr(1, host.size() - 2);
    return host;
}

std::string lowercase_first(std::string s) {
    if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
    return s;
}

// One probe's state. Handlers hold a plain pointer: they only ever run inside run_for() below, and
// whatever is still queued when the probe ends is destroyed with the io_context, never invoked.
struct Probe {
    enum class Step { Resolve, Connect, Done };

    asio::io_context io;
    tcp::resolver resolver{io};
    tcp::socket socket{io};
    asio::steady_timer deadline{io};
    Target target;
    std::chrono::milliseconds timeout;  // named in a time-out message: the attempt's whole budget
    std::chrono::milliseconds budget;   // what this probe may still spend of it
    Step step = Step::Resolve;
    std::size_t addresses = 0;
    bool resolving = true;  // until the resolver's handler ran: its thread may still be in getaddrinfo
    std::optional<std::string> failure;

    Probe(Target t, std::chrono::milliseconds limit, std::chrono::milliseconds left)
        : target(std::move(t)), timeout(limit), budget(left) {}

    std::string endpoint() const { return target.host + ":" + target.port; }

    void finish(std::optional<std::string> why) {
        if (step == Step::Done) return;
        step = Step::Done;
        failure = std::move(why);
        boost::system::error_code ignored;
        socket.close(ignored);  // at once, before a single byte is written
        io.stop();
    }

    void start() {
        deadline.expires_after(budget);
        deadline.async_wait([this](boost::system::error_code ec) {
            if (!ec) on_deadline();
        });
        // No address_configured flag: with only a loopback interface it can hide "localhost".
        resolver.async_resolve(without_brackets(target.host), target.port, tcp::resolver::numeric_service,
                               [this](boost::system::error_code ec, tcp::resolver::results_type r) {
                                   on_resolved(ec, std::move(r));
                               });
    }

    void on_deadline() {
        std::string ms = std::to_string(timeout.count()) + " ms";
        if (step == Step::Resolve) finish("DNS lookup of '" + target.host + "' timed out after " + ms);
        else finish("TCP connect to " + endpoint() + " timed out after " + ms);
    }

    void on_resolved(boost::system::error_code ec, tcp::resolver::results_type results) {
        resolving = false;
        if (step != Step::Resolve) return;
        if (ec) return finish("DNS lookup of '" + target.host + "' failed: " + ec.message());
        if (results.empty()) return finish("DNS lookup of '" + target.host + "' failed: no addresses");
        step = Step::Connect;
        addresses = results.size();
        asio::async_connect(socket, results, [this](boost::system::error_code e, const tcp::endpoint&) {
            on_connected(e);
        });
    }

    void on_connected(boost::system::error_code ec) {
        if (step != Step::Connect) return;
        if (!ec) return finish(std::nullopt);
        finish("TCP connect to " + endpoint() + " failed: " + lowercase_first(ec.message()) + " (tried " +
               std::to_string(addresses) + (addresses == 1 ? " address)" : " addresses)"));
    }
};

// getaddrinfo cannot be interrupted, and destroying a resolver joins the thread that runs it. So a
// probe that gave up while still resolving is destroyed on a thread of its own, and the caller
// returns on time. That thread only waits out the system resolver's own timeout, then exits.
void dispose(std::unique_ptr<Probe> probe) {
    if (!probe->resolving) return;  // nothing can block: destroy it here
    try {
        std::thread([p = std::move(probe)]() mutable { p.reset(); }).detach();
    } catch (const std::system_error&) {
        // No thread to spare: the probe is destroyed here after all, late but correct.
    }
}

}  // namespace

std::optional<std::string> check_reachable(const std::string& url, std::chrono::milliseconds timeout) {
    return check_reachable(url, timeout, std::chrono::milliseconds(0));
}

std::optional<std::string> check_reachable(const std::string& url, std::chrono::milliseconds timeout,
                                           std::chrono::milliseconds spent) {
    if (timeout.count() <= 0) throw Error(ErrorKind::Usage, "check_reachable: the timeout must be positive");
    auto parsed = parse_target(url);
    if (auto* why = std::get_if<std::string>(&parsed)) return *why;
    const auto left = std::max(timeout - std::max(spent, std::chrono::milliseconds(0)), std::chrono::milliseconds(1));
    auto probe = std::make_unique<Probe>(std::get<Target>(std::move(parsed)), timeout, left);
    probe->start();
    // The deadline timer normally ends the run; run_for is the backstop should a handler misbehave.
    probe->io.run_for(left + std::chrono::milliseconds(100));
    if (probe->step != Probe::Step::Done) probe->on_deadline();
    std::optional<std::string> failure = probe->failure;
    dispose(std::move(probe));
    return failure;
}

}  // namespace mcph::connection
