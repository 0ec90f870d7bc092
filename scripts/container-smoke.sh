#!/usr/bin/env bash
# Builds zapgate's container image, runs it, and waits for GET /readyz to be 200 and the image's
# HEALTHCHECK to pass; checks it runs as a non-root user and stops cleanly on SIGTERM. Not part of
# `npm test` (a first build takes minutes).
#
#   bash scripts/container-smoke.sh
#
# Uses podman (--runtime runc and --network=host, which work inside another container too), building
# with --format docker so that the image keeps its HEALTHCHECK. On a machine that cannot pull
# node:20-bookworm-slim, make a stand-in first: bash scripts/local-base-image.sh (README.md, "Container").
# Settings: ZAPGATE_SMOKE_TAG (zapgate:smoke), ZAPGATE_SMOKE_PORT (a free port),
# ZAPGATE_SMOKE_DATABASE_URL (run it on PostgreSQL instead of SQLite in the volume).
set -euo pipefail
cd "$(dirname "$0")/.."

podman=(podman --runtime runc)
tag=${ZAPGATE_SMOKE_TAG:-zapgate:smoke}
port=${ZAPGATE_SMOKE_PORT:-$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")}
name=zapgate-smoke-$$
volume=zapgate-smoke-data-$$
ctx=$(mktemp -d)
cleanup() {
  "${podman[@]}" rm -f -t 5 "$name" >/dev/null 2>&1 || true
  "${podman[@]}" volume rm -f "$volume" >/dev/null 2>&1 || true
  rm -rf "$ctx"
}
trap cleanup EXIT

# The build context: the files git knows (tracked, or new and not ignored), as they are on disk.
git ls-files -z --cached --others --exclude-standard | tar --null -T - -c | tar -x -C "$ctx"

echo "== build $tag"
start=$(date +%s)
"${podman[@]}" build --network=host --format docker -t "$tag" "$ctx" 2>&1 | grep -E '^(STEP|COMMIT|Successfully)|rror' || true
"${podman[@]}" image exists "$tag" || { echo "build failed"; exit 1; }
echo "built in $(( $(date +%s) - start )) s; image size: $("${podman[@]}" image inspect "$tag" --format '{{.Size}}' | awk '{printf "%.0f MB", $1/1e6}')"

echo "== run on 127.0.0.1:$port"
env_args=(-e ZAPGATE_HOST=127.0.0.1 -e "ZAPGATE_PORT=$port" -e ZAPGATE_LOG_LEVEL=info)
[ -n "${ZAPGATE_SMOKE_DATABASE_URL:-}" ] && env_args+=(-e "ZAPGATE_DATABASE_URL=$ZAPGATE_SMOKE_DATABASE_URL")
# --health-interval=disable: no systemd timer here (none on this machine); `healthcheck run` checks it below.
# (podman's complaints about a missing systemd, for the healthcheck timer, are filtered out.)
quiet() { grep -v 'systemd connection' >&2 || true; }
"${podman[@]}" run -d --name "$name" --network=host --health-interval=disable -v "$volume:/data" "${env_args[@]}" "$tag" 2> >(quiet) >/dev/null

deadline=$(( $(date +%s) + 120 ))
status=000
while [ "$(date +%s)" -lt "$deadline" ]; do
  status=$(node -e 'fetch(process.argv[1]).then(async (r) => { require("fs").writeFileSync(process.argv[2], await r.text()); console.log(r.status) }, () => console.log("000"))' \
    "http://127.0.0.1:$port/readyz" "/tmp/$name.readyz")
  [ "$status" = 200 ] && break
  [ "$("${podman[@]}" inspect -f '{{.State.Running}}' "$name")" = true ] || break
  sleep 1
done
echo "GET /readyz -> $status $(cat /tmp/$name.readyz 2>/dev/null || true)"; rm -f /tmp/$name.readyz
if [ "$status" != 200 ]; then "${podman[@]}" logs "$name" | tail -20; exit 1; fi

echo "user in the container: $("${podman[@]}" exec "$name" id -un) (uid $("${podman[@]}" exec "$name" id -u))"
[ "$("${podman[@]}" exec "$name" id -u)" != 0 ] || { echo "runs as root"; exit 1; }
echo "data dir: $("${podman[@]}" exec "$name" ls -ld /data | awk '{print $1, $3}') ($("${podman[@]}" exec "$name" ls /data | tr '\n' ' '))"
if "${podman[@]}" healthcheck run "$name" >/dev/null 2>&1; then echo "HEALTHCHECK: healthy"; else echo "HEALTHCHECK: failed"; exit 1; fi
echo "first start printed: $("${podman[@]}" logs "$name" 2>/dev/null | grep -c 'created the first account') account banner(s)"

echo "== stop (SIGTERM)"
"${podman[@]}" stop -t 30 "$name" 2> >(quiet) >/dev/null
echo "exit code: $("${podman[@]}" inspect -f '{{.State.ExitCode}}' "$name")"
[ "$("${podman[@]}" inspect -f '{{.State.ExitCode}}' "$name")" = 0 ] || exit 1
echo "container smoke test: OK"
