#!/usr/bin/env bash
# tests/install: install the build to a temporary prefix, then build three separate consumers
# against that prefix only and run them (issue #13, "What it must show" 1):
#   1. examples/embed, standalone (find_package(mcph) + mcph::mcph): connects to the installed
#      hello-server through the INSTALLED stdio plugin with MCPH_PLUGIN_PATH unset — libmcph
#      finds <its libdir>/mcph/plugins from its own location (the temporary prefix is not the
#      compiled-in install prefix, so only the relocatable rule can find it);
#   2. examples/plugin-template (find_package(mcph) + mcph_add_plugin): loaded by the installed
#      CLI through MCPH_PLUGIN_PATH, carries a tools/call (exit 0, the answer printed);
#   3. a pkg-config consumer (pkgconfig-consumer/main.cpp, `pkg-config --cflags --libs mcph`,
#      -Wall -Wextra -Werror).
# Also checks the installed tree: product plugins only (no test plugin), the SDK files, the
# versioned library. Each failing step prints its log.
#
# usage: install_consumers.sh <build dir> <source dir> <c++ compiler> [compiler launcher]
set -euo pipefail
build="$1"; src="$2"; cxx="$3"; launcher="${4:-}"
work="$(mktemp -d "${TMPDIR:-/tmp}/mcph-install-test-XXXXXX")"
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
unset MCPH_PLUGIN_PATH
export MCPH_CONFIG_HOME="$work/config" MCPH_SECRET_STORE=file

fail() { echo "FAIL: $*" >&2; exit 1; }
# step <name> <command...>: runs the command with its output in <name>.log; prints the log on failure.
step() {
  local name="$1"; shift
  if ! "$@" >"$work/$name.log" 2>&1; then
    echo "---- $name failed: $*" >&2
    cat "$work/$name.log" >&2
    fail "$name"
  fi
}
cmake_args=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$prefix")
[ -n "$launcher" ] && cmake_args+=(-DCMAKE_CXX_COMPILER_LAUNCHER="$launcher")

# ---- install ------------------------------------------------------------------------------------
step install cmake --install "$build" --prefix "$prefix"
lib="$(find "$prefix" -name libmcph.so | head -1)"
[ -n "$lib" ] || fail "no libmcph.so installed under $prefix"
libdir="${lib#"$prefix"/}"; libdir="${libdir%/libmcph.so}"   # lib/<multiarch> on Debian
plugindir="$prefix/$libdir/mcph/plugins"
for f in bin/mcph libexec/mcph/hello-server include/mcph/host.hpp include/mcph/plugin_api.h include/mcph/plugin_helper.hpp \
         include/mcph/bounded_json.hpp share/mcph/plugin.map "$libdir/cmake/mcph/mcphConfig.cmake" \
         "$libdir/cmake/mcph/mcphConfigVersion.cmake" "$libdir/cmake/mcph/MCPHPlugin.cmake" \
         "$libdir/pkgconfig/mcph.pc" "$libdir/pkgconfig/mcph-plugin.pc"; do
  [ -e "$prefix/$f" ] || fail "not installed: $f"
done
# The generated version header (host/CMakeLists.txt writes it into the build tree) is installed too.
if [ -f "$build/generated/include/mcph/version.hpp" ]; then
  [ -f "$prefix/include/mcph/version.hpp" ] || fail "not installed: include/mcph/version.hpp (generated)"
fi
installed_plugins="$(cd "$plugindir" && ls | sort | tr '\n' ' ')"
want_plugins="libmcph_auth_oauth.so libmcph_auth_xaa.so libmcph_transport_http.so libmcph_transport_sse.so libmcph_transport_stdio.so libmcph_transport_ws.so "
[ "$installed_plugins" = "$want_plugins" ] || fail "installed plugins: '$installed_plugins', expected '$want_plugins' (test plugins must never be installed)"
echo "installed to $prefix ($libdir): $installed_plugins"

# ---- 1. the embedding example ------------------------------------------------------------------
step embed-configure cmake -S "$src/examples/embed" -B "$work/embed" "${cmake_args[@]}"
step embed-build cmake --build "$work/embed"
step embed-run env -u MCPH_PLUGIN_PATH "$work/embed/embed-example" "$prefix/libexec/mcph/hello-server"
grep -q "add(40, 2) = 42" "$work/embed-run.log" || { cat "$work/embed-run.log" >&2; fail "embed-example: no answer from hello-server"; }
grep -qF "from $plugindir/libmcph_transport_stdio.so" "$work/embed-run.log" ||
  { cat "$work/embed-run.log" >&2; fail "embed-example did not load the installed stdio plugin from $plugindir"; }
echo "embed: add(40, 2) = 42 through $plugindir/libmcph_transport_stdio.so"

# ---- 2. the plugin template --------------------------------------------------------------------
step template-configure cmake -S "$src/examples/plugin-template" -B "$work/template" "${cmake_args[@]}"
step template-build cmake --build "$work/template"
exports="$(nm -D --defined-only "$work/template/libmcph_transport_loopback.so" | awk '{print $3}' | tr '\n' ' ')"
[ "$exports" = "mcph_plugin_entry " ] || fail "the template plugin exports '$exports', expected only mcph_plugin_entry"
config='{"mcpServers":{"lb":{"type":"loopback","greeting":"Hello"}}}'
step template-call env MCPH_PLUGIN_PATH="$work/template" "$prefix/bin/mcph" --strict-mcp-config --mcp-config "$config" \
  call mcp__lb__greet '{"name":"installed mcph"}'
grep -qx "Hello, installed mcph!" "$work/template-call.log" || { cat "$work/template-call.log" >&2; fail "mcph call through the template plugin: wrong answer"; }
echo "template: mcph call mcp__lb__greet -> Hello, installed mcph!"

# ---- 3. a pkg-config consumer ------------------------------------------------------------------
export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
step pkgconfig-flags pkg-config --cflags --libs mcph
read -r -a pc_flags < "$work/pkgconfig-flags.log"
pc_libdir="$(pkg-config --variable=libdir mcph)"
# shellcheck disable=SC2086
step pkgconfig-build $launcher "$cxx" -std=c++20 -Wall -Wextra -Werror "$src/tests/install/pkgconfig-consumer/main.cpp" \
  -o "$work/pkgconfig-consumer" "${pc_flags[@]}" "-Wl,-rpath,$pc_libdir"
step pkgconfig-run env -u MCPH_PLUGIN_PATH "$work/pkgconfig-consumer"
grep -qF "transport stdio from $plugindir/libmcph_transport_stdio.so" "$work/pkgconfig-run.log" ||
  { cat "$work/pkgconfig-run.log" >&2; fail "pkg-config consumer: the installed stdio plugin was not found"; }
grep -qF 'json {"answer":42}' "$work/pkgconfig-run.log" || { cat "$work/pkgconfig-run.log" >&2; fail "pkg-config consumer: JSON"; }
echo "pkg-config: built with '${pc_flags[*]}', found the installed plugins"
echo "PASS"
