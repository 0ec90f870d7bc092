#!/usr/bin/env bash
# The README's promise, checked: on a fresh machine, clone, `npm install && npm start`, `npm test`,
# nothing else to install. This builds such a machine — a minimal Debian bookworm root file system
# with Node 20 and npm (scripts/bookworm-rootfs.sh; cached, so repeated runs are quick) — puts a
# clean clone of this repository's committed HEAD in it, and runs the README's commands there in a
# chroot, inside its own mount and PID namespaces (unshare: every mount and process of a step ends
# with it).
#
#   bash scripts/fresh-machine.sh            # quick (CI, every submission): the checkout in /root
#   bash scripts/fresh-machine.sh --full     # both README commands completely, /srv then /root
#   ZAPGATE_FRESH_LOCATIONS="/srv/zapgate" bash scripts/fresh-machine.sh --full   # one location
#
# Quick mode, at /root/zapgate: `npm install`; `npx zapgate --help`; `npm start` until GET /readyz answers 200, then a
# clean stop; `npm run demo` with a pairing and a send through simnet (scripts/demo-session.mjs);
# the test runner's start-up through the README's test command on one small file that uses
# PostgreSQL. --full, at /srv/zapgate and then /root/zapgate: the same, then the whole `npm test`.
# /root is the hard place: root's home is mode 0700, and the bundled PostgreSQL runs as `nobody`.
#
# What the machine has besides Node and npm:
# - python3, make and g++: the README's requirement where the SQLite addon's prebuilt binary cannot
#   be downloaded, as on the machines this project is built on (npm compiles it then);
# - this machine's DNS (resolv.conf), trust store and npm settings, so npm reaches the registry the
#   way it does here;
# - the network is shared: the host's PostgreSQL on 127.0.0.1:5432 is visible inside. To prove the
#   bundled PostgreSQL path (scripts/test-postgres.mjs), the tests' probe is pointed at a closed port
#   (ZAPGATE_TEST_PG_PROBE=127.0.0.1:1), so the run starts its own server exactly as a machine
#   without PostgreSQL would.
# No openssl, curl, PostgreSQL, ffmpeg or Chromium: the dashboard's browser test installs Debian's
# Chromium itself with apt-get (the rootfs keeps Debian's package sources).
#
# Needs root (debootstrap, chroot, mounts). Settings: ZAPGATE_FRESH_CACHE (the base rootfs and npm's
# download cache; /var/cache/zapgate-fresh-machine), ZAPGATE_FRESH_KEEP=1 keeps the machine's files.
set -euo pipefail
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
mode=quick
for arg in "$@"; do
  case $arg in
    --full) mode=full ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "fresh-machine: unknown argument $arg (--full or nothing)" >&2; exit 2 ;;
  esac
done
if [ -n "${ZAPGATE_FRESH_LOCATIONS:-}" ]; then
  read -r -a locations <<<"$ZAPGATE_FRESH_LOCATIONS"
elif [ "$mode" = full ]; then
  locations=(/srv/zapgate /root/zapgate)
else
  locations=(/root/zapgate)
fi
[ "$(id -u)" = 0 ] || { echo "fresh-machine: needs root (debootstrap, chroot, mounts)" >&2; exit 1; }
cache=${ZAPGATE_FRESH_CACHE:-/var/cache/zapgate-fresh-machine}

t0=$(date +%s)
summary=()
failed=0
note() { printf '%-58s %s\n' "$1" "$2"; summary+=("$(printf '%-58s %s' "$1" "$2")"); }

