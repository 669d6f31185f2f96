// Process-wide signal set-up the transport depends on.
#pragma once

namespace mcph::stdio {

// Sets SIGPIPE to SIG_IGN, once, unless the application installed its own disposition.
//
// Why SIG_IGN rather than blocking: a write to a pipe whose reader died raises SIGPIPE in the
// writing thread, and send() runs on *any* host thread, so a per-thread mask would have to be
// set and restored around every write (two extra syscalls on the hot path) and a pending SIGPIPE
// consumed with sigtimedwait. Ignoring it once turns the signal into EPIPE everywhere, which we
// map to MCPH_ERR_CLOSED; virtually every program that writes to pipes or sockets does the same.
// The disposition is inherited across execve, so the child resets it (child_process.cpp).
void ignore_sigpipe_once() noexcept;

}  // namespace mcph::stdio
