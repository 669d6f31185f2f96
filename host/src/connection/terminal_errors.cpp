#include "connection/terminal_errors.hpp"

#include <cerrno>

namespace mcph::connection {
namespace {

// An errno that means the link is gone, whatever category the plugin chose (OTHER included): a
// plugin that only knows "a system call failed" still tells us which.
std::string_view terminal_errno_name(int os_error) {
    switch (os_error) {
        case ECONNRESET: return "ECONNRESET";
        case ECONNABORTED: return "ECONNRESET";
        case EPIPE: return "EPIPE";
        case ENOTCONN: return "EPIPE";
        case ESHUTDOWN: return "EPIPE";
        case ETIMEDOUT: return "ETIMEDOUT";
        case ECONNREFUSED: return "ECONNREFUSED";
        case EHOSTUNREACH: return "EHOSTUNREACH";
        case ENETUNREACH: return "EHOSTUNREACH";
        case ENETDOWN: return "EHOSTUNREACH";
        case EHOSTDOWN: return "EHOSTUNREACH";
        default: return {};
    }
}

FailureVerdict broken(std::string_view signal) { return {FailureMeaning::LinkBroken, signal}; }

}  // namespace

FailureVerdict classify_failure(const transport::Failure& f) {
    // For the link categories an errno names the seed signal more precisely (EPIPE vs ECONNRESET);
    // a child's exit status is not an errno, so PROCESS_EXITED never looks at it.
    const std::string_view by_errno = f.category == MCPH_FAILURE_PROCESS_EXITED ? "" : terminal_errno_name(f.os_error);
    switch (f.category) {
        case MCPH_FAILURE_RESET: return broken(by_errno.empty() ? "terminated" : by_errno);
        case MCPH_FAILURE_TIMEOUT: return broken(by_errno.empty() ? "ETIMEDOUT" : by_errno);
        case MCPH_FAILURE_REFUSED: return broken(by_errno.empty() ? "ECONNREFUSED" : by_errno);
        case MCPH_FAILURE_UNREACHABLE: return broken(by_errno.empty() ? "EHOSTUNREACH" : by_errno);
        // A failed handshake or a certificate refused mid-session: nothing gets through. A
        // reconnect then fails with the TLS reason and the server ends in `failed`, which says it.
        case MCPH_FAILURE_TLS: return broken("TLS");
        case MCPH_FAILURE_PROCESS_EXITED: return broken("terminated");
        // The server is there and said something: an error status, a bad frame, "who are you",
        // "I forgot your session" (the session layer recovers that one by itself).
        case MCPH_FAILURE_HTTP_STATUS: return {FailureMeaning::ServerAnswered, "HTTP_STATUS"};
        case MCPH_FAILURE_PROTOCOL: return {FailureMeaning::ServerAnswered, "PROTOCOL"};
        case MCPH_FAILURE_AUTH: return {FailureMeaning::ServerAnswered, "AUTH"};
        case MCPH_FAILURE_SESSION_EXPIRED: return {FailureMeaning::ServerAnswered, "SESSION_EXPIRED"};
        case MCPH_FAILURE_OTHER:
            break;
    }
    // OTHER, or a category newer than this host: only an errno can still say the link is gone.
    // Without one it proves nothing, so it neither counts nor breaks a run of terminal errors.
    if (!by_errno.empty()) return broken(by_errno);
    return {FailureMeaning::Unknown, "OTHER"};
}

}  // namespace mcph::connection
