#!/usr/bin/env bash
# Smoke test of compose.yaml's `cluster` profile, with podman and without a compose tool: builds the
# image, starts the profile's three nodes at once with the settings compose.yaml gives every node
# (its `x-cluster-env` block, read from the file), and checks that each node's GET /readyz answers
# 200, that the nodes created one first account between them, that an instance created through the
# first node is served through the third, and that a node stopped with SIGTERM exits 0 while the
# others stay ready. Not part of `npm test` (a first build takes minutes).
#
#   bash scripts/cluster-smoke.sh
#
# What differs from `docker compose --profile cluster up`, and why: the containers share the host's
# network (`--network=host`, what works for podman inside another container), so each node gets a
# port of its own and names itself http://127.0.0.1:<port> instead of http://zapgate-nN:3000; and
# PostgreSQL is the machine's own (a fresh database, dropped at the end) rather than the postgres
# service, whose image a machine without a registry cannot pull.
# Settings: ZAPGATE_SMOKE_TAG (zapgate:cluster-smoke), ZAPGATE_SMOKE_PG_URL (the server to create the
# database on: postgres://postgres@127.0.0.1:5432/postgres), ZAPGATE_SMOKE_SKIP_BUILD=1 (use the tag).
# On a machine that cannot pull node:20-bookworm-slim, make a stand-in first (README.md, "Container").
set -euo pipefail
cd "$(dirname "$0")/.."