base=$(bash "$repo/scripts/bookworm-rootfs.sh" "$cache" python3,make,g++ | tail -n 1)
work=$(mktemp -d /var/tmp/zapgate-fresh-XXXXXX)
root=$work/rootfs
cleanup() {
  local pid
  for pid in $(jobs -p); do kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  # Mounts live in each step's own namespace and are gone with it; this is belt and braces.
  { grep -o " $root/[^ ]*" /proc/self/mounts 2>/dev/null || true; } | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
  if [ "${ZAPGATE_FRESH_KEEP:-}" = 1 ]; then echo "fresh-machine: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "== the machine: $(cat "$base/.zapgate-rootfs")"
s=$(date +%s)
cp -a "$base" "$root"
chmod 0755 "$work" "$root"   # "/" of the machine: every user (nobody, for PostgreSQL) enters it
# This machine's DNS, trust store and npm settings (registry, CA file, node-gyp's headers).
cp /etc/resolv.conf "$root/etc/resolv.conf"
mkdir -p "$root/etc/ssl/certs" && cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
npm_prefix=$(npm prefix -g)
for f in "$npm_prefix/etc/npmrc" /etc/npmrc; do [ -f "$f" ] && mkdir -p "$root$(dirname "$f")" && cp "$f" "$root$f"; done
[ -f "$HOME/.npmrc" ] && cp "$HOME/.npmrc" "$root/root/.npmrc"
# npm's download cache survives between runs (what a warm cache means); nothing built is kept.
mkdir -p "$cache/npm-cache" "$root/root/.npm"
# apt as configured here (the dashboard's browser test installs Chromium with it).
cp -r /etc/apt/sources.list* "$root/etc/apt/" 2>/dev/null || true
# A clean clone of the committed HEAD (what a new user gets: no node_modules, no dist/, no local state).
head=$(git -C "$repo" rev-parse HEAD)
for loc in "${locations[@]}"; do
  mkdir -p "$root$(dirname "$loc")"
  git clone --quiet --no-hardlinks --no-checkout "$repo" "$root$loc"
  git -C "$root$loc" checkout --quiet --detach "$head"
done
echo "   rootfs copied and ${head:0:7} cloned to ${locations[*]} in $(( $(date +%s) - s )) s"

# A step runs `bash -c SCRIPT` as root in the chroot, in fresh mount and PID namespaces with /proc,
# /sys, /dev, /dev/shm and npm's cache mounted, with the environment a login on that machine has.
in_machine() {
  local limit=$1 script=$2
  local env=(HOME=/root USER=root LOGNAME=root LANG=C.UTF-8 TERM=dumb
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)
  [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && env+=("NODE_EXTRA_CA_CERTS=$NODE_EXTRA_CA_CERTS")
  timeout --kill-after=30 "$limit" unshare --mount --pid --fork --kill-child --propagation private /bin/bash -c '
    set -e
    r=$1; shift
    mount -t proc proc "$r/proc"
    mount -t sysfs sys "$r/sys"
    mount --bind /dev "$r/dev"
    mount -t tmpfs -o mode=1777,size=1g shm "$r/dev/shm"
    mount --bind "$CACHE/npm-cache" "$r/root/.npm"
    exec chroot "$r" /usr/bin/env -i "$@"
  ' bash "$root" "${env[@]}" /bin/bash -c "$script"
}
export CACHE=$cache

# Times a step; its output goes to $work/<name>.log, shown (the end of it) when it fails.
step() {
  local name=$1 limit=$2 script=$3 s rc
  s=$(date +%s)
  echo "-- $name"
  set +e
  in_machine "$limit" "$script" >"$work/log" 2>&1
  rc=$?
  set -e
  local took=$(( $(date +%s) - s ))
  if [ "$rc" = 0 ]; then
    note "$name" "ok    ${took} s"
    grep -E '^# (tests|pass|fail|cancelled|skipped|duration_ms) |^# test.mjs:|demo (up|session)|paired|decrypted|readyz' "$work/log" | tail -n 12 | sed 's/^/   /' || true
  else
    note "$name" "FAIL  ${took} s (exit $rc)"
    tail -n 60 "$work/log" | sed 's/^/   | /'
    failed=1
  fi
  return "$rc"
}

free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }

# GET /readyz until 200 (bounded), from inside the machine, through Node.
readyz='
for (let i = 0; i < 240; i += 1) {
  const r = await fetch(process.argv[1], { signal: AbortSignal.timeout(2000) }).catch(() => null);
  if (r?.status === 200) { console.log("readyz 200 after " + (i / 2) + " s: " + (await r.text())); process.exit(0); }
  await new Promise((ok) => setTimeout(ok, 500));
}
console.error("GET /readyz never answered 200 in 120 s"); process.exit(1);'

check_location() {
  local loc=$1 port
  echo "== $loc ($mode)"
  step "$loc: npm install" 1800 "cd $loc && npm install" || return 0
  # The command line through npx, as the README shows it (fast: the build is reused, not redone).
  step "$loc: npx zapgate --help" 120 "cd $loc && npx zapgate --help | head -n 1" || true
  port=$(free_port)
  # `npm start` as the README runs it (ZAPGATE_PORT/HOST only keep it off the host's busy ports),
  # then Ctrl-C as a terminal sends it — SIGINT to npm and the gateway together (npm does not pass
  # a signal of its own on) —: the gateway must shut down cleanly and everything exit within 30 s.
  step "$loc: npm start -> GET /readyz 200, Ctrl-C" 300 "
    set -m
    cd $loc
    ZAPGATE_PORT=$port ZAPGATE_HOST=127.0.0.1 npm start >start.log 2>&1 &
    npm_pid=\$!
    if ! node --input-type=module -e '$readyz' http://127.0.0.1:$port/readyz; then kill -KILL -- -\$npm_pid; cat start.log; exit 1; fi
    kill -INT -- -\$npm_pid
    for i in \$(seq 1 60); do kill -0 -- -\$npm_pid 2>/dev/null || break; sleep 0.5; done
    wait \$npm_pid; rc=\$?
    if kill -0 -- -\$npm_pid 2>/dev/null; then echo 'still running 30 s after Ctrl-C'; cat start.log; exit 1; fi
    grep -q 'shutting down' start.log || { echo 'no clean shutdown'; cat start.log; exit 1; }
    echo \"readyz done; stopped cleanly on Ctrl-C (npm exit \$rc)\"
    rm -rf data start.log
  " || true
  step "$loc: npm run demo -> pair + send through simnet" 300 "cd $loc && node scripts/demo-session.mjs" || true
  if [ "$mode" = full ]; then
    step "$loc: npm test" 5400 "cd $loc && ZAPGATE_TEST_PG_PROBE=127.0.0.1:1 npm test" || true
  else
    # The runner's start-up with its own PostgreSQL (as nobody, whatever the checkout's place).
    step "$loc: npm test -- test/store/smoke.test.ts (bundled PostgreSQL)" 600 \
      "cd $loc && ZAPGATE_TEST_PG_PROBE=127.0.0.1:1 npm test -- test/store/smoke.test.ts" || true
  fi
}

for loc in "${locations[@]}"; do check_location "$loc"; done

echo
echo "== fresh machine ($mode), $(( $(date +%s) - t0 )) s in all"
printf '%s\n' "${summary[@]}"
if [ "$failed" = 0 ]; then echo "fresh machine: PASS"; else echo "fresh machine: FAIL"; exit 1; fi
