// mcph-bench --mapped SxT (mapped_bench.hpp).
#include "mapped_bench.hpp"

#include <mcph/host.hpp>

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <vector>

#include "bench_stats.hpp"

namespace bench {
namespace {

using MappedClock = std::chrono::steady_clock;

// A scratch directory for the tools file and the config home (approvals are written there),
// removed at the end.
struct ScratchDir {
    std::filesystem::path path;
    ScratchDir() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "mcph-bench-XXXXXX").string();
        if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
        path = tmpl;
    }
    ~ScratchDir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
};

std::string tool_name(int i) {
    char name[32];
    std::snprintf(name, sizeof name, "tool_%04d", i);
    return name;
}

std::string server_name(int i) {
    char name[32];
    std::snprintf(name, sizeof name, "s%03d", i);
    return name;
}

// T plain tools (one integer argument, a short description the scanner has nothing to say about).
void write_tools_file(const std::filesystem::path& file, int tools) {
    std::ofstream out(file);
    out << '[';
    for (int i = 0; i < tools; ++i)
        out << (i ? "," : "") << R"({"name":")" << tool_name(i) << R"(","description":"Bench tool number )" << i
            << R"(: returns a short text.","inputSchema":{"type":"object","properties":{"n":{"type":"integer"}}}})";
    out << ']';
    if (!out) throw std::runtime_error("cannot write " + file.string());
}

mcph::Json n_args(long i) {
    mcph::Json args(rapidjson::kObjectType);
    args.AddMember("n", static_cast<int64_t>(i), args.GetAllocator());
    return args;
}

void expect_ok(const mcph::CallToolResult& r, const char* what) {
    if (r.is_error) throw std::runtime_error(std::string(what) + ": tool error: " + r.text());
}

// Which server and tool call i targets: every server in turn, and a tool spread over the list
// (a stride coprime with most T), so that neither a first-entry nor a last-entry lookup is favoured.
struct Target {
    int server, tool;
};
Target target_of(long i, const MappedConfig& c) {
    return {static_cast<int>(i % c.servers), static_cast<int>((i / c.servers * 7919) % c.tools)};
}

struct Series {
    std::vector<double> lat_us;
    double cpu_us = 0;
};

}  // namespace

int run_mapped(const MappedConfig& c) {
    ScratchDir dir;
    const auto tools_file = dir.path / "tools.json";
    write_tools_file(tools_file, c.tools);
    ::setenv("MCPH_CONFIG_HOME", (dir.path / "home").c_str(), 1);

    mcph::Host host;
    for (int s = 0; s < c.servers; ++s) {
        mcph::Json cfg(rapidjson::kObjectType);
        auto& a = cfg.GetAllocator();
        cfg.AddMember("command", mcph::JsonValue(c.fake_server, a), a);
        mcph::JsonValue args(rapidjson::kArrayType);
        args.PushBack("--tools-file", a);
        args.PushBack(mcph::JsonValue(tools_file.string(), a), a);
        cfg.AddMember("args", args, a);
        host.add_server(server_name(s), cfg);
    }
    const auto connect_start = MappedClock::now();
    for (int s = 0; s < c.servers; ++s) host.approve(server_name(s));  // connects, pins every tool
    const double approve_ms = std::chrono::duration<double, std::milli>(MappedClock::now() - connect_start).count();
    const auto offered = host.tools().size();
    if (offered != static_cast<size_t>(c.servers) * static_cast<size_t>(c.tools))
        throw std::runtime_error("mapped: the host offers " + std::to_string(offered) + " tools, expected " +
                                 std::to_string(c.servers * c.tools) + " (some withheld?)");

    std::vector<std::shared_ptr<mcph::ClientSession>> sessions;
    std::vector<std::string> mapped, original;
    for (int s = 0; s < c.servers; ++s) sessions.push_back(host.session(server_name(s)));
    for (int t = 0; t < c.tools; ++t) original.push_back(tool_name(t));
    for (int s = 0; s < c.servers; ++s)
        for (int t = 0; t < c.tools; ++t) mapped.push_back("mcp__" + server_name(s) + "__" + tool_name(t));

    auto host_call = [&](long i) {
        const Target t = target_of(i, c);
        expect_ok(host.call_tool(mapped[static_cast<size_t>(t.server * c.tools + t.tool)], n_args(i)), "Host::call_tool");
    };
    auto session_call = [&](long i) {
        const Target t = target_of(i, c);
        expect_ok(sessions[static_cast<size_t>(t.server)]->call_tool(original[static_cast<size_t>(t.tool)], n_args(i)),
                  "ClientSession::call_tool");
    };
    for (long i = 0; i < c.warmup; ++i) {
        host_call(i);
        session_call(i);
    }
    // The two loops alternate in blocks of 500 calls, so that a change of load in the machine
    // reaches both alike.
    Series by_host, by_session;
    auto block = [](Series& into, long from, long to, const auto& call) {
        const double cpu0 = process_cpu_us();
        for (long i = from; i < to; ++i) {
            const auto t = MappedClock::now();
            call(i);
            into.lat_us.push_back(std::chrono::duration<double, std::micro>(MappedClock::now() - t).count());
        }
        into.cpu_us += process_cpu_us() - cpu0;
    };
    constexpr long kBlock = 500;
    for (long from = 0; from < c.calls; from += kBlock) {
        const long to = std::min<long>(from + kBlock, c.calls);
        block(by_host, from, to, host_call);
        block(by_session, from, to, session_call);
    }
    host.close();
    std::printf(
        "{\"client\":\"mcph\",\"mapped_servers\":%d,\"mapped_tools_per_server\":%d,\"mapped_calls\":%d,\"approve_all_ms\":%.1f,"
        "\"host_call_p50_us\":%.2f,\"host_call_p99_us\":%.2f,\"host_call_max_us\":%.0f,\"host_call_cpu_us\":%.2f,"
        "\"session_call_p50_us\":%.2f,\"session_call_p99_us\":%.2f,\"session_call_max_us\":%.0f,\"session_call_cpu_us\":%.2f,\"peak_rss_mb\":%.1f}\n",
        c.servers, c.tools, c.calls, approve_ms, percentile(by_host.lat_us, 0.5), percentile(by_host.lat_us, 0.99),
        percentile(by_host.lat_us, 1.0), by_host.cpu_us / c.calls, percentile(by_session.lat_us, 0.5),
        percentile(by_session.lat_us, 0.99), percentile(by_session.lat_us, 1.0), by_session.cpu_us / c.calls, peak_rss_mb());
    return 0;
}

}  // namespace bench
