#!/usr/bin/env bash
# Start-up cost of the CLI and the resting memory of an idle gateway, for one or more checkouts
# (e.g. the previous main and this one), measured in the same run so they share the machine's load.
#
#   bash scripts/measure-startup.sh [checkout ...]     (default: this one; each needs node_modules)
#
# For each: `node bin/zapgate.js --help` and `accounts list` (one account, SQLite) under
# /usr/bin/time -v — median wall time and peak RSS of N runs, interleaved across checkouts — and the
# RSS (VmRSS) of `serve` with no instance, 20 s after /readyz answers 200.
set -euo pipefail
runs=${RUNS:-5}
checkouts=("$@")
[ ${#checkouts[@]} -gt 0 ] || checkouts=("$(cd "$(dirname "$0")/.." && pwd)")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
clean_env() { env -u ZAPGATE_FROM_SOURCE -u NODE_OPTIONS ZAPGATE_LOG_LEVEL=warn ZAPGATE_DATA_DIR="$1" "${@:2}"; }

for c in "${checkouts[@]}"; do
  i=$(echo "$c" | md5sum | cut -c1-8)
  mkdir -p "$work/$i"
  (cd "$work/$i" && clean_env "$work/$i/data" node "$c/bin/zapgate.js" accounts create measure >/dev/null)
done
for cmd in "--help" "accounts list"; do
  for ((r = 0; r < runs; r++)); do
    for c in "${checkouts[@]}"; do
      i=$(echo "$c" | md5sum | cut -c1-8)
      # shellcheck disable=SC2086
      (cd "$work/$i" && clean_env "$work/$i/data" /usr/bin/time -v node "$c/bin/zapgate.js" $cmd >/dev/null 2>"$work/$i/time.txt")
      awk -F': ' '/Elapsed \(wall clock\)/ {split($2, t, ":"); print t[1]*60 + t[2]}' "$work/$i/time.txt" >>"$work/$i/wall-${cmd// /_}"
      awk -F': ' '/Maximum resident set size/ {print $2}' "$work/$i/time.txt" >>"$work/$i/rss-${cmd// /_}"
    done
  done
done
port_of() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
for c in "${checkouts[@]}"; do
  i=$(echo "$c" | md5sum | cut -c1-8)
  echo "== $c ($(git -C "$c" log -1 --format=%h 2>/dev/null || echo 'no git'))"
  for cmd in "--help" "accounts list"; do
    echo "  zapgate $cmd: wall $(median <"$work/$i/wall-${cmd// /_}") s, peak RSS $(( $(median <"$work/$i/rss-${cmd// /_}") / 1024 )) MB (median of $runs)"
  done
done
# Idle gateways, all at once (same load): RSS sampled every 2 s for 30 s once /readyz is 200.
declare -A gw_pid
for c in "${checkouts[@]}"; do
  i=$(echo "$c" | md5sum | cut -c1-8)
  port=$(port_of)
  echo "$port" >"$work/$i/port"
  (cd "$work/$i" && exec env -u ZAPGATE_FROM_SOURCE -u NODE_OPTIONS ZAPGATE_LOG_LEVEL=warn ZAPGATE_DATA_DIR="$work/$i/data" \
    ZAPGATE_HOST=127.0.0.1 ZAPGATE_PORT="$port" node "$c/bin/zapgate.js" serve >/dev/null 2>&1) &
  gw_pid[$c]=$!
done
for c in "${checkouts[@]}"; do
  i=$(echo "$c" | md5sum | cut -c1-8)
  deadline=$((SECONDS + 90))
  until node -e 'fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "http://127.0.0.1:$(cat "$work/$i/port")/readyz"; do
    [ $SECONDS -lt $deadline ] || { echo "serve of $c: not ready"; break; }
    sleep 0.2
  done
done
for ((k = 0; k < 15; k++)); do
  sleep 2
  for c in "${checkouts[@]}"; do
    i=$(echo "$c" | md5sum | cut -c1-8)
    awk '/VmRSS/ {print int($2 / 1024)}' /proc/"${gw_pid[$c]}"/status >>"$work/$i/idle"
  done
done
for c in "${checkouts[@]}"; do
  i=$(echo "$c" | md5sum | cut -c1-8)
  echo "  idle serve ($c): RSS median $(median <"$work/$i/idle") MB, min $(sort -n "$work/$i/idle" | head -1), max $(sort -n "$work/$i/idle" | tail -1) (15 samples over 30 s after ready)"
  kill -TERM "${gw_pid[$c]}" 2>/dev/null || true
  wait "${gw_pid[$c]}" 2>/dev/null || true
done
