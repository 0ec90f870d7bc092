// Send-side write-ahead over Baileys' real key-store transactions (addTransactionCapability, made
// with the shared transaction storage as the engine makes it): what an encryption wrote is stored
// before the encrypting call returns to the code that will send the message, encryptions that run
// together share a write, and the transaction's commit writes only what changed since.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addTransactionCapability, type SignalKeyStoreWithTransaction } from 'baileys';
import { pino } from 'pino';
import { loadAuthState, type AuthStorage } from '../../src/sessions/link/auth-state.js';
import { installSendWriteAhead, SharedWrite, type EncryptingRepository } from '../../src/sessions/link/send-write-ahead.js';
import { withScopedStorage, type ScopedStorage } from '../../src/sessions/link/tx-storage.js';

type Write = { type: string; id: string; value: string | null };

function memoryStorage() {
  const rows = new Map<string, string>();
  const calls: Write[][] = [];
  const storage: AuthStorage = {
    readCreds: async () => undefined,
    writeCreds: async () => undefined,
    async readKeys(_i, type, ids) {
      const out = new Map<string, string>();
      for (const id of ids) {
        const v = rows.get(`${type}/${id}`);
        if (v !== undefined) out.set(id, v);
      }
      return out;
    },
    async writeKeys(_i, writes) {
      calls.push([...writes]);
      await new Promise((r) => setTimeout(r, 2)); // the scenario: a write takes a moment, as a disk's does
      for (const w of writes) {
        if (w.value === null) rows.delete(`${w.type}/${w.id}`);
        else rows.set(`${w.type}/${w.id}`, w.value);
      }
    },
    wipe: async () => undefined,
  };
  return { storage, rows, calls };
}

async function engine(withWriteAhead: boolean) {
  const mem = memoryStorage();
  const auth = await loadAuthState(mem.storage, 'i1', () => 1);
  const logger = pino({ level: 'silent' });
  const { result: keys, storages } = withScopedStorage(() =>
    addTransactionCapability(auth.state.keys, logger, { maxCommitRetries: 1, delayBetweenTriesMs: 1 }),
  );
  // Stand-ins for libsignal's ciphers: each encryption advances a stored ratchet counter.
  const step = async (kind: string, id: string) =>
    keys.transaction(async () => {
      const got = await keys.get('session', [id]);
      const n = got[id] ? Number(Buffer.from(got[id] as Uint8Array).toString()) + 1 : 1;
      await keys.set({ session: { [id]: Buffer.from(String(n)) } });
      return { kind, n };
    }, id);
  const repo = {
    encryptMessage: ({ jid }: { jid: string }) => step('msg', jid),
    encryptGroupMessage: ({ group }: { group: string }) => step('group', group),
    getSenderKeyDistributionMessage: ({ group }: { group: string }) => step('skdm', group),
  };
  if (withWriteAhead) installSendWriteAhead(repo as unknown as EncryptingRepository, storages[0] as ScopedStorage<unknown>, (m) => auth.writeAhead(m));
  return { mem, keys: keys as SignalKeyStoreWithTransaction, repo };
}

const stored = (rows: Map<string, string>, id: string) => {
  const v = rows.get(`session/${id}`);
  return v === undefined ? undefined : Buffer.from((JSON.parse(v) as { data: string }).data, 'base64').toString();
};

test('without write-ahead, Baileys has not stored the ratchet step when the message is written', async () => {
  const { mem, keys, repo } = await engine(false);
  let atSend: string | undefined = 'unset';
  await keys.transaction(async () => {
    await repo.encryptMessage({ jid: 'a.1' });
    atSend = stored(mem.rows, 'a.1');
  }, 'me');
  assert.equal(atSend, undefined, 'the step is only in the transaction when the frame would go');
  assert.equal(stored(mem.rows, 'a.1'), '1', 'the commit stores it afterwards');
});

test('with write-ahead, each step is stored before the encrypting call returns, and the commit does not write it again', async () => {
  const { mem, keys, repo } = await engine(true);
  const atSend: (string | undefined)[] = [];
  await keys.transaction(async () => {
    await Promise.all([repo.encryptMessage({ jid: 'a.1' }), repo.encryptMessage({ jid: 'a.2' }), repo.encryptMessage({ jid: 'b.0' })]);
    atSend.push(stored(mem.rows, 'a.1'), stored(mem.rows, 'a.2'), stored(mem.rows, 'b.0'));
    await repo.encryptGroupMessage({ group: 'g@g.us' });
    atSend.push(stored(mem.rows, 'g@g.us'));
  }, 'me');
  assert.deepEqual(atSend, ['1', '1', '1', '1'], 'every step was on disk before the send');
  const writesBefore = mem.calls.length;
  assert.ok(writesBefore <= 3, `three encryptions together and one after share writes (${writesBefore} writes)`);
  const rows = mem.calls.flat().filter((w) => w.type === 'session').length;
  assert.equal(rows, 4, 'no session row was written twice (the commit skipped what was written ahead)');
});

test('what the transaction writes after the last encryption is still committed', async () => {
  const { mem, keys, repo } = await engine(true);
  await keys.transaction(async () => {
    await repo.encryptMessage({ jid: 'a.1' });
    await keys.set({ tctoken: { 'a@s.whatsapp.net': { token: Buffer.from('t'), timestamp: '1' } } });
    await keys.set({ session: { 'a.1': Buffer.from('7') } });
  }, 'me');
  assert.ok(mem.rows.has('tctoken/a@s.whatsapp.net'), 'a later write of the transaction is committed');
  assert.equal(stored(mem.rows, 'a.1'), '7', 'a value changed after its write-ahead is committed again');
});

test('outside a transaction the encrypting calls write nothing extra', async () => {
  const { mem, repo } = await engine(true);
  await repo.encryptMessage({ jid: 'a.1' });
  assert.equal(stored(mem.rows, 'a.1'), '1', 'its own transaction commits it');
  assert.equal(mem.calls.length, 1, 'one write: the commit');
});

test('SharedWrite: one write at a time; requests made during a write share the next one', async () => {
  let running = 0;
  let most = 0;
  let writes = 0;
  const shared = new SharedWrite(async () => {
    running++;
    most = Math.max(most, running);
    writes++;
    await new Promise((r) => setTimeout(r, 5)); // the scenario: a write in progress while requests arrive
    running--;
  });
  await Promise.all([shared.request(), shared.request(), shared.request(), shared.request()]);
  assert.equal(most, 1, 'never two writes at once');
  assert.equal(writes, 2, 'the first request starts a write; the three made meanwhile share one more');
  await shared.request();
  assert.equal(writes, 3, 'a request after everything settled writes again');
});

test('SharedWrite: a failed write fails its callers, and the next request writes again', async () => {
  let n = 0;
  const shared = new SharedWrite(async () => {
    n++;
    if (n === 1) throw new Error('disk');
  });
  const first = shared.request();
  const second = shared.request();
  await assert.rejects(first, /disk/);
  await second;
  assert.equal(n, 2, 'the queued request ran after the failure');
});
