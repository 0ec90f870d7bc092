// API keys across a cluster (docs/api-keys.md): two real `zapgate serve` processes on one
// PostgreSQL. A key created through one node works on the other; revoked through the first, the
// other refuses it (401) — the revocation reaches it through account_changes and the 100 ms poll,
// though the other node had the key in its cache: it refuses the key before its cache alone would
// have let it go. A key rotated with an overlap: the new secret works on both nodes at once, the
// old one until the overlap ends (never less) and then on neither. A key past its expiry is
// refused by both nodes at once. How soon the other node refuses is a service level: printed here,
// measured by bench/service-levels.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type ApiAnswer, type ClusterHarness } from '../helpers/cluster-harness.js';
import { holds, sleep, until } from '../helpers/wait.js';

/** How long a node trusts a key it has read (src/services/api-keys-service.ts). */
const CACHE_TTL_MS = 5_000;

describe('API keys on every node of a cluster (two gateway processes on one PostgreSQL)', () => {
  let h: ClusterHarness;

  before(async () => {
    h = await startCluster({ owners: [], contacts: [] });
    await h.startNodes('a', 'b');
  });
  after(async () => {
    await h?.close();
  });

  /** An account-wide read (GET /instances) made with `key` through `node`. */
  const useKey = (node: string, key: string): Promise<ApiAnswer> => h.api(node, 'GET', '/instances', undefined, { 'client-token': key });

  async function createKey(node: string, body: Record<string, unknown>): Promise<{ id: string; key: string }> {
    const r = await h.api(node, 'POST', '/keys', { scopes: ['read'], ...body });
    assert.equal(r.status, 201, JSON.stringify(r.json));
    return { id: String(r.json.id), key: String(r.json.key) };
  }

  /** Asks `node` with `key` every 20 ms (the figure's resolution) until it answers `status`. */
  async function answers(node: string, key: string, status: number, what: string): Promise<void> {
    await until(what, async () => (await useKey(node, key)).status, (s) => s === status, { pollMs: 20 });
  }

  test('created on A, used on B; revoked on A: B answers 401 before its cache would have let the key go', async (t) => {
    const { id, key } = await createKey('a', { name: 'support tool' });
    // B has authenticated it, so B holds it in its cache, read no earlier than this (and kept
    // CACHE_TTL_MS, were it not told of the revocation).
    const cachedFrom = Date.now();
    for (let i = 0; i < 3; i++) assert.equal((await useKey('b', key)).status, 200, 'the key works on the other node');
    const wrongScope = await h.api('b', 'POST', '/instances', { name: 'nope' }, { 'client-token': key });
    assert.equal(wrongScope.status, 403, 'and only within its scope there too');

    const revoked = await h.api('a', 'DELETE', `/keys/${id}`);
    assert.equal(revoked.status, 200, JSON.stringify(revoked.json));
    const revokedAt = Date.now();
    assert.equal((await useKey('a', key)).status, 401, 'the node that revoked it refuses it at once');
    await answers('b', key, 401, 'the other node to refuse the revoked key');
    const refusedAt = Date.now();
    t.diagnostic(`the other node refused the revoked key ${refusedAt - revokedAt} ms after the revocation`);
    assert.ok(refusedAt < cachedFrom + CACHE_TTL_MS, `the other node was told of the revocation: refused ${refusedAt - cachedFrom} ms after it cached the key, when its cache alone keeps a key ${CACHE_TTL_MS} ms`);
    // And it stays refused (no stale cache entry comes back): watched a moment on both nodes.
    await holds(
      'the revoked key refused on both nodes',
      async () => ({ a: (await useKey('a', key)).status, b: (await useKey('b', key)).status }),
      (r) => r.a === 401 && r.b === 401,
      { forMs: 500, pollMs: 50 },
    );
  });

  test('rotated on A with an overlap: the new secret works on B at once, the old one until the overlap ends', async (t) => {
    const { id, key: oldKey } = await createKey('a', { name: 'campaign service' });
    const cachedFrom = Date.now();
    assert.equal((await useKey('b', oldKey)).status, 200);
    // Timed from the request, not its answer: the node starts the overlap before it answers, and
    // under load the answer can reach the test a few hundred ms later.
    const rotatedAt = Date.now();
    const rotated = await h.api('a', 'POST', `/keys/${id}/rotate`, { overlapSeconds: 2 });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.json));
    const newKey = String((rotated.json.created as { key: string }).key);
    assert.equal((await useKey('b', newKey)).status, 200, 'the new secret works on the other node at once');
    assert.equal((await useKey('b', oldKey)).status, 200, 'the old one still works during the overlap');
    // The overlap ends 2 s after the rotation: B refuses the old secret from then on, never sooner.
    await answers('b', oldKey, 401, 'the other node to refuse the old secret once the overlap ended');
    const elapsed = Date.now() - rotatedAt;
    assert.ok(elapsed >= 2_000, `refused ${elapsed} ms after the rotation, before its 2 s overlap ended`);
    // B was told of the rotation: its cached copy of the old key (no end then) would have kept it
    // working until the cache ran out.
    assert.ok(Date.now() < cachedFrom + CACHE_TTL_MS, `refused ${Date.now() - cachedFrom} ms after the other node cached the old key: it was not told of the rotation`);
    t.diagnostic(`the other node refused the old secret ${elapsed} ms after the rotation (overlap 2 s)`);
    assert.equal((await useKey('a', oldKey)).status, 401);
    for (const node of ['a', 'b']) assert.equal((await useKey(node, newKey)).status, 200, `${node}: the new secret keeps working`);
  });

  test('a key past its expiry is refused on both nodes, though both had it cached', async () => {
    // 3 s of life: room for the two uses below on a loaded machine, and the caches they fill still
    // hold the key when it expires.
    const expiresAt = Date.now() + 3_000;
    const { key } = await createKey('b', { name: 'short-lived', expiresAt });
    const cachedFrom = Date.now();
    for (const node of ['a', 'b']) assert.equal((await useKey(node, key)).status, 200, `${node}: works before its expiry`);
    // The scenario's time: the key's expiry itself.
    const wait = expiresAt - Date.now();
    if (wait > 0) await sleep(wait);
    for (const node of ['a', 'b']) {
      const r = await useKey(node, key);
      assert.equal(r.status, 401, `${node} refuses it once expired: ${JSON.stringify(r.json)}`);
    }
    assert.ok(Date.now() < cachedFrom + CACHE_TTL_MS, 'refused while both nodes still had it cached');
  });
});
