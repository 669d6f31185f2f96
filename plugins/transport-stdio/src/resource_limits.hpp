// The stdio plugin's side of plugins/io-common's limit_hint.hpp: what a server costs, said
// beside the limit a failed system call ran into, and the open-file limit children inherit.
//
// Each stdio server costs the host 4 descriptors (three pipe ends and the readers' eventfd; 7 for a
// moment while it is spawned) and one thread (the reader; a second, the stdin writer, with an
// eventfd of its own, only once a server does not keep up with its input), so a config with a
// few hundred servers meets the common `ulimit -n 1024` and sometimes `ulimit -u`.
#pragma once

#include "limit_hint.hpp"  // plugins/io-common

#include <string>

namespace mcph::stdio {

// What a stdio server costs, said beside the limit a failure ran into.
inline constexpr io::ConnectionCost kServerCost{
    "each stdio server holds 4 descriptors", "each stdio server runs a process and 1 thread, 2 while its stdin is full"};

// io::limit_hint and io::throw_system_error with kServerCost.
std::string limit_hint(int error_number);
[[noreturn]] void throw_system_error(int error_number, const std::string& what);

// The environment variable in which the mcph CLI leaves the soft RLIMIT_NOFILE it started with,
// before raising its own to the hard limit: children get the original back, since programs that
// use select() break on descriptors above 1023 (the advice of systemd's authors, too).
inline constexpr const char* kInheritedNofileVariable = "MCPH_CHILD_NOFILE_SOFT";

// That value when the variable is set and a valid number below the current soft limit; else 0.
unsigned long long child_nofile_soft_limit();

}  // namespace mcph::stdio
