// `mcph man`: the manual page, roff (man(7) macros), generated from the same tables the help is
// (commands: command_table; options: the option table; exit codes, files and environment: the
// paragraphs of `mcph --help`), so the page cannot drift from what the binary accepts. The build
// also writes it to share/man/man1/mcph.1 with this command, and the install rules install it.
#pragma once

#include <string>

namespace mcph::cli {

std::string man_page();

// Prints man_page() on stdout; exit 0.
int print_man_page();

}  // namespace mcph::cli
