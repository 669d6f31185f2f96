#!/usr/bin/env bash
# packaging/check-in-chroot.sh — the .deb packages on a fresh Debian 12, for real:
#   1. debootstrap a minimal Debian 12 (bookworm) chroot (reused when <chroot dir> already holds one),
#   2. `apt install ./mcph_*.deb ./mcph-dev_*.deb` inside it — apt resolves the Depends that
#      dpkg-shlibdeps wrote against Debian's own library packages,
#   3. `mcph demo` from /usr/bin/mcph (libmcph from /usr/lib/<multiarch>, plugins from
#      /usr/lib/<multiarch>/mcph/plugins, no environment variable),
#   4. builds the plugin template against the installed mcph-dev and calls its tool,
#   5. `apt remove --purge` both and checks that no file of theirs is left.
#
# NOT run in CI: debootstrap downloads and unpacks ~200 MB and takes minutes. CI runs
# tests/install/package_deb.sh instead (file lists, Depends, install into a throwaway dpkg root,
# `mcph demo` from there, removal). Run this before a release.
#
# usage (as root, on a Debian/Ubuntu machine with debootstrap):
#   (cd build && cpack -G DEB)        # builds build/mcph_<v>_<arch>.deb and build/mcph-dev_<v>_<arch>.deb
#   sudo packaging/check-in-chroot.sh build [/var/tmp/mcph-bookworm] [http://deb.debian.org/debian]
set -euo pipefail
debs="$(cd "${1:?usage: check-in-chroot.sh <dir with the .deb files> [chroot dir] [mirror]}" && pwd)"
chroot_dir="${2:-/var/tmp/mcph-bookworm-chroot}"
mirror="${3:-http://deb.debian.org/debian}"
[ "$(id -u)" -eq 0 ] || { echo "check-in-chroot: needs root (debootstrap, chroot, mounts)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "check-in-chroot: apt-get install debootstrap" >&2; exit 2; }
runtime_deb="$(ls "$debs"/mcph_*.deb | tail -1)"
dev_deb="$(ls "$debs"/mcph-dev_*.deb | tail -1)"

if [ ! -f "$chroot_dir/etc/debian_version" ]; then
  echo "== debootstrap bookworm into $chroot_dir"
  debootstrap --variant=minbase bookworm "$chroot_dir" "$mirror"
fi
# /proc: the CLI finds itself through /proc/self/exe; /dev for /dev/null and friends, /dev/pts
# for apt's log.
mounted=()
cleanup() { for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" || true; done; }
trap cleanup EXIT
for m in proc dev dev/pts; do
  if ! mountpoint -q "$chroot_dir/$m"; then
    if [ "$m" = proc ]; then mount -t proc proc "$chroot_dir/proc"; else mount --bind "/$m" "$chroot_dir/$m"; fi
    mounted+=("$chroot_dir/$m")
  fi
done
in_chroot() { chroot "$chroot_dir" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root DEBIAN_FRONTEND=noninteractive "$@"; }

mkdir -p "$chroot_dir/tmp/mcph-debs"
cp "$runtime_deb" "$dev_deb" "$chroot_dir/tmp/mcph-debs/"
echo "== apt install $(basename "$runtime_deb") $(basename "$dev_deb")"
in_chroot apt-get update -qq
in_chroot apt-get install -y -qq --no-install-recommends \
  "/tmp/mcph-debs/$(basename "$runtime_deb")" "/tmp/mcph-debs/$(basename "$dev_deb")"

echo "== mcph demo (/usr/bin/mcph, no environment)"
in_chroot /usr/bin/mcph demo | tee "$chroot_dir/tmp/mcph-demo.log"
grep -q "connected to hello-mcp" "$chroot_dir/tmp/mcph-demo.log"

echo "== the plugin template against the installed mcph-dev"
in_chroot apt-get install -y -qq --no-install-recommends cmake g++ make pkg-config >/dev/null
rm -rf "$chroot_dir/tmp/mcph-template"
cp -r "$chroot_dir/usr/share/doc/mcph/examples/plugin-template" "$chroot_dir/tmp/mcph-template"
in_chroot cmake -S /tmp/mcph-template -B /tmp/mcph-template/build >/dev/null
in_chroot cmake --build /tmp/mcph-template/build >/dev/null
in_chroot /usr/bin/env MCPH_PLUGIN_PATH=/tmp/mcph-template/build /usr/bin/mcph --strict-mcp-config \
  --mcp-config '{"mcpServers":{"lb":{"type":"loopback"}}}' call mcp__lb__greet '{"name":"bookworm"}' |
  grep -qx "Hello, bookworm!"

echo "== apt remove --purge mcph-dev mcph"
files="$(in_chroot dpkg -L mcph mcph-dev | sort -u)"
in_chroot apt-get remove --purge -y -qq mcph-dev mcph
left=""
while read -r f; do
  [ -n "$f" ] && [ -e "$chroot_dir$f" ] && [ ! -d "$chroot_dir$f" ] && left+="$f "
done <<<"$files"
[ -z "$left" ] || { echo "left behind: $left" >&2; exit 1; }
if compgen -G "$chroot_dir/usr/lib/*/mcph" >/dev/null || [ -e "$chroot_dir/usr/include/mcph" ]; then
  echo "left behind: an mcph directory under /usr/lib/<multiarch> or /usr/include" >&2
  exit 1
fi
echo "PASS: installed with apt on Debian 12, mcph demo ran, removed cleanly"
