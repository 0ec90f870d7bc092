#!/usr/bin/env bash
# A minimal Debian bookworm root file system with this machine's Node 20 and npm in it and nothing
# else: what scripts/fresh-machine.sh runs the README's commands in, and what
# scripts/local-base-image.sh turns into a stand-in for the `node:20-bookworm-slim` image.
#
#   bash scripts/bookworm-rootfs.sh CACHE_DIR [PACKAGE,...]   # prints the rootfs's path once complete
#
# PACKAGEs are Debian packages to add (debootstrap --include), e.g. python3,make,g++.
#
# It is built once (debootstrap --variant=minbase, from the Debian mirror that apt on this machine
# uses) and kept in CACHE_DIR; it is rebuilt when missing, incomplete, or made with another Node.
# Node goes where Debian's and the official image's layouts agree with this machine's: the node
# binary, npm (and npx) and Node's C headers (include/node, which node-gyp needs to compile an addon
# whose prebuilt binary cannot be downloaded; the official images ship them too).
# Needs root, debootstrap (installed with apt-get when missing) and Node >= 20.18.1 on this machine.
set -euo pipefail
cache=${1:?usage: bookworm-rootfs.sh CACHE_DIR [PACKAGE,...]}
include=${2:-}
rootfs=$cache/rootfs${include:+-${include//[^a-z0-9+]/-}}
node_bin=$(readlink -f "$(command -v node)")
node_version=$("$node_bin" --version)
stamp="bookworm minbase${include:+ + $include} + node $node_version + npm $(npm --version)"

if [ -f "$rootfs/.zapgate-rootfs" ] && [ "$(cat "$rootfs/.zapgate-rootfs")" = "$stamp" ]; then
  echo "$rootfs"
  exit 0
fi

node -e 'const [a,b,c]=process.versions.node.split(".").map(Number); process.exit(a===20 && (b>18 || (b===18 && c>=1)) ? 0 : 1)' \
  || { echo "bookworm-rootfs: this machine's Node is $node_version; the README asks for Node 20 >= 20.18.1" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "bookworm-rootfs: needs root (debootstrap, chroot)" >&2; exit 1; }
if ! command -v debootstrap >/dev/null 2>&1 && [ ! -x /usr/sbin/debootstrap ]; then
  echo "bookworm-rootfs: installing debootstrap" >&2
  apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >&2
fi
# Debian's mirror as apt is configured here (one-line or deb822 sources).
mirror=$(grep -rhoE '^(URIs:|deb) +[^ ]+' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null \
  | awk '{print $2}' | grep -E '/debian/?$' | head -n 1 || true)
[ -n "$mirror" ] || { echo "bookworm-rootfs: no Debian mirror in /etc/apt/sources.list*: cannot debootstrap" >&2; exit 1; }

mkdir -p "$cache"
# What an interrupted build left (one build at a time per cache: CI runs one job at a time).
rm -rf "$rootfs".new-*
staging=$(mktemp -d "$rootfs.new-XXXXXX")
chmod 0755 "$staging"   # it becomes "/": every user must be able to enter it
trap 'rm -rf "$staging"' EXIT
echo "bookworm-rootfs: debootstrap bookworm${include:+ with $include} from $mirror (minutes, once)" >&2
if ! timeout 900 debootstrap --variant=minbase ${include:+--include="$include"} bookworm "$staging" "$mirror" >"$staging.log" 2>&1; then
  tail -n 20 "$staging.log" >&2
  rm -f "$staging.log"
  exit 1
fi
rm -f "$staging.log"

# Node: the binary, npm and the headers, at the paths they have here (prefix /usr or /usr/local).
prefix=$(dirname "$(dirname "$node_bin")")
npm_dir=$(readlink -f "$(dirname "$(readlink -f "$(command -v npm)")")/..")
mkdir -p "$staging$prefix/bin" "$staging$prefix/lib/node_modules"
cp "$node_bin" "$staging$prefix/bin/node"
cp -a "$npm_dir" "$staging$prefix/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$staging$prefix/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$staging$prefix/bin/npx"
if [ -f "$prefix/include/node/common.gypi" ]; then
  mkdir -p "$staging$prefix/include" && cp -a "$prefix/include/node" "$staging$prefix/include/node"
fi
rm -rf "$staging"/var/cache/apt/archives/*.deb "$staging"/var/lib/apt/lists/*
echo "$stamp" > "$staging/.zapgate-rootfs"

rm -rf "$rootfs"
mv "$staging" "$rootfs"
trap - EXIT
echo "$rootfs"
