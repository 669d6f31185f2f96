// The libedit functions `mcph shell` uses (line editing, history, and its sh-like tokenizer),
// resolved the first time a shell needs them instead of linked: every other command (a one-shot
// `mcph call`, `mcph tools`...) never maps libedit and what it brings (libtinfo, libbsd), which
// every start paid (~0.3 ms and ~0.7 MB resident). Called through these pointers, the variadic
// ones (el_set, history...) keep their own argument passing.
#pragma once

#include <histedit.h>

namespace mcph::cli {

struct LibEdit {
    decltype(&::el_init) el_init;
    decltype(&::el_end) el_end;
    decltype(&::el_set) el_set;
    decltype(&::el_wset) el_wset;
    decltype(&::el_get) el_get;
    decltype(&::el_gets) el_gets;
    decltype(&::el_line) el_line;
    decltype(&::el_cursor) el_cursor;
    decltype(&::el_deletestr) el_deletestr;
    decltype(&::el_insertstr) el_insertstr;
    decltype(&::history_init) history_init;
    decltype(&::history_end) history_end;
    decltype(&::history) history;
    decltype(&::tok_init) tok_init;
    decltype(&::tok_end) tok_end;
    decltype(&::tok_reset) tok_reset;
    decltype(&::tok_str) tok_str;
};

// Opens libedit.so.2 on first use (thread-safe). Throws mcph::Error naming the library and the
// loader's reason when it or one of the functions is missing.
const LibEdit& libedit();

}  // namespace mcph::cli
