// mcph-bench — the ts_client_bench.mjs measurements through the mcph embedding API
// (mcph::Host + ClientSession), against hello-server over stdio (default) or Streamable HTTP
// (--http URL). Prints one JSON object with the same keys as bench-raw-pipe and the TS script.
//
// What is timed is exactly what an embedding application pays: building the arguments as a
// RapidJSON value, call_tool()/request() (JSON-RPC framing, the transport plugin, the pending-request
// table, outputSchema validation of structuredContent), and reading the result.
#include <mcph/host.hpp>

#include "bench_args.hpp"
#include "bench_stats.hpp"
#include "mapped_bench.hpp"


#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Config {
    std::string server;
    std::string http_url;
    std::vector<std::string> server_args;  // --server-arg, repeatable (e.g. a fake server's --tools-file)
    std::string era = "auto";              // --era auto|legacy|modern: the server config's "protocolVersion"
    int calls = 20000, inflight = 16, echo_calls = 50, connects = 5, warmup = 1000;
    size_t echo_bytes = 1 << 20;
    // --mapped SxT: the Host::call_tool rows instead (mapped_bench.hpp): S fake-mcp-servers of T
    // tools each, approved (pinned), called by mapped name and through ClientSession::call_tool.
    int mapped_servers = 0, mapped_tools = 0;
    std::string fake_server;  // --fake-server PATH (default: fake-mcp-server next to this binary)
};

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

using bench::peak_rss_mb;
using bench::percentile;
using bench::process_cpu_us;

std::string sibling_binary(const char* name) {
    std::error_code ec;
    auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    return (self.parent_path() / name).string();
}

// The revision each --era pins through the server config (what a user writes in .mcp.json);
// "auto" leaves the key out, so mcph probes with server/discover and takes the modern era when
// the server has it.
const char* pinned_version(const std::string& era) {
    if (era == "legacy") return "2025-11-25";
    if (era == "modern") return "2026-07-28";
    return nullptr;
}

// {"command": server} or {"type":"http","url": url}, plus "protocolVersion" when --era pins one.
mcph::Json server_config(const Config& c) {
    mcph::Json cfg(rapidjson::kObjectType);
    auto& a = cfg.GetAllocator();
    if (const char* version = pinned_version(c.era)) cfg.AddMember("protocolVersion", rapidjson::StringRef(version), a);
    if (c.http_url.empty()) {
        cfg.AddMember("command", mcph::JsonValue(c.server, a), a);
        mcph::JsonValue args(rapidjson::kArrayType);
        for (const auto& arg : c.server_args) args.PushBack(mcph::JsonValue(arg, a), a);
        cfg.AddMember("args", args, a);
    } else {
        cfg.AddMember("type", "http", a);
        cfg.AddMember("url", mcph::JsonValue(c.http_url, a), a);
    }
    return cfg;
}

mcph::Json add_args(long i) {
    mcph::Json args(rapidjson::kObjectType);
    args.AddMember("a", static_cast<int64_t>(i), args.GetAllocator());
    args.AddMember("b", 1, args.GetAllocator());
    return args;
}

// Full tools/call params, for ClientSession::request (the in-flight case).
mcph::Json add_params(long i) {
    mcph::Json p(rapidjson::kObjectType);
    auto& a = p.GetAllocator();
    mcph::JsonValue args(rapidjson::kObjectType);
    args.AddMember("a", static_cast<int64_t>(i), a);
    args.AddMember("b", 1, a);
    p.AddMember("name", "add", a);
    p.AddMember("arguments", args, a);
    return p;
}

void check(const mcph::CallToolResult& r, const char* what) {
    if (r.is_error) throw std::runtime_error(std::string(what) + ": tool error: " + r.text());
}

// The first content block's text, viewed in the result (CallToolResult::text() would copy it: a
// second megabyte per echo that an embedder reading a large result has no need to make).
std::string_view echoed_text(const mcph::CallToolResult& r) {
    const mcph::JsonValue* content = r.raw.IsObject() && r.raw.HasMember("content") ? &r.raw["content"] : nullptr;
    if (!content || !content->IsArray() || content->Empty()) return {};
    const mcph::JsonValue& block = (*content)[0];
    if (!block.IsObject() || !block.HasMember("text") || !block["text"].IsString()) return {};
    return {block["text"].GetString(), block["text"].GetStringLength()};
}

