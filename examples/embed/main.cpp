// Embedding mcph in an application: load the plugins, connect to one server, list its tools and
// call one. Run: build/bin/embed-example [path/to/hello-server]
// Built in the mcph tree or standalone against an installed mcph (CMakeLists.txt).
#include <mcph/host.hpp>

#include <iostream>

int main(int argc, char** argv) {
    const std::string server = argc > 1 ? argv[1] : "hello-server";  // found on PATH when not a path

    // Plugins: $MCPH_PLUGIN_PATH, then <libmcph's directory>/mcph/plugins (where an install puts
    // them), the install default compiled into libmcph, then ../lib/mcph/plugins next to this binary.
    mcph::HostOptions options;
    options.callbacks.on_log = [](const std::string& from, const std::string& level, const std::string&,
                                  const mcph::JsonValue& data) {
        std::cerr << "[" << from << " " << level << "] " << mcph::to_json(data) << "\n";
    };

    try {
        mcph::Host host(options);
        for (const mcph::PluginInfo& plugin : host.plugins())  // where each plugin came from
            if (plugin.loaded) std::cout << "plugin " << plugin.name << " from " << plugin.path.string() << "\n";
        mcph::Json config = mcph::parse_json(R"({"command": ")" + server + R"("})");
        host.add_server("hello", config);

        auto session = host.connect("hello");
        std::cout << "connected to " << session->server_info().name << " (protocol " << session->protocol_version()
                  << ")\n";

        for (const mcph::Tool& tool : host.tools()) std::cout << "tool " << tool.mapped_name << ": " << tool.description << "\n";

        mcph::Json args = mcph::parse_json(R"({"a": 40, "b": 2})");
        mcph::CallToolResult result = host.call_tool("mcp__hello__add", args);
        std::cout << "add(40, 2) = " << result.text() << "\n";
        return result.is_error ? 1 : 0;
    } catch (const mcph::Error& e) {
        std::cerr << "error (" << mcph::to_string(e.kind()) << "): " << e.what() << "\n";
        return 1;
    }
}
