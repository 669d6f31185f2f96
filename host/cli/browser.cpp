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
    pid_t pid = 0;
    if (posix_spawnp(&pid, program.c_str(), nullptr, nullptr, argv, environ) != 0) return true;  // URL printed
    int status = 0;
    waitpid(pid, &status, 0);
    return true;  // the person may still use the printed URL; the auth plugin waits for the callback
}

}  // namespace mcph::cli
