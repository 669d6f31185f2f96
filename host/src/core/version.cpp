// mcph::version(): the version this libmcph was built as, compiled into the library (the
// generated mcph/version.hpp of its own build), so it reports the library that runs, not the
// headers an embedder compiled against.
#include <mcph/version.hpp>

namespace mcph {

const char* version() noexcept { return MCPH_VERSION_STRING; }

}  // namespace mcph
