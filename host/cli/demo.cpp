// `mcph demo`: the whole path on an embedded default config — no user files. Starts the bundled
// hello-server through the dynamically loaded stdio plugin, lists what it offers, calls `add`,
// reads the note, renders the prompt, and prints the status view.
#include "commands.hpp"
#include "interactive.hpp"
#include "json_output.hpp"
#include "render.hpp"

#include <mcph/error.hpp>
#include <mcph/text.hpp>

#include <boost/dll/runtime_symbol_info.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace mcph::cli {
namespace {

namespace fs = std::filesystem;

// A scratch folder holding the note the server reads; removed when the demo ends.
class DemoWorkspace {
public:
    DemoWorkspace() {
        std::string pattern = (fs::temp_directory_path() / "mcph-demo-XXXXXX").string();
        if (!::mkdtemp(pattern.data())) throw Error(ErrorKind::Usage, "cannot create a temporary directory for the demo");
        dir_ = pattern;
        std::ofstream(dir_ / "notes.txt") << "Ship the mcph demo; review the plugin ABI with the team.\n";
    }
    ~DemoWorkspace() {
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }
    const fs::path& dir() const { return dir_; }

private:
    fs::path dir_;
};

// The demo server: next to the CLI in the build tree (build/bin), or where an install puts it —
// <prefix>/libexec/mcph, not bin/: it is the demo's helper, not a command of its own.
fs::path hello_server_path() {
    std::error_code ec;
    fs::path exe = boost::dll::program_location(ec);
    if (ec) throw Error(ErrorKind::Connection, "the demo server cannot be located: " + ec.message());
    const fs::path candidates[] = {exe.parent_path() / "hello-server",
                                   exe.parent_path().parent_path() / "libexec" / "mcph" / "hello-server"};
    for (const fs::path& candidate : candidates)
        if (fs::exists(candidate, ec)) return candidate;
    throw Error(ErrorKind::Connection, "the demo server was not found at " + candidates[0].string() + " or " +
                                           candidates[1].string() + " (build the whole project: cmake --build build)");
}

std::string demo_config(const fs::path& server, const DemoWorkspace& ws) {
    Json doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    JsonValue hello(rapidjson::kObjectType);
    hello.AddMember("command", JsonValue(server.string().c_str(), a), a);
    JsonValue args(rapidjson::kArrayType);
    args.PushBack("--notes", a);
    args.PushBack(JsonValue((ws.dir() / "notes.txt").string().c_str(), a), a);
    hello.AddMember("args", args, a);
    hello.AddMember("cwd", JsonValue(ws.dir().string().c_str(), a), a);
    JsonValue servers(rapidjson::kObjectType);
    servers.AddMember("hello", hello, a);
    doc.AddMember("mcpServers", servers, a);
    return to_json(doc);
}

void step(const char* title) { std::cout << "\n== " << title << " ==\n"; }

}  // namespace

int run_demo(const Options& options) {
    DemoWorkspace workspace;
    auto host = make_host(options, demo_config(hello_server_path(), workspace));

    step("plugins");
    print_plugins(std::cout, host->plugins());

    step("connect: hello (stdio, via the transport-stdio plugin)");
    auto session = host->connect("hello");
    std::cout << "connected to " << one_line(session->server_info().name) << " " << one_line(session->server_info().version)
              << ", protocol " << one_line(session->protocol_version()) << " (" << session->era() << " era)\n";
    if (!session->instructions().empty()) std::cout << "instructions: " << terminal_safe(session->instructions()) << "\n";

    step("tools");
    print_tools(std::cout, host->tools());
    step("resources");
    print_resources(std::cout, session->list_resources());
    step("prompts");
    print_prompts(std::cout, session->list_prompts());

    step("call mcp__hello__add {\"a\":2,\"b\":3}");
    Json args = parse_json(R"({"a":2,"b":3})");
    CallToolResult sum = host->call_tool("mcp__hello__add", args);
    print_call_result(std::cout, sum);

    step("read notes://today");
    print_read_result(std::cout, session->read_resource("notes://today"));

    step("prompt review-code");
    Json prompt_args = parse_json(R"({"code":"int add(int a, int b) { return a - b; }"})");
    print_prompt_result(std::cout, session->get_prompt("review-code", prompt_args));

    step("status");
    Json status = host->status_json();
    if (options.json) std::cout << to_output_json(status) << "\n";
    else print_status(std::cout, status);
    std::cout << "\ndemo finished: all steps succeeded\n";
    return sum.is_error ? 1 : 0;
}

}  // namespace mcph::cli
