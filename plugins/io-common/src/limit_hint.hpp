// Which process limit a failed system call ran into, said so that a user can raise it.
//
// A host with a few hundred servers meets the common `ulimit -n 1024` and sometimes `ulimit -u`.
// errno alone ("Too many open files") does not say which limit, its current value, or how to
// raise it; these texts do, and, where the plugin says it, what one of its connections costs.
#pragma once

#include <string>
#include <string_view>

namespace mcph::io {

// What one connection of a plugin holds, said beside the limit it ran into; either may be empty.
// E.g. {"each stdio server holds 4 descriptors", "each stdio server runs a process and 1 thread"}.
struct ConnectionCost {
    std::string_view descriptors;
    std::string_view threads;
};

// For EMFILE, ENFILE and EAGAIN (threads, fork): "; <limit> is reached (<values>): <how to raise
// it>". Empty for any other errno. Reads the limits at the time of the call.
std::string limit_hint(int error_number, const ConnectionCost& cost = {});

// Throws mcph::plugin::Error(MCPH_ERR_IO): "<what>: <strerror>" plus limit_hint().
[[noreturn]] void throw_system_error(int error_number, const std::string& what, const ConnectionCost& cost = {});

}  // namespace mcph::io