int usage() {
    std::fprintf(stderr,
                 "usage: mcph-bench [--server PATH] [--server-arg ARG]... [--http URL] [--era auto|legacy|modern] [--calls N]\n"
                 "                  [--inflight K] [--echo-calls M] [--echo-bytes B] [--connects C] [--warmup W]\n"
                 "       mcph-bench --mapped SxT [--fake-server PATH] [--calls N] [--warmup W]\n");
    return 2;
}

int run(const Config& c) {
    mcph::HostOptions options;
    const mcph::Json cfg = server_config(c);

    // 1. connect + initialize: a fresh Host and a fresh server process / HTTP session each time;
    //    median. Plugins load when a server first needs them and stay mapped for the process
    //    (host/src/plugins/library_cache.hpp): one untimed connect first maps them, so each timed
    //    row is what a process pays for every Host after its first (the plugin's init included,
    //    the dlopen of it and libcurl not).
    {
        mcph::Host first(options);
        first.add_server("hello", cfg);
        first.connect("hello");
        first.close();
    }
    std::vector<double> connect_ms;
    for (int i = 0; i < c.connects; ++i) {
        mcph::Host host(options);
        host.add_server("hello", cfg);
        auto t = Clock::now();
        auto s = host.connect("hello");
        connect_ms.push_back(seconds_since(t) * 1e3);
        host.close();
    }

    mcph::Host host(options);
    host.add_server("hello", cfg);
    auto s = host.connect("hello");
    const std::string era = s->era(), protocol_version = s->protocol_version();
    // A pinned era that was not obtained would put a number in the wrong column.
    if (const char* version = pinned_version(c.era); version && protocol_version != version)
        throw std::runtime_error("--era " + c.era + " asked for " + version + ", the session speaks " + protocol_version);
    s->list_tools();  // as the TS script does (mcph caches the list at connect anyway)
    for (long i = 0; i < c.warmup; ++i) check(s->call_tool("add", add_args(i)), "warm-up");

    // 2. sequential tools/call add.
    std::vector<double> lat_us;
    lat_us.reserve(static_cast<size_t>(c.calls));
    double cpu0 = process_cpu_us();
    auto t0 = Clock::now();
    for (long i = 0; i < c.calls; ++i) {
        auto t = Clock::now();
        check(s->call_tool("add", add_args(i)), "tools/call add");
        lat_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t).count());
    }
    double seq_s = seconds_since(t0);
    const double seq_cpu_us = (process_cpu_us() - cpu0) / c.calls;

    // 2b. The same sequential add through Host::call_tool and the mapped name, as an agent loop calls
    //     it: name resolution and the rug-pull guard (tool review) are in the timed path.
    std::vector<double> host_lat_us;
    host_lat_us.reserve(static_cast<size_t>(c.calls));
    for (long i = 0; i < std::min<long>(c.warmup, c.calls); ++i) check(host.call_tool("mcp__hello__add", add_args(i)), "warm-up (host)");
    cpu0 = process_cpu_us();
    for (long i = 0; i < c.calls; ++i) {
        auto t = Clock::now();
        check(host.call_tool("mcp__hello__add", add_args(i)), "host.call_tool add");
        host_lat_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t).count());
    }
    const double host_seq_cpu_us = (process_cpu_us() - cpu0) / c.calls;

    // 3. K requests in flight (the oldest is awaited, then one more is sent), N in total.
    t0 = Clock::now();
    std::deque<mcph::PendingRequest> window;
    long sent = 0;
    for (; sent < std::min(c.inflight, c.calls); ++sent) window.push_back(s->request("tools/call", add_params(sent)));
    while (!window.empty()) {
        mcph::Json result = window.front().get();
        window.pop_front();
        if (!result.IsObject() || result.HasMember("isError")) throw std::runtime_error("tools/call add (in flight): bad result");
        if (sent < c.calls) window.push_back(s->request("tools/call", add_params(sent++)));
    }
    double inflight_s = seconds_since(t0);

    // 3b. The same K in flight through request_async: each completion runs on the transport's
    //     reader thread and sends the next request from there, so no thread wakes per response.
    double inflight_cb_s = 0;
    {
        std::mutex m;
        std::condition_variable done_cv;
        std::atomic<long> next{0};
        long completed = 0;
        std::string failure;
        std::function<void()> send_one;
        send_one = [&] {
            long i = next.fetch_add(1);
            if (i >= c.calls) return;
            s->request_async("tools/call", add_params(i), [&](mcph::Json result, const mcph::Error* error) {
                bool ok = !error && result.IsObject() && !result.HasMember("isError");
                send_one();
                std::lock_guard lock(m);
                if (!ok && failure.empty()) failure = error ? error->what() : "bad result";
                if (++completed == c.calls) done_cv.notify_one();
            });
        };
        t0 = Clock::now();
        for (int k = 0; k < std::min(c.inflight, c.calls); ++k) send_one();
        std::unique_lock lock(m);
        done_cv.wait(lock, [&] { return completed == c.calls; });
        inflight_cb_s = seconds_since(t0);
        if (!failure.empty()) throw std::runtime_error("tools/call add (in flight, async): " + failure);
    }

    // 4. echo with a large text payload, sequential (the payload is borrowed, not copied, into args,
    //    and read in place from the result, as the floor reads its reply buffer).
    const std::string payload(c.echo_bytes, 'x');
    const double echo_cpu0 = process_cpu_us();
    t0 = Clock::now();
    for (int i = 0; i < c.echo_calls; ++i) {
        mcph::Json args(rapidjson::kObjectType);
        args.AddMember("text", rapidjson::StringRef(payload.data(), payload.size()), args.GetAllocator());
        auto r = s->call_tool("echo", args);
        check(r, "tools/call echo");
        if (echoed_text(r).size() != c.echo_bytes) throw std::runtime_error("echo: payload changed");
    }
    double echo_s = seconds_since(t0);
    const double echo_cpu_us = c.echo_calls ? (process_cpu_us() - echo_cpu0) / c.echo_calls : 0.0;
    host.close();

    std::printf(
        "{\"client\":\"mcph\",\"era\":\"%s\",\"protocol_version\":\"%s\",\"transport\":\"%s\",\"connect_ms_median\":%.3f,"
        "\"seq_calls\":%d,\"seq_p50_us\":%.2f,\"seq_p99_us\":%.2f,\"seq_calls_per_s\":%.0f,\"seq_cpu_us\":%.2f,\"host_seq_p50_us\":%.2f,\"host_seq_p99_us\":%.2f,\"host_seq_cpu_us\":%.2f,"
        "\"inflight\":%d,\"inflight_calls\":%d,\"inflight_calls_per_s\":%.0f,\"inflight_async_calls_per_s\":%.0f,"
        "\"echo_calls\":%d,\"echo_payload_bytes\":%zu,\"echo_mb_per_s\":%.1f,\"echo_cpu_us\":%.1f,\"peak_rss_mb\":%.1f}\n",
        era.c_str(), protocol_version.c_str(), c.http_url.empty() ? "stdio" : "http", percentile(connect_ms, 0.5), c.calls,
        percentile(lat_us, 0.5), percentile(lat_us, 0.99), c.calls / seq_s, seq_cpu_us, percentile(host_lat_us, 0.5),
        percentile(host_lat_us, 0.99), host_seq_cpu_us, c.inflight, c.calls, c.calls / inflight_s, c.calls / inflight_cb_s, c.echo_calls, c.echo_bytes,
        c.echo_calls ? 2.0 * static_cast<double>(c.echo_bytes) * c.echo_calls / echo_s / 1e6 : 0.0, echo_cpu_us, peak_rss_mb());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    Config c;
    c.server = sibling_binary("hello-server");
    c.fake_server = sibling_binary("fake-mcp-server");
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (i + 1 >= argc) return usage();
        std::string v = argv[++i];
        if (a == "--server") c.server = v;
        else if (a == "--fake-server") c.fake_server = v;
        else if (a == "--mapped") {
            if (std::sscanf(v.c_str(), "%dx%d", &c.mapped_servers, &c.mapped_tools) != 2 || c.mapped_servers < 1 ||
                c.mapped_tools < 1)
                return usage();
        }
        else if (a == "--server-arg") c.server_args.push_back(v);
        else if (a == "--http") c.http_url = v;
        else if (a == "--era" && (v == "auto" || pinned_version(v))) c.era = v;
        else if (!bench::numeric_option(c, a, v)) return usage();
    }
    try {
        if (c.mapped_servers)
            return bench::run_mapped({c.fake_server, c.mapped_servers, c.mapped_tools, c.calls, c.warmup});
        return run(c);
    } catch (const mcph::Error& e) {
        std::fprintf(stderr, "mcph-bench: %s error: %s\n", mcph::to_string(e.kind()), e.what());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mcph-bench: %s\n", e.what());
    }
    return 1;
}