podman=(podman --runtime runc)
tag=${ZAPGATE_SMOKE_TAG:-zapgate:cluster-smoke}
admin_url=${ZAPGATE_SMOKE_PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}
db=zapgate_cluster_smoke_$$
db_url=${admin_url%/*}/$db
prefix=zapgate-cluster-smoke-$$
export ZAPGATE_CLUSTER_SECRET=${ZAPGATE_CLUSTER_SECRET:-$(node -e "console.log(require('crypto').randomBytes(24).toString('hex'))")}
quiet() { grep -v 'systemd connection' >&2 || true; }
freeport() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }

# compose.yaml, read: the nodes' ids (ZAPGATE_NODE_ID of each service) and the settings every node
# shares (`x-cluster-env`), with ${VAR:-default} filled in from this environment as compose would.
mapfile -t node_ids < <(grep -E '^      ZAPGATE_NODE_ID: ' compose.yaml | awk '{print $2}')
mapfile -t shared < <(node -e '
  const lines = require("fs").readFileSync("compose.yaml", "utf8").split("\n");
  let i = lines.findIndex((l) => l.startsWith("x-cluster-env:"));
  if (i < 0) throw new Error("compose.yaml has no x-cluster-env block");
  for (i++; i < lines.length && /^  \S/.test(lines[i]); i++) {
    const m = /^  ([A-Z0-9_]+): (.*)$/.exec(lines[i]);
    if (!m) continue;
    const value = m[2].replace(/\$\{(\w+):-([^}]*)\}/g, (_, name, dflt) => process.env[name] || dflt);
    console.log(`${m[1]}=${value}`);
  }')
[ "${#node_ids[@]}" -ge 3 ] || { echo "compose.yaml: expected three cluster nodes, found ${node_ids[*]:-none}"; exit 1; }
echo "== compose.yaml's cluster profile: nodes ${node_ids[*]}; shared settings: $(printf '%s ' "${shared[@]%%=*}")"

cleanup() {
  for id in "${node_ids[@]}"; do "${podman[@]}" rm -f -t 5 "$prefix-$id" >/dev/null 2>&1 || true; done
  for id in "${node_ids[@]}"; do "${podman[@]}" volume rm -f "$prefix-$id" >/dev/null 2>&1 || true; done
  psql -q "$admin_url" -c "drop database if exists $db" >/dev/null 2>&1 || true
  rm -rf "${ctx:-}"
}
trap cleanup EXIT

if [ "${ZAPGATE_SMOKE_SKIP_BUILD:-}" != 1 ]; then
  ctx=$(mktemp -d)
  git ls-files -z --cached --others --exclude-standard | tar --null -T - -c | tar -x -C "$ctx"
  echo "== build $tag"
  start=$(date +%s)
  "${podman[@]}" build --network=host --format docker -t "$tag" "$ctx" 2>&1 | grep -E '^(STEP|COMMIT)|rror' || true
  "${podman[@]}" image exists "$tag" || { echo "build failed"; exit 1; }
  echo "built in $(( $(date +%s) - start )) s"
fi

psql -q "$admin_url" -c "create database $db" >/dev/null
echo "== database $db_url (PostgreSQL $(psql -tA "$admin_url" -c 'show server_version'))"

declare -A port
for id in "${node_ids[@]}"; do
  port[$id]=$(freeport)
  args=()
  for kv in "${shared[@]}"; do [ "${kv%%=*}" = ZAPGATE_DATABASE_URL ] || args+=(-e "$kv"); done
  args+=(-e "ZAPGATE_DATABASE_URL=$db_url" -e ZAPGATE_HOST=127.0.0.1 -e "ZAPGATE_PORT=${port[$id]}"
    -e "ZAPGATE_NODE_ID=$id" -e "ZAPGATE_NODE_URL=http://127.0.0.1:${port[$id]}")
  # All at once, as compose starts them once PostgreSQL is healthy.
  "${podman[@]}" run -d --name "$prefix-$id" --network=host --health-interval=disable -v "$prefix-$id:/data" "${args[@]}" "$tag" 2> >(quiet) >/dev/null
  echo "started $id on 127.0.0.1:${port[$id]}"
done

status() { node -e 'fetch(process.argv[1], { signal: AbortSignal.timeout(5000) }).then((r) => console.log(r.status), () => console.log("000"))' "$1"; }
for id in "${node_ids[@]}"; do
  deadline=$(( $(date +%s) + 120 )); code=000
  while [ "$(date +%s)" -lt "$deadline" ]; do
    code=$(status "http://127.0.0.1:${port[$id]}/readyz")
    [ "$code" = 200 ] && break
    [ "$("${podman[@]}" inspect -f '{{.State.Running}}' "$prefix-$id")" = true ] || break
    sleep 1
  done
  echo "$id GET /readyz -> $code"
  [ "$code" = 200 ] || { "${podman[@]}" logs "$prefix-$id" 2>&1 | tail -20; exit 1; }
done

accounts=$(psql -tA "$db_url" -c 'select count(*) from accounts')
banners=0; token=${ZAPGATE_CLIENT_TOKEN:-}
for id in "${node_ids[@]}"; do
  log=$("${podman[@]}" logs "$prefix-$id" 2>/dev/null)
  if grep -q 'created the first account' <<<"$log"; then
    banners=$((banners + 1))
    [ -n "$token" ] || token=$(awk '/created the first account/ { getline; getline; print $1; exit }' <<<"$log")
  fi
done
echo "first account: $accounts in the database, $banners node(s) printed a token"
[ "$accounts" = 1 ] || exit 1
[ -n "${ZAPGATE_CLIENT_TOKEN:-}" ] || [ "$banners" = 1 ] || exit 1

first=${node_ids[0]}; third=${node_ids[2]}
url() { echo "http://127.0.0.1:${port[$1]}"; }
node --input-type=module - "$(url "$first")" "$(url "$third")" "$token" <<'EOF' > "/tmp/$prefix.instance"
const [first, third, token] = process.argv.slice(2);
const call = async (base, method, path, body) => {
  const r = await fetch(base + path, { method, headers: { 'client-token': token, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body && JSON.stringify(body), signal: AbortSignal.timeout(15000) });
  return { status: r.status, node: r.headers.get('x-zapgate-node'), json: await r.json().catch(() => ({})) };
};
const created = await call(first, 'POST', '/instances', { name: 'cluster smoke' });
console.error(`POST /instances via the first node -> ${created.status} (served by ${created.node})`);
if (created.status !== 201) process.exit(1);
const prefix = `/instances/${created.json.instanceId}/token/${created.json.instanceToken}`;
const listed = await call(third, 'GET', '/instances');
const items = Array.isArray(listed.json) ? listed.json : listed.json.items ?? listed.json.instances ?? [];
const seen = JSON.stringify(items).includes(created.json.instanceId);
console.error(`GET /instances via the third node -> ${listed.status} (served by ${listed.node}), lists it: ${seen}`);
const status = await call(third, 'GET', `${prefix}/status`);
console.error(`GET …/status via the third node -> ${status.status}, answered by ${status.node}, ownerNode ${status.json.ownerNode}`);
if (listed.status !== 200 || !seen || status.status !== 200 || typeof status.json.ownerNode !== 'string') process.exit(1);
console.log(`${prefix} ${status.json.ownerNode}`);
EOF
read -r instance owner < "/tmp/$prefix.instance"; rm -f "/tmp/$prefix.instance"

echo "== zapgate cluster status (in $first)"
"${podman[@]}" exec "$prefix-$first" node bin/zapgate.js cluster status
echo "== per node: RSS idle, and PostgreSQL connections"
"${podman[@]}" stats --no-stream --format '{{.Name}} {{.MemUsage}}' 2>/dev/null | grep "$prefix" | sed "s/$prefix-//" || true
echo "connections to $db: $(psql -tA "$admin_url" -c "select count(*) from pg_stat_activity where datname = '$db'") for ${#node_ids[@]} nodes"

# The instance's owner stopped, as a rolling deploy does: it drains and exits 0, the others stay
# ready, and the instance has a live owner again within a few heartbeats.
others=(); for id in "${node_ids[@]}"; do [ "$id" = "$owner" ] || others+=("$id"); done
echo "== stop $owner, the instance's owner (SIGTERM)"
"${podman[@]}" stop -t 30 "$prefix-$owner" 2> >(quiet) >/dev/null
code=$("${podman[@]}" inspect -f '{{.State.ExitCode}}' "$prefix-$owner")
echo "$owner exit code: $code"
[ "$code" = 0 ] || exit 1
for id in "${others[@]}"; do
  code=$(status "$(url "$id")/readyz")
  echo "$id GET /readyz -> $code"
  [ "$code" = 200 ] || exit 1
done
now=?
for _ in $(seq 1 30); do
  now=$(node -e 'fetch(process.argv[1], { headers: { "client-token": process.argv[2] } }).then((r) => r.json()).then((j) => console.log(j.ownerNode ?? "none"), () => console.log("?"))' "$(url "${others[0]}")$instance/status" "$token")
  [[ " ${others[*]} " == *" $now "* ]] && break
  sleep 1
done
echo "the instance's owner now: $now"
[[ " ${others[*]} " == *" $now "* ]] || exit 1
echo "cluster smoke test: OK"
