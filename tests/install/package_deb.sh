#!/usr/bin/env bash
# tests/install: the Debian packages (issue #13, "What it must show" 3). Runs cpack on the build,
# checks each package's file list and Depends (dpkg-deb -c / -f), installs both into a throwaway
# dpkg root (dpkg --root --force-not-root --force-script-chrootless: works as root, as CI runs, and
# unprivileged; should this dpkg refuse, the packages are extracted with dpkg-deb -x instead and
# the removal check is skipped, said so),
# runs <root>/usr/bin/mcph demo from there with an empty environment (libmcph through the CLI's
# RUNPATH $ORIGIN/../lib/<multiarch>:$ORIGIN/../lib, the plugins through libmcph's own location), removes the
# packages and checks nothing of them is left. The real thing — apt in a Debian 12 chroot — is
# packaging/check-in-chroot.sh (not run here: debootstrap takes minutes).
#
# usage: package_deb.sh <build dir> <libdir (lib/<multiarch>)> <version> <soname file> <library file> <source dir>
set -euo pipefail
build="$1"; libdir="$2"; version="$3"; soname="$4"; libfile="$5"; src="$6"
work="$(mktemp -d "${TMPDIR:-/tmp}/mcph-package-test-XXXXXX")"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
step() {
  local name="$1"; shift
  if ! "$@" >"$work/$name.log" 2>&1; then
    echo "---- $name failed: $*" >&2
    cat "$work/$name.log" >&2
    fail "$name"
  fi
}
# has <list file> <path>: the package list (dpkg-deb -c) holds ./<path>.
has() { awk '{print $6}' "$1" | grep -qxF "./$2" || { cat "$1" >&2; fail "$(basename "$1" .list) lacks $2"; }; }
lacks() { ! awk '{print $6}' "$1" | grep -qE "$2" || { cat "$1" >&2; fail "$(basename "$1" .list) must not hold $2"; }; }

# ---- build the packages ---------------------------------------------------------------------------
step cpack cpack --config "$build/CPackConfig.cmake" -B "$work/pkg"
runtime_deb="$(ls "$work"/pkg/mcph_"$version"_*.deb)"
dev_deb="$(ls "$work"/pkg/mcph-dev_"$version"_*.deb)"
dpkg-deb -c "$runtime_deb" >"$work/mcph.list"
dpkg-deb -c "$dev_deb" >"$work/mcph-dev.list"

# ---- file lists -----------------------------------------------------------------------------------
for f in usr/bin/mcph usr/libexec/mcph/hello-server "usr/$libdir/$soname" "usr/$libdir/$libfile"; do has "$work/mcph.list" "$f"; done
for p in auth_oauth auth_xaa transport_http transport_sse transport_stdio transport_ws; do
  has "$work/mcph.list" "usr/$libdir/mcph/plugins/libmcph_$p.so"
done
lacks "$work/mcph.list" 'test|/include/|/cmake/|pkgconfig|plugin\.map'
for f in usr/include/mcph/host.hpp usr/include/mcph/plugin_api.h usr/include/mcph/plugin_helper.hpp \
         usr/include/mcph/bounded_json.hpp usr/share/mcph/plugin.map "usr/$libdir/cmake/mcph/mcphConfig.cmake" \
         "usr/$libdir/cmake/mcph/mcphConfigVersion.cmake" "usr/$libdir/cmake/mcph/mcphTargets.cmake" \
         "usr/$libdir/cmake/mcph/MCPHPlugin.cmake" "usr/$libdir/pkgconfig/mcph.pc" "usr/$libdir/pkgconfig/mcph-plugin.pc"; do
  has "$work/mcph-dev.list" "$f"
done
lacks "$work/mcph-dev.list" '/bin/|/plugins/lib|test'
if [ -f "$src/LICENSE" ]; then  # Debian policy: /usr/share/doc/<package>/copyright
  has "$work/mcph.list" usr/share/doc/mcph/copyright
  has "$work/mcph-dev.list" usr/share/doc/mcph-dev/copyright
fi
if [ "$soname" != libmcph.so ]; then
  # The namelink (for linking) belongs to -dev, the versioned library to the runtime package.
  has "$work/mcph-dev.list" "usr/$libdir/libmcph.so"
  lacks "$work/mcph.list" "/libmcph\.so\$"
else
  echo "note: libmcph has no SOVERSION in this build: one unversioned libmcph.so, in the runtime package"
fi

# ---- Depends --------------------------------------------------------------------------------------
runtime_depends="$(dpkg-deb -f "$runtime_deb" Depends)"
dev_depends="$(dpkg-deb -f "$dev_deb" Depends)"
echo "mcph Depends: $runtime_depends"
echo "mcph-dev Depends: $dev_depends"
# From dpkg-shlibdeps over every ELF file: libmcph's own (libc6, libstdc++6, libssl3), a plugin's
# (libcurl4: transport-http/sse, auth-*; libwebsockets17: transport-ws only).
for dep in libc6 libstdc++6 libssl3 libcurl4 libwebsockets; do
  awk -v d="$dep" -F', ' '{ for (i = 1; i <= NF; i++) if (index($i, d) == 1 && index($i, "(>= ")) f = 1 } END { exit !f }' \
    <<<"$runtime_depends" || fail "mcph Depends lacks a versioned $dep: $runtime_depends"
