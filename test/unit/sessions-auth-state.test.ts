// Auth state over the store, on every dialect: creds and all ten key types survive a round trip,
// key writes are atomic and idempotent, and a wipe leaves nothing behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initAuthCreds, proto } from 'baileys';
import { dialects } from '../helpers/databases.js';
import { createStore } from '../../src/store/index.js';
import { KEY_TYPES, loadAuthState } from '../../src/sessions/link/auth-state.js';

async function withInstance(open: () => Promise<{ database: import('../../src/store/database.js').Database; dispose(): Promise<void> }>, fn: (s: ReturnType<typeof createStore>, id: string) => Promise<void>) {
  const t = await open();
  try {
    const store = createStore(t.database);
    await store.accounts.create({ id: 'acc', name: 'a', token_hash: 'h', created_at: 1 });
    await store.instances.create({
      id: 'i1', account_id: 'acc', name: 'n', token_hash: 't', status: 'disconnected', status_reason: null, status_since: 1,
      phone: null, lid: null, antiban: 0, disable_enqueue_when_disconnected: 0, list_mode: 'poll', notify_sent_by_me: 0,
      webhook_secret: 'whsec_x', webhook_secret_previous: null, created_at: 1, paired_at: null,
    });
    await fn(store, 'i1');
  } finally {
    await t.dispose();
  }
}

const sample = {
  'pre-key': { '1': { public: Buffer.from([1, 2, 3]), private: Buffer.from([4, 5, 6]) } },
  session: { 'a.0': Buffer.from('session-bytes') },
  'sender-key': { 'g::a::0': Buffer.from('sender-key') },
  'sender-key-memory': { 'g@g.us': { 'a:0@s.whatsapp.net': true } },
  'app-state-sync-key': { AAA: { keyData: Buffer.from([9, 9]), timestamp: 5 } },
  'app-state-sync-version': { regular: { version: 3, hash: Buffer.alloc(128, 1), indexValueMap: { x: { valueMac: Buffer.from([7]) } } } },
  'lid-mapping': { '5511999990001': '123456789', '123456789_reverse': '5511999990001' },
  'device-list': { '5511999990001': ['0', '3'] },
  tctoken: { '5511999990001@s.whatsapp.net': { token: Buffer.from('tok'), timestamp: '1700000000' } },
  'identity-key': { 'a.0': Buffer.from(new Uint8Array(33).fill(5)) },
} as const;

