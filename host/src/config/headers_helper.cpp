#include "config/headers_helper.hpp"

#include "json/json_access.hpp"

#include <mcph/bounded_json.hpp>
#include <mcph/error.hpp>
#include <mcph/json.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/process/args.hpp>
#include <boost/process/async.hpp>
#include <boost/process/child.hpp>
#include <boost/process/env.hpp>
#include <boost/process/extend.hpp>
#include <boost/process/io.hpp>

#include <signal.h>
#include <unistd.h>

#include <future>

namespace mcph::config {
namespace {

namespace bp = boost::process;

constexpr std::size_t kMaxOutputBytes = 1 << 20;

[[noreturn]] void fail(const HeadersHelperRequest& r, const std::string& why) {
    throw Error(ErrorKind::Connection, "server '" + r.server_name + "': headersHelper " + why);
}

std::map<std::string, std::string> parse_headers(const HeadersHelperRequest& r, const std::string& output) {
    Json doc;
    if (!json_bounds::parse(doc, output) || !doc.IsObject()) fail(r, "did not print a JSON object of headers");
    std::map<std::string, std::string> headers;
    for (const auto& m : doc.GetObject()) {
        if (!m.value.IsString()) fail(r, "printed a non-string value for header '" + std::string(m.name.GetString()) + "'");
        headers[m.name.GetString()] = std::string(m.value.GetString(), m.value.GetStringLength());
    }
    return headers;
}

}  // namespace

std::map<std::string, std::string> run_headers_helper(const HeadersHelperRequest& r) {
    boost::asio::io_context io;
    std::future<std::string> out;
    bp::environment env = boost::this_process::environment();
    // set(), not env["NAME"] = …: Boost 1.74's environment::find (behind operator[]) compares
    // "NAME=" against every entry over the key's length, reading past any shorter entry (ASan:
    // heap-buffer-overflow when the environment ends with a short variable). set() checks lengths.
    env.set("MCPH_SERVER_NAME", r.server_name);
    env.set("MCPH_SERVER_URL", r.server_url);
    bp::child child;
    try {
        // Its own process group, so a timeout kills whatever the shell started too.
        child = bp::child("/bin/sh", bp::args({"-c", r.command}), env, bp::std_in < bp::null, bp::std_out > out,
                          bp::std_err > bp::null, io, bp::extend::on_exec_setup = [](auto&) { ::setpgid(0, 0); });
    } catch (const std::exception& e) {
        fail(r, std::string("could not start: ") + e.what());
    }
    io.run_for(r.timeout);
    if (!io.stopped()) {  // still running: out of time
        ::kill(-child.id(), SIGKILL);
        std::error_code ec;
        child.wait(ec);
        io.run_for(std::chrono::seconds(1));
        fail(r, "timed out after " + std::to_string(r.timeout.count()) + " ms and was killed");
    }
    std::error_code ec;
    child.wait(ec);
    if (child.exit_code() != 0) fail(r, "exited with status " + std::to_string(child.exit_code()));
    std::string output = out.get();
    if (output.size() > kMaxOutputBytes) fail(r, "printed more than 1 MiB");
    return parse_headers(r, output);
}

std::string apply_headers_helper(const std::string& server_name, const std::string& config_json) {
    Json config = parse_json(config_json, "server config");
    const JsonValue* helper = json::member(config, "headersHelper");
    if (!helper) return config_json;
    if (!helper->IsString() || helper->GetStringLength() == 0)
        throw Error(ErrorKind::Usage, "server '" + server_name + "': headersHelper must be a non-empty command string");
    HeadersHelperRequest request{std::string(json::view(*helper)), server_name, json::string_or(config, "url")};
    auto headers = run_headers_helper(request);
    auto& a = config.GetAllocator();
    if (!config.HasMember("headers") || !config["headers"].IsObject()) {
        config.RemoveMember("headers");
        config.AddMember("headers", JsonValue(rapidjson::kObjectType), a);
    }
    JsonValue& target = config["headers"];
    for (const auto& [name, value] : headers) {
        target.RemoveMember(name.c_str());
        target.AddMember(json::string_value(name, a), json::string_value(value, a), a);
    }
    return to_json(config);
}

}  // namespace mcph::config
