// API keys across a cluster (docs/api-keys.md): two real `zapgate serve` processes on one
// PostgreSQL. A key created through one node works on the other; revoked through the first, the
// other refuses it (401) within about a second — the revocation reaches it through account_changes
// and the 100 ms poll, though the other node had the key in its cache. A key rotated with an
// overlap: the new secret works on both nodes at once, the old one until the overlap ends and then
// on neither. A key past its expiry is refused by both nodes at once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sleep, startCluster, type ApiAnswer, type ClusterHarness } from '../helpers/cluster-harness.js';

describe('API keys on every node of a cluster (two gateway processes on one PostgreSQL)', () => {
  let h: ClusterHarness;

  before(async () => {
    h = await startCluster({ owners: [], contacts: [] });
    await h.startNode('a');
    await h.startNode('b');
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

  /** Asks `node` with `key` every 20 ms until it answers `status`; the ms that took (Infinity: never within `limitMs`). */
  async function msUntil(node: string, key: string, status: number, limitMs: number): Promise<number> {
    const start = Date.now();
    while (Date.now() - start < limitMs) {
      if ((await useKey(node, key)).status === status) return Date.now() - start;
      await sleep(20);
    }
    return Infinity;
  }

  test('created on A, used on B; revoked on A: B answers 401 within a second', async () => {
    const { id, key } = await createKey('a', { name: 'support tool' });
    // B has authenticated it, so B holds it in its cache (kept up to 5 s otherwise).
    for (let i = 0; i < 3; i++) assert.equal((await useKey('b', key)).status, 200, 'the key works on the other node');
    const wrongScope = await h.api('b', 'POST', '/instances', { name: 'nope' }, { 'client-token': key });
    assert.equal(wrongScope.status, 403, 'and only within its scope there too');

    const revoked = await h.api('a', 'DELETE', `/keys/${id}`);
    assert.equal(revoked.status, 200, JSON.stringify(revoked.json));
    assert.equal((await useKey('a', key)).status, 401, 'the node that revoked it refuses it at once');
    const took = await msUntil('b', key, 401, 5_000);
    assert.ok(took < 1_000, `the other node refused the revoked key after ${took} ms`);
    // And it stays refused (no stale cache entry comes back).
    await sleep(300);
    for (const node of ['a', 'b']) {
      const r = await useKey(node, key);
      assert.equal(r.status, 401, `${node}: ${JSON.stringify(r.json)}`);
    }
  });

  test('rotated on A with an overlap: the new secret works on B at once, the old one until the overlap ends', async () => {
    const { id, key: oldKey } = await createKey('a', { name: 'campaign service' });
    assert.equal((await useKey('b', oldKey)).status, 200);
    // Timed from the request, not its answer: the node starts the overlap before it answers, and
    // under load the answer can reach the test a few hundred ms later.
    const rotatedAt = Date.now();
    const rotated = await h.api('a', 'POST', `/keys/${id}/rotate`, { overlapSeconds: 2 });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.json));
    const newKey = String((rotated.json.created as { key: string }).key);
    assert.equal((await useKey('b', newKey)).status, 200, 'the new secret works on the other node at once');
    assert.equal((await useKey('b', oldKey)).status, 200, 'the old one still works during the overlap');
    // The overlap ends 2 s after the rotation: B refuses the old secret from then on.
    const took = await msUntil('b', oldKey, 401, 6_000);
    assert.ok(took !== Infinity, 'the old secret was refused once the overlap ended');
    const elapsed = Date.now() - rotatedAt;
    assert.ok(elapsed >= 2_000 && elapsed < 3_000, `refused ${elapsed} ms after the rotation (overlap 2 s)`);
    assert.equal((await useKey('a', oldKey)).status, 401);
    for (const node of ['a', 'b']) assert.equal((await useKey(node, newKey)).status, 200, `${node}: the new secret keeps working`);
  });

  test('a key past its expiry is refused on both nodes, though both had it cached', async () => {
    const expiresAt = Date.now() + 1_500;
    const { key } = await createKey('b', { name: 'short-lived', expiresAt });
    for (const node of ['a', 'b']) assert.equal((await useKey(node, key)).status, 200, `${node}: works before its expiry`);
    const wait = expiresAt - Date.now();
    if (wait > 0) await sleep(wait);
    for (const node of ['a', 'b']) {
      const r = await useKey(node, key);
      assert.equal(r.status, 401, `${node} refuses it once expired: ${JSON.stringify(r.json)}`);
    }
  });
});
