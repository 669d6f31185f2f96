#include <mcph/error.hpp>

namespace mcph {

// The key function: Error's vtable and typeinfo are emitted here, once, and exported.
Error::~Error() = default;

const char* to_string(ErrorKind kind) noexcept {
    switch (kind) {
        case ErrorKind::Usage: return "usage";
        case ErrorKind::Connection: return "connection";
        case ErrorKind::Protocol: return "protocol";
        case ErrorKind::Timeout: return "timeout";
        case ErrorKind::Cancelled: return "cancelled";
        case ErrorKind::Remote: return "remote";
        case ErrorKind::Plugin: return "plugin";
        case ErrorKind::NotFound: return "not-found";
    }
    return "unknown";
}

}  // namespace mcph
