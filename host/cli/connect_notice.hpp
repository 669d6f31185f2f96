// A one-shot command at a terminal (`mcph tools`, `mcph call s/t`, `mcph status`...) that waits
// for a server which does not answer would otherwise sit silent for that server's whole connect
// timeout (30 s by default). After kConnectNoticeDelay it names the servers it still waits for on
// stderr; Ctrl-C ends the command as it always does. The step runs on the calling thread, as it
// did: only the notice comes from a second thread, which ends with the step. The shell has its
// own wait (shell_connects.hpp), where Ctrl-C stops the wait instead of the shell.
#pragma once

#include <mcph/host.hpp>

#include <functional>
#include <string>
#include <vector>

namespace mcph::cli {

// Runs `step` (its exception propagates) and, if it still runs after kConnectNoticeDelay, prints
// "mcph: connecting <servers>... (Ctrl-C ends the command)" for those of `servers` (empty: every
// server) whose connection is still pending then.
void run_with_connect_notice(Host& host, const std::function<void()>& step, const std::vector<std::string>& servers);

}  // namespace mcph::cli
