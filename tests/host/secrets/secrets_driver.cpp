// mcph-secrets-driver: a process that uses the host's secret stores exactly as mcph does, for
// tests that need a second process (or a process inside dbus-run-session). Output is one line per
// result on stdout; errors go to stderr with exit code 1.
//   which                               the store Auto picks: "<kind>\t<detail>"
//   set <key> <value> | get <key> | erase <key>     through the store Auto picks ($MCPH_SECRET_STORE
//                                       applies; the file store is $MCPH_CREDENTIALS_FILE)
//   oauth <plugin.so> <server-url> <config-json>     one auth-oauth object with the real host
//                                       services (file store at $MCPH_CREDENTIALS_FILE, secret_lock):
//                                       prints "authorization\t<header value>", logs to stderr
#include "plugins/host_services.hpp"
#include "secrets/store_selection.hpp"
#include "config/env_expansion.hpp"

#include <mcph/plugin_api.h>
#include <mcph/plugin_helper.hpp>

#include <cstdlib>
#include <dlfcn.h>
#include <iostream>
#include <string>

namespace {

using mcph::plugin::str;
using mcph::plugin::view;

mcph::secrets::SelectedStore selected() {
    const char* file = std::getenv("MCPH_CREDENTIALS_FILE");
    if (!file) throw std::runtime_error("MCPH_CREDENTIALS_FILE is unset");
    auto choice = mcph::secrets::choice_from_environment(mcph::secrets::StoreChoice::Auto, mcph::config::lookup_process_environment);
    return mcph::secrets::select_secret_store(choice, file);
}

int run_oauth(const std::string& plugin, const std::string& url, const std::string& config) {
    auto chosen = selected();
    mcph::plugins::HostServiceBindings b;
    b.log = [](mcph::LogLevel, std::string_view source, std::string_view message) {
        std::cerr << "log " << source << ": " << message << "\n";
    };
    b.post = [](std::function<void()> fn) { fn(); };
    b.secrets = chosen.store;
    b.secret_lock_folder = [folder = chosen.lock_folder] { return folder; };
    mcph::plugins::HostServices services(std::move(b));
    void* lib = dlopen(plugin.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) throw std::runtime_error(dlerror());
    auto entry = reinterpret_cast<mcph_plugin_entry_fn>(dlsym(lib, MCPH_ENTRY_SYMBOL));
    const mcph_plugin* p = entry();
    mcph_error err = mcph::plugin::make_error();
    if (p->init && p->init(services.table(), &err) != MCPH_OK) throw std::runtime_error(err.message);
    auto* vt = static_cast<const mcph_auth_vtable_v1*>(p->get_interface(MCPH_AUTH_INTERFACE_V1));
    mcph_auth* auth = nullptr;
    if (vt->create(services.table(), str("refresh-server"), str(url), str(config), &auth, &err) != MCPH_OK)
        throw std::runtime_error(err.message);
    std::string authorization;
    mcph_header_sink sink{sizeof(mcph_header_sink), &authorization, [](void* ud, mcph_str n, mcph_str v) {
                              if (view(n) == "Authorization") *static_cast<std::string*>(ud) = std::string(view(v));
                          }};
    mcph_status st = vt->get_headers(auth, &sink, &err);
    vt->destroy(auth);
    if (st != MCPH_OK) throw std::runtime_error(std::string("get_headers: ") + err.message);
    std::cout << "authorization\t" << authorization << std::endl;
    return 0;
}

int run(int argc, char** argv) {
    const std::string cmd = argc > 1 ? argv[1] : "";
    if (cmd == "which") {
        auto s = selected();
        std::cout << s.kind << "\t" << s.detail << std::endl;
        return 0;
    }
    if (cmd == "set" && argc == 4) {
        selected().store->set(argv[2], argv[3]);
        std::cout << "stored" << std::endl;
        return 0;
    }
    if (cmd == "get" && argc == 3) {
        auto v = selected().store->get(argv[2]);
        std::cout << (v ? "value\t" + *v : std::string("absent")) << std::endl;
        return 0;
    }
    if (cmd == "erase" && argc == 3) {
        selected().store->erase(argv[2]);
        std::cout << "erased" << std::endl;
        return 0;
    }
    if (cmd == "oauth" && argc == 5) return run_oauth(argv[2], argv[3], argv[4]);
    std::cerr << "usage: mcph-secrets-driver which | set <k> <v> | get <k> | erase <k> | oauth <plugin> <url> <config>\n";
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
}
