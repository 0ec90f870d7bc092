#!/usr/bin/env bash
# A stand-in for the official `node:20-bookworm-slim` image, for a machine that cannot pull from a
# container registry but reaches Debian's package mirror and the npm registry: a minimal Debian
# bookworm with this machine's Node 20, npm and Node's headers (scripts/bookworm-rootfs.sh), a `node`
# user (uid 1000) as the official image has, and this machine's trust store and npm settings (so
# `npm ci` inside a build reaches the registry as it does here). It is imported under the official
# name, so the Dockerfile builds unchanged.
#
#   bash scripts/local-base-image.sh                 # once per machine (a few minutes the first time)
#   podman build --format docker -t zapgate .        # then the README's commands
#
# Needs root and podman (installed with apt-get when missing, with runc and debootstrap). The base
# rootfs is cached in ZAPGATE_FRESH_CACHE (/var/cache/zapgate-fresh-machine), shared with
# scripts/fresh-machine.sh. Where podman's default runtime or network does not work (inside another
# container), add `--runtime runc` and `--network=host` to podman's build and run commands.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
tag=${1:-docker.io/library/node:20-bookworm-slim}
[ "$(id -u)" = 0 ] || { echo "local-base-image: needs root" >&2; exit 1; }
if ! command -v podman >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc >/dev/null
fi
# Inside another container podman cannot raise the open-files limit it sets by default (runc fails
# with "error setting rlimit type 7"): with no containers.conf of its own, let it keep the current one.
if [ ! -f /etc/containers/containers.conf ]; then
  mkdir -p /etc/containers && printf '[containers]\ndefault_ulimits = []\n' >/etc/containers/containers.conf
fi
base=$(bash "$repo/scripts/bookworm-rootfs.sh" "${ZAPGATE_FRESH_CACHE:-/var/cache/zapgate-fresh-machine}" | tail -n 1)

work=$(mktemp -d /var/tmp/zapgate-base-image-XXXXXX)
trap 'rm -rf "$work"' EXIT
cp -a "$base" "$work/rootfs"
rm -f "$work/rootfs/.zapgate-rootfs"
chroot "$work/rootfs" /bin/sh -c 'groupadd -g 1000 node && useradd -u 1000 -g node -m -s /bin/sh node'
mkdir -p "$work/rootfs/etc/ssl/certs" && cp /etc/ssl/certs/ca-certificates.crt "$work/rootfs/etc/ssl/certs/ca-certificates.crt"
npm_prefix=$(npm prefix -g)
for f in "$npm_prefix/etc/npmrc" /etc/npmrc; do [ -f "$f" ] && mkdir -p "$work/rootfs$(dirname "$f")" && cp "$f" "$work/rootfs$f"; done
[ -f "$HOME/.npmrc" ] && cp "$HOME/.npmrc" "$work/rootfs/root/.npmrc"
env_changes=(--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' --change 'CMD ["node"]')
[ -n "${NODE_EXTRA_CA_CERTS:-}" ] && env_changes+=(--change "ENV NODE_EXTRA_CA_CERTS=$NODE_EXTRA_CA_CERTS")
tar -C "$work/rootfs" -c . | podman import "${env_changes[@]}" - "$tag" >/dev/null
echo "imported $tag: $(podman run --rm --network=host "$tag" node --version 2>/dev/null || podman --runtime runc run --rm --network=host "$tag" node --version)"
