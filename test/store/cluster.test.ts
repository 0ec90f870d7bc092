// Cluster membership, ownership and fencing on PostgreSQL (cluster mode runs only there: SQLite is
// one node, so these tests have no SQLite twin). Leases run on the database's clock; claims never
// hand one instance to two nodes; and a node's engine connection (fenced with its incarnation) can
// write an instance's rows only while that incarnation owns it: once another node has taken it
// over, the write is refused and changes nothing, while request connections (unfenced) still write.
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { randomBytes } from 'node:crypto';
import { openDatabase, type Database } from '../../src/store/database.js';
import { createStore, type Store } from '../../src/store/index.js';
import { ClusterRepo } from '../../src/store/cluster-repo.js';
import { installFenceTriggers } from '../../src/store/fence-triggers.js';
import { OutgoingBlobsRepo } from '../../src/store/outgoing-blobs-repo.js';
import { OutgoingMediaStore } from '../../src/media/outgoing-store.js';
import { PG_URL } from '../helpers/databases.js';
import { accountRow, instanceRow } from '../helpers/store-fixtures.js';
import { until } from '../helpers/poll.js';

interface Cluster {
  schema: string;
  database: Database;
  store: Store;
  repo: ClusterRepo;
  /** A connection of `incarnation`'s engine (fenced). */
  engine(incarnation: string): Promise<Database>;
  seed(n: number): Promise<string[]>;
}

async function withCluster(fn: (c: Cluster) => Promise<void>): Promise<void> {
  const schema = `cl_${randomBytes(6).toString('hex')}`;
  const database = await openDatabase({ dataDir: '', databaseUrl: PG_URL, pgSchema: schema });
  await installFenceTriggers(database.db);
  const engines: Database[] = [];
  const store = createStore(database);
  try {
    await fn({
      schema,
      database,
      store,
      repo: new ClusterRepo(database.db),
      async engine(incarnation) {
        const d = await openDatabase({ dataDir: '', databaseUrl: PG_URL, pgSchema: schema, fence: { incarnation, idleTxMs: 5_000 }, migrate: false });
        engines.push(d);
        return d;
      },
      async seed(n) {
        const a = accountRow();
        await store.accounts.create(a);
        const ids: string[] = [];
        for (let i = 0; i < n; i++) {
          const row = instanceRow(a.id, { created_at: 1_700_000_000_000 + i });
          await store.instances.create(row);
          ids.push(row.id);
        }
        return ids;
      },
    });
  } finally {
    for (const d of engines) await d.close();
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(database.db);
    await database.close();
  }
}

/** A shared blob's grace in these tests: far longer than any step of the test takes, loaded or not. */
const GRACE_MS = 60_000;

/** Makes the shared copy of `sha256` look stored `ms` earlier than it was: its age moves, no one waits for it. */
async function age(database: Database, sha256: string, ms: number): Promise<void> {
  await sql`update outgoing_media_blobs set stored_at = stored_at - ${ms} where sha256 = ${sha256}`.execute(database.db);
}

test('postgres: a lease lives on the database clock; renewing after another process took the node id fails', async () => {
  await withCluster(async ({ repo }) => {
    const a = randomUUID();
    await repo.register('n1', a, 'http://127.0.0.1:1', 10_000);
    assert.equal((await repo.nodes())[0]?.live, true, 'live right after registering');
    assert.equal(await repo.renew('n1', a, 10_000), true, 'renewed');
    // Its last renewal is a short one (leases long enough for the checks above on a loaded
    // machine, then one that runs out at once: no wait on a lease's length).
    assert.equal(await repo.renew('n1', a, 1), true, 'renewed for 1 ms');
    await until('the node to be dead once its lease ran out', async () => (await repo.nodes())[0]?.live === false);
    assert.equal(await repo.renew('n1', a, 300), false, 'a lapsed lease is never revived (its instances may be another node\'s now)');
    const b = randomUUID();
    const { heldBy } = await repo.register('n1', b, 'http://127.0.0.1:2', 10_000);
    assert.equal(heldBy, null, 'the old incarnation was no longer live: replaced');
    assert.equal(await repo.renew('n1', a, 10_000), false, 'the old incarnation cannot renew the row now');
    assert.deepEqual((await repo.nodes()).map((n) => [n.nodeId, n.incarnation, n.url]), [['n1', b, 'http://127.0.0.1:2']]);
  });
});