done
# ICU, libidn2 and libedit are opened on demand (no NEEDED entry names them): the package names them itself.
grep -qE '(^|, )libicu[0-9]+($|,| )' <<<"$runtime_depends" || fail "mcph Depends lacks libicu: $runtime_depends"
grep -qE '(^|, )libidn2-0($|,| )' <<<"$runtime_depends" || fail "mcph Depends lacks libidn2-0: $runtime_depends"
grep -qE '(^|, )libedit2($|,| )' <<<"$runtime_depends" || fail "mcph Depends lacks libedit2: $runtime_depends"
grep -qF "mcph (= $version)" <<<"$dev_depends" || fail "mcph-dev must depend on mcph (= $version): $dev_depends"
grep -qE '(^|, )rapidjson-dev($|,)' <<<"$dev_depends" || fail "mcph-dev must depend on rapidjson-dev: $dev_depends"
for section in "$runtime_deb:net" "$dev_deb:libdevel"; do
  [ "$(dpkg-deb -f "${section%:*}" Section)" = "${section##*:}" ] || fail "Section of ${section%:*}"
  [ -n "$(dpkg-deb -f "${section%:*}" Maintainer)" ] || fail "no Maintainer in ${section%:*}"
done

# ---- install into a throwaway root ------------------------------------------------------------------
root="$work/root"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/triggers"
touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
# The runtime package's postinst/postrm run ldconfig (CPack, for libmcph). Chrootless, that would
# be the host's ldconfig rewriting the host's cache (or failing, unprivileged): a stand-in first
# in PATH records the call instead, which also shows the maintainer scripts ran.
mkdir -p "$work/fakebin"
printf '#!/bin/sh\necho "ldconfig $*" >> "%s/ldconfig.calls"\n' "$work" >"$work/fakebin/ldconfig"
chmod +x "$work/fakebin/ldconfig"
dpkg_root=(env PATH="$work/fakebin:$PATH" dpkg --root="$root" --log="$work/dpkg.log"
           --force-depends --force-not-root --force-script-chrootless)
use_dpkg=1
if ! "${dpkg_root[@]}" -i "$runtime_deb" "$dev_deb" >"$work/dpkg-install.log" 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then cat "$work/dpkg-install.log" >&2; fail "dpkg --root -i"; fi
  echo "note: dpkg --root needs root here (not uid 0): extracting with dpkg-deb -x, no removal check"
  use_dpkg=0
  rm -rf "$root" && mkdir -p "$root"
  dpkg-deb -x "$runtime_deb" "$root" && dpkg-deb -x "$dev_deb" "$root"
else
  [ -s "$work/ldconfig.calls" ] || fail "the runtime package's postinst did not run ldconfig"
fi

# The installed CLI: RUNPATH relative to itself only (no build path, no empty entry: ld.so would
# read it as the current directory), plugins with no RUNPATH. The same RUNPATH as in the build
# tree, where $ORIGIN/../lib finds libmcph (cmake/MCPHInstall.cmake).
runpath="$(readelf -d "$root/usr/bin/mcph" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')"
want="\$ORIGIN/../$libdir"
[[ $libdir == lib ]] || want+=":\$ORIGIN/../lib"
[[ "$runpath" == "$want" ]] || fail "mcph RUNPATH is '$runpath', expected $want"
for so in "$root/usr/$libdir"/mcph/plugins/*.so "$root/usr/$libdir/$libfile"; do
  ! readelf -d "$so" | grep -qE '\((RUNPATH|RPATH)\)' || fail "$so has a RUNPATH"
done

# ---- mcph demo from the installed location, with no environment ----------------------------------------
mkdir -p "$work/home"
step demo env -i PATH=/usr/bin:/bin HOME="$work/home" TMPDIR="$work" "$root/usr/bin/mcph" demo
grep -qF "$root/usr/$libdir/mcph/plugins/libmcph_transport_stdio.so" "$work/demo.log" ||
  { cat "$work/demo.log" >&2; fail "the demo did not load the packaged stdio plugin (relocatable plugin directory)"; }
grep -q "connected to hello-mcp" "$work/demo.log" || { cat "$work/demo.log" >&2; fail "the demo did not connect"; }
echo "demo: ran from $root/usr/bin/mcph with the packaged plugins"

# ---- remove -------------------------------------------------------------------------------------
if [ "$use_dpkg" -eq 1 ]; then
  step dpkg-remove "${dpkg_root[@]}" --purge mcph-dev mcph
  left="$(cd "$root" && find . -mindepth 1 -not -path './var' -not -path './var/lib' -not -path './var/lib/dpkg' -not -path './var/lib/dpkg/*')"
  [ -z "$left" ] || fail "left behind after dpkg --purge: $left"
  grep -q "^Package: mcph" "$root/var/lib/dpkg/status" && fail "dpkg still lists an mcph package"
  echo "removed: nothing left"
fi
echo "PASS"