for (const d of dialects) {
  test(`${d.name}: creds and every key type round-trip with their binary values intact`, async () => {
    await withInstance(d.open, async (store, id) => {
      const first = await loadAuthState(store.auth, id, () => 1);
      assert.equal(first.restored, false);
      await first.saveCreds();
      assert.equal(Object.keys(sample).length, KEY_TYPES.length);
      await first.state.keys.set(sample as never);
      const again = await loadAuthState(store.auth, id, () => 2);
      assert.equal(again.restored, true);
      assert.deepEqual(Buffer.from(again.state.creds.noiseKey.private), Buffer.from(first.state.creds.noiseKey.private));
      assert.equal(again.state.creds.registrationId, first.state.creds.registrationId);
      for (const [type, byId] of Object.entries(sample)) {
        const got: Record<string, unknown> = await again.state.keys.get(type as never, Object.keys(byId));
        for (const [kid, value] of Object.entries(byId)) {
          if (type === 'app-state-sync-key') {
            assert.ok(got[kid] instanceof proto.Message.AppStateSyncKeyData, 'app-state keys come back as protobuf objects');
            assert.deepEqual(Buffer.from((got[kid] as proto.Message.IAppStateSyncKeyData).keyData!), Buffer.from([9, 9]));
          } else {
            assert.deepEqual(JSON.parse(JSON.stringify(got[kid])), JSON.parse(JSON.stringify(value)), `${type}/${kid}`);
          }
        }
      }
      const preKey = (await again.state.keys.get('pre-key', ['1']))['1']!;
      assert.ok(Buffer.isBuffer(preKey.private), 'binary values come back as Buffers');
    });
  });

  test(`${d.name}: a key write is idempotent, null deletes, and the last value of a key wins`, async () => {
    await withInstance(d.open, async (store, id) => {
      const { state } = await loadAuthState(store.auth, id, () => 1);
      const write = { session: { s1: Buffer.from('a'), s2: Buffer.from('b') } };
      await state.keys.set(write);
      await state.keys.set(write); // Baileys retries a failed commit with the same data
      assert.deepEqual(await store.auth.countKeys(id), { session: 2 });
      await state.keys.set({ session: { s1: null, s2: Buffer.from('c') } });
      const got = await state.keys.get('session', ['s1', 's2']);
      assert.equal(got.s1, undefined);
      assert.deepEqual(Buffer.from(got.s2!), Buffer.from('c'));
    });
  });

  test(`${d.name}: 812 pre-keys land in one call and a wipe removes creds and keys`, async () => {
    await withInstance(d.open, async (store, id) => {
      const { state, saveCreds } = await loadAuthState(store.auth, id, () => 1);
      await saveCreds();
      const preKeys: Record<string, { public: Buffer; private: Buffer }> = {};
      for (let i = 1; i <= 812; i++) preKeys[String(i)] = { public: Buffer.alloc(32, i % 256), private: Buffer.alloc(32, 1) };
      await state.keys.set({ 'pre-key': preKeys });
      assert.deepEqual(await store.auth.countKeys(id), { 'pre-key': 812 });
      await store.auth.wipe(id);
      assert.deepEqual(await store.auth.countKeys(id), {});
      assert.equal(await store.auth.readCreds(id), undefined);
    });
  });

  test(`${d.name}: writes for a deleted instance are dropped without failing other instances' writes`, async () => {
    await withInstance(d.open, async (store, id) => {
      const creds = JSON.stringify(initAuthCreds());
      await store.instances.delete(id);
      await Promise.all([store.auth.writeCreds(id, creds, 1), store.auth.writeKeys('ghost', [{ type: 'session', id: 'x', value: '"v"' }])]);
      assert.equal(await store.auth.readCreds(id), undefined);
    });
  });
}

for (const d of dialects) {
  test(`${d.name}: a read while a write is still committing sees the write (a send and a decryption share session records)`, async () => {
    await withInstance(d.open, async (store, id) => {
      // The store's commit takes a while (group commit, fsync): hold it open here.
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const slow = {
        ...store.auth,
        readCreds: store.auth.readCreds.bind(store.auth),
        writeCreds: store.auth.writeCreds.bind(store.auth),
        readKeys: store.auth.readKeys.bind(store.auth),
        wipe: store.auth.wipe.bind(store.auth),
        async writeKeys(i: string, w: Parameters<typeof store.auth.writeKeys>[1]) {
          await gate;
          return store.auth.writeKeys(i, w);
        },
      };
      const { state } = await loadAuthState(store.auth, id, () => 1);
      await state.keys.set({ session: { s1: Buffer.from('v1'), s2: Buffer.from('gone soon') } });
      const { state: racing } = await loadAuthState(slow, id, () => 1);
      const writing = racing.keys.set({ session: { s1: Buffer.from('v2'), s2: null } });
      const during = await racing.keys.get('session', ['s1', 's2']);
      assert.deepEqual(Buffer.from(during.s1!), Buffer.from('v2'), 'the value being written, not the one the store still holds');
      assert.equal(during.s2, undefined, 'a deletion being written reads as absent');
      release();
      await writing;
      const after = await racing.keys.get('session', ['s1', 's2']);
      assert.deepEqual(Buffer.from(after.s1!), Buffer.from('v2'), 'and from the store once committed');
      assert.equal(after.s2, undefined, 'the deletion is committed');
    });
  });
}