test('postgres: a process registering a node id whose lease still runs waits: the live incarnation keeps the id and its instances', async () => {
  await withCluster(async ({ repo, seed }) => {
    // The earlier process was killed a moment ago, or still runs under the same id: it may hold
    // sockets, so its instances are nobody else's until its lease runs out.
    const a = randomUUID();
    await repo.register('n1', a, 'http://127.0.0.1:1', 10_000);
    const [owned] = await seed(1);
    assert.equal((await repo.claimOrphans('n1', a, 1)).length, 1);
    const early = randomUUID();
    assert.deepEqual(await repo.register('n1', early, 'http://127.0.0.1:3', 10_000), { heldBy: a }, 'a live lease is not taken over');
    assert.equal((await repo.ownerOf(owned!))?.incarnation, a, 'its instance is still its own');
    assert.deepEqual(await repo.claimOrphans('n2', randomUUID(), 10), [], 'and no orphan for anyone while the lease runs');
    assert.equal(await repo.renew('n1', a, 10_000), true, 'the live incarnation renews as before');
    // Left (SIGTERM): the id is free at once.
    await repo.release(a, owned!);
    await repo.deregister(a);
    assert.deepEqual(await repo.register('n1', early, 'http://127.0.0.1:3', 10_000), { heldBy: null });
  });
});

test('postgres: nodes claiming at once never take the same instance, and each claim raises its epoch', async () => {
  await withCluster(async ({ repo, seed }) => {
    const ids = await seed(40);
    const incs = [randomUUID(), randomUUID(), randomUUID()];
    for (const [i, inc] of incs.entries()) await repo.register(`n${i}`, inc, `http://127.0.0.1:${i}`, 10_000);
    const claims = await Promise.all(incs.map((inc, i) => repo.claimOrphans(`n${i}`, inc, 40)));
    const all = claims.flat().map((c) => c.id);
    assert.equal(new Set(all).size, all.length, 'no instance claimed twice');
    assert.deepEqual([...all].sort(), [...ids].sort(), 'every orphan claimed once');
    assert.ok(claims.flat().every((c) => c.epoch === 1), 'first owners have epoch 1');
    assert.deepEqual(await repo.claimOrphans('n0', incs[0]!, 40), [], 'nothing left to claim');
  });
});

test('postgres: a dead node\'s instances become orphans that another claims with a higher epoch; new instances go to the least loaded node', async () => {
  await withCluster(async ({ repo, seed }) => {
    const [x, y] = await seed(2);
    const dying = randomUUID();
    const alive = randomUUID();
    await repo.register('dying', dying, 'http://127.0.0.1:1', 10_000);
    await repo.register('alive', alive, 'http://127.0.0.1:2', 10_000);
    assert.deepEqual((await repo.claimOrphans('dying', dying, 2)).map((c) => c.id).sort(), [x, y].sort());
    assert.equal((await repo.ownerOf(x!))?.live, true);
    assert.equal((await repo.ownerOf(x!))?.url, 'http://127.0.0.1:1');
    assert.deepEqual(await repo.claimOrphans('alive', alive, 2), [], 'a live owner\'s instances are not orphans');
    // The dying node's last renewal is a short one: its lease runs out at once.
    assert.equal(await repo.renew('dying', dying, 1), true);
    const owner = await until('its owner\'s lease to run out', async () => {
      const o = await repo.ownerOf(x!);
      return o?.live === false && o;
    });
    assert.equal(owner.live, false, 'its owner is dead');
    assert.equal(owner?.url, null, 'no address to forward to');
    const taken = await repo.claimOrphans('alive', alive, 2);
    assert.deepEqual(taken.map((c) => [c.epoch]), [[2], [2]], 'taken over with epoch 2');
    const [z] = await seed(1);
    const fresh = randomUUID();
    await repo.register('fresh', fresh, 'http://127.0.0.1:3', 10_000);
    assert.equal((await repo.assignNew(z!))?.nodeId, 'fresh', 'the node with the fewest instances gets the new one');
    assert.equal(await repo.assignNew(z!), null, 'an instance with an owner is not assigned again');
  });
});

