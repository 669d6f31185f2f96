#include "browser.hpp"

#include <mcph/text.hpp>

#include <cstdlib>
#include <iostream>
#include <spawn.h>
#include <sys/wait.h>

extern char** environ;

namespace mcph::cli {

bool open_in_browser(const std::string& url) {
    if (url.rfind("https://", 0) != 0 && url.rfind("http://", 0) != 0) {
        std::cerr << "mcph: refusing to open a non-http(s) URL\n";
        return false;
    }
    std::cerr << "mcph: opening your browser to sign in. If it does not open, visit:\n  "
              << terminal_safe(url, LineBreaks::Escape) << "\n";  // built from a server's metadata
    const char* browser = std::getenv("BROWSER");
    std::string program = browser && *browser ? browser : "xdg-open";
    char* argv[] = {program.data(), const_cast<char*>(url.c_str()), nullptr};
    // Only stdin, stdout and stderr reach the browser: it (and the background processes it
    // leaves, e.g. a browser already running that xdg-open hands the URL to) must not keep the
    // loopback callback listener, a server connection or a secret-store file open after we are done.
    posix_spawn_file_actions_t actions;
    if (posix_spawn_file_actions_init(&actions) != 0) return true;  // URL printed
    pid_t pid = 0;
    const bool spawned = posix_spawn_file_actions_addclosefrom_np(&actions, 3) == 0 &&
                         posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv, environ) == 0;
    posix_spawn_file_actions_destroy(&actions);
    if (!spawned) return true;  // URL printed
    int status = 0;
    waitpid(pid, &status, 0);
    return true;  // the person may still use the printed URL; the auth plugin waits for the callback
}

}  // namespace mcph::cli
