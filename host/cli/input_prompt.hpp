// VS Code's `inputs` (${input:id}) asked of the person at the terminal: the library calls this
// through HostOptions::ask_input once per input (the answer is then kept in the secret store).
#pragma once

#include <mcph/host.hpp>

#include <optional>
#include <string>

namespace mcph::cli {

// Shows who asks (the file and the server), the file's description, the choices of a pickString
// and the default; reads one line from stdin — without echo for a `password` input. Empty line:
// the default, or no answer (nullopt: that server becomes a config problem naming the input).
std::optional<std::string> ask_input_on_terminal(const InputRequest& request);

}  // namespace mcph::cli