test('postgres: the fence: an engine writes its own instances; after a takeover its writes are refused and change nothing; requests still write', async () => {
  await withCluster(async ({ repo, seed, engine, store }) => {
    const [id] = await seed(1);
    const a = randomUUID();
    const b = randomUUID();
    await repo.register('a', a, 'http://127.0.0.1:1', 10_000);
    await repo.register('b', b, 'http://127.0.0.1:2', 10_000);
    await repo.claimOrphans('a', a, 1);
    const ea = createStore(await engine(a));
    const eb = createStore(await engine(b));
    await ea.auth.writeCreds(id!, '{"me":"a"}', 1);
    await ea.auth.drain();
    assert.equal(await store.auth.readCreds(id!), '{"me":"a"}', 'the owner\'s engine wrote');
    await assert.rejects(
      (async () => {
        await eb.auth.writeCreds(id!, '{"me":"b"}', 1);
        await eb.auth.drain();
      })(),
      /not owned by incarnation/,
      'another node\'s engine may not write it',
    );
    // b takes the instance over (a paused past its lease, say): a's late writes are refused.
    await repo.release(a, id!);
    await repo.claimOrphans('b', b, 1);
    await assert.rejects(
      (async () => {
        await ea.auth.writeCreds(id!, '{"me":"late a"}', 1);
        await ea.auth.drain();
      })(),
      /not owned by incarnation/,
      'the former owner\'s late write is refused',
    );
    await assert.rejects(ea.instances.update(id!, { status: 'replaced' }), /not owned by incarnation/, 'its late status change too');
    assert.equal(await store.auth.readCreds(id!), '{"me":"a"}', 'nothing of the late write landed');
    assert.equal((await store.instances.findById(id!))?.status, 'disconnected', 'the status is untouched');
    await eb.auth.writeCreds(id!, '{"me":"b"}', 1);
    await eb.auth.drain();
    assert.equal(await store.auth.readCreds(id!), '{"me":"b"}', 'the new owner writes');
    assert.equal(await store.instances.update(id!, { name: 'renamed by a request' }), true, 'request connections are not fenced');
  });
});

test('postgres: a takeover waits for the owner\'s write in progress: a claim skips an instance whose row a fenced transaction holds', async () => {
  await withCluster(async ({ repo, seed, engine }) => {
    const [id] = await seed(1);
    const a = randomUUID();
    const b = randomUUID();
    await repo.register('a', a, 'http://127.0.0.1:1', 10_000);
    await repo.register('b', b, 'http://127.0.0.1:2', 10_000);
    await repo.claimOrphans('a', a, 1);
    const ea = await engine(a);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let wrote!: () => void;
    const written = new Promise<void>((r) => (wrote = r));
    const writing = ea.db.transaction().execute(async (trx) => {
      await trx.insertInto('auth_creds').values({ instance_id: id!, creds: '{"in":"flight"}', updated_at: 1 }).execute();
      wrote();
      await held;
    });
    await written;
    // a pauses past its lease (its last renewal a short one) while its transaction is open.
    assert.equal(await repo.renew('a', a, 1), true);
    await until('a\'s lease to run out while its transaction is open', async () => (await repo.ownerOf(id!))?.live === false);
    assert.deepEqual(await repo.claimOrphans('b', b, 1), [], 'the row is held by the write in progress: skipped, not waited for');
    release();
    await writing;
    assert.deepEqual((await repo.claimOrphans('b', b, 1)).map((c) => c.id), [id], 'claimed once the write committed');
  });
});

test('postgres: shared outgoing media: stored once by content, read by any node, and never swept while freshly stored or touched', async () => {
  await withCluster(async ({ database }) => {
    const nodeA = new OutgoingMediaStore(new OutgoingBlobsRepo(database.db, GRACE_MS));
    const nodeB = new OutgoingMediaStore(new OutgoingBlobsRepo(database.db, GRACE_MS));
    const bytes = randomBytes(64 * 1024);
    const stored = await nodeA.put(bytes);
    nodeA.release(stored.sha256);
    assert.deepEqual(await nodeB.read(stored.sha256), bytes, 'another node reads what one stored');
    await nodeB.sweep(async () => new Set());
    assert.deepEqual(await nodeB.read(stored.sha256), bytes, 'an unreferenced blob stored moments ago stays (another node may be committing its reference)');
    await age(database, stored.sha256, 2 * GRACE_MS);
    const again = await nodeA.put(bytes); // a new enqueue of the same content refreshes it
    nodeA.release(again.sha256);
    await nodeB.sweep(async () => new Set());
    assert.deepEqual(await nodeB.read(stored.sha256), bytes, 'a re-stored blob is fresh again');
    await age(database, stored.sha256, 2 * GRACE_MS);
    await nodeB.sweep(async () => new Set([stored.sha256]));
    assert.deepEqual(await nodeB.read(stored.sha256), bytes, 'a referenced blob is kept whatever its age');
    await nodeB.sweep(async () => new Set());
    assert.equal(await nodeB.read(stored.sha256), null, 'an old unreferenced blob is removed');
  });
});
