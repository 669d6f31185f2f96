#!/usr/bin/env bash
# The ABI fence of libmcph (ctest abi_exported_symbols; docs/compatibility.md):
#   1. readelf -d: the SONAME is libmcph.so.<SOVERSION>;
#   2. every exported symbol (nm -D --defined-only, demangled, text and data sections) is public
#      mcph:: API: its name is in mcph (or is the typeinfo / vtable of an mcph type), and neither it
#      nor its signature names an internal namespace (mcph::detail, mcph::config, ... — every
#      lower-case namespace under mcph but the public mcph::state) or a pimpl (Impl);
#   3. the list equals tests/abi/expected_symbols.txt: a symbol gained or lost fails, with the diff.
#
# usage: check_exported_symbols.sh [--update] <libmcph.so.N> <SOVERSION> <expected_symbols.txt>
#   --update rewrites the expected list from the library (after checks 1 and 2 pass): for a
#   deliberate ABI change, committed together with the change that makes it.
set -euo pipefail

update=0
if [[ "${1:-}" == "--update" ]]; then update=1; shift; fi
if [[ $# -ne 3 ]]; then
    echo "usage: $0 [--update] <libmcph.so.N> <SOVERSION> <expected_symbols.txt>" >&2
    exit 2
fi
lib=$1 soversion=$2 expected=$3
[[ -f "$lib" ]] || { echo "FAIL: no library at $lib" >&2; exit 1; }
export LC_ALL=C

# 1. The versioned SONAME.
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [[ "$soname" != "libmcph.so.$soversion" ]]; then
    echo "FAIL: $lib has SONAME '${soname:-<none>}', expected libmcph.so.$soversion" >&2
    exit 1
fi

# 2. The exported symbols, demangled: defined ones in text (T/W/i) and data (D/B/R/V/G/S/u)
# sections; absolute (A) symbols are version-script nodes, not code or data.
actual=$(mktemp)
trap 'rm -f "$actual"' EXIT
nm -D --defined-only -C --format=bsd "$lib" |
    awk '$2 ~ /^[TtWwiDdBbRrVvGgSsu]$/ { $1 = ""; $2 = ""; sub(/^  /, ""); print }' | sort >"$actual"
count=$(wc -l <"$actual")
if [[ "$count" -eq 0 ]]; then
    echo "FAIL: nm found no exported symbol in $lib" >&2
    exit 1
fi

bad=0
while IFS= read -r sym; do
    name=$sym
    for prefix in "typeinfo name for " "typeinfo for " "vtable for " "VTT for " "construction vtable for " \
                  "guard variable for " "non-virtual thunk to " "virtual thunk to "; do
        name=${name#"$prefix"}
    done
    if [[ "$name" != mcph::* ]]; then
        echo "FAIL: exported symbol outside namespace mcph: $sym" >&2
        bad=1
    elif grep -Eq 'mcph::(state::)?[A-Za-z_]+::Impl\b|mcph::([a-z_][a-z0-9_]*)::' <<<"${sym//mcph::state::/mcph::State::}"; then
        echo "FAIL: exported symbol names an internal namespace or a pimpl: $sym" >&2
        bad=1
    fi
done <"$actual"
[[ $bad -eq 0 ]] || exit 1

# 3. The committed list.
if [[ $update -eq 1 ]]; then
    {
        sed -n '/^#/p' "$expected" 2>/dev/null || true
        cat "$actual"
    } >"$expected.new"
    mv "$expected.new" "$expected"
    echo "updated $expected: $count symbols"
    exit 0
fi
if ! diff -u <(grep -v '^#' "$expected" | sed '/^$/d') "$actual" >/tmp/mcph_abi_diff.$$; then
    echo "FAIL: the exported symbols of $lib differ from $expected" >&2
    echo "(- expected, + exported by the build; $count exported now):" >&2
    cat /tmp/mcph_abi_diff.$$ >&2
    rm -f /tmp/mcph_abi_diff.$$
    echo "If the change is deliberate, regenerate the list and commit it with the change, saying what it" >&2
    echo "does to compatibility (docs/compatibility.md): $0 --update $lib $soversion $expected" >&2
    exit 1
fi
rm -f /tmp/mcph_abi_diff.$$
echo "OK: SONAME $soname, $count exported symbols, all public mcph:: API, as in $expected"
