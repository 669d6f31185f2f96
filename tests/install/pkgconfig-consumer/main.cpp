// The pkg-config consumer of tests/install: built with nothing but
// `c++ main.cpp $(pkg-config --cflags --libs mcph)` against the installed prefix, warnings as
// errors (the installed headers must be clean for an embedder's -Wall -Wextra -Werror). It
// uses the JSON helpers and a Host, and prints the transport plugins the installed libmcph
// found by itself (no MCPH_PLUGIN_PATH): the test expects the installed stdio plugin.
#include <mcph/host.hpp>

#include <iostream>

int main() {
    mcph::Json doc = mcph::parse_json(R"({"answer": 42})");
    std::cout << "json " << mcph::to_json(doc) << "\n";
    mcph::HostOptions options;
    options.use_env_plugin_path = false;
    options.secret_storage = mcph::HostOptions::SecretStorage::Memory;  // no keyring, no files
    mcph::Host host(options);
    for (const mcph::PluginInfo& plugin : host.plugins())
        for (const std::string& type : plugin.config_types) std::cout << "transport " << type << " from " << plugin.path.string() << "\n";
    return 0;
}
