#include "libedit.hpp"

#include "dynload/on_demand_library.hpp"

namespace mcph::cli {
namespace {

template <class F>
void resolve(mcph::dynload::OnDemandLibrary& library, F& out, const char* name) {
    out = reinterpret_cast<F>(library.symbol(name));
}

LibEdit load() {
    static mcph::dynload::OnDemandLibrary library("libedit.so.2", "mcph shell");
    LibEdit e{};
    resolve(library, e.el_init, "el_init");
    resolve(library, e.el_end, "el_end");
    resolve(library, e.el_set, "el_set");
    resolve(library, e.el_wset, "el_wset");
    resolve(library, e.el_get, "el_get");
    resolve(library, e.el_gets, "el_gets");
    resolve(library, e.el_line, "el_line");
    resolve(library, e.el_cursor, "el_cursor");
    resolve(library, e.el_deletestr, "el_deletestr");
    resolve(library, e.el_insertstr, "el_insertstr");
    resolve(library, e.history_init, "history_init");
    resolve(library, e.history_end, "history_end");
    resolve(library, e.history, "history");
    resolve(library, e.tok_init, "tok_init");
    resolve(library, e.tok_end, "tok_end");
    resolve(library, e.tok_reset, "tok_reset");
    resolve(library, e.tok_str, "tok_str");
    return e;
}

}  // namespace

const LibEdit& libedit() {
    static const LibEdit functions = load();  // a failed load throws and is tried again next time
    return functions;
}

}  // namespace mcph::cli
