// Opens a URL in the user's browser for interactive sign-in: http/https only, never through a
// shell (the URL comes from a server and must not be interpreted), xdg-open or $BROWSER.
#pragma once

#include <string>

namespace mcph::cli {

bool open_in_browser(const std::string& url);

}  // namespace mcph::cli
