// A "browser" for unattended runs: fetches the authorization URL and follows its redirects to the
// client's loopback callback, as the person's browser would after they approve. Used by the
// conformance client, whose test authorization server approves at once with a 302.
#pragma once

#include <string>

namespace mcph::conformance {

// True when the chain ended at a page that answered (the callback got its code). http/https only,
// at most 10 hops.
bool open_headless(const std::string& url);

}  // namespace mcph::conformance
