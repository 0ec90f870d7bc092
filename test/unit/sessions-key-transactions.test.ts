// Baileys' key-store transactions over the real addTransactionCapability: a send (keyed by the
// account) and a decryption (keyed by the contact) that overlap on one session record lose an
// update; one transaction at a time per socket keeps both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { addTransactionCapability, type SignalKeyStore } from 'baileys';
import { pino } from 'pino';
import { oneKeyTransactionAtATime } from '../../src/sessions/link/key-transactions.js';
import { withScopedStorage } from '../../src/sessions/link/tx-storage.js';

function keysOver(data: Map<string, Uint8Array>) {
  const store: SignalKeyStore = {
    async get(type, ids) {
      const out: Record<string, never> = {};
      for (const id of ids) {
        const v = data.get(`${type}/${id}`);
        if (v) out[id] = v as never;
      }
      return out;
    },
    async set(set) {
      await sleep(2); // the scenario: a write takes a moment, so overlapping steps interleave
      for (const [type, byId] of Object.entries(set)) for (const [id, v] of Object.entries(byId ?? {})) data.set(`${type}/${id}`, v as Uint8Array);
    },
  };
  return withScopedStorage(() => addTransactionCapability(store, pino({ level: 'silent' }), { maxCommitRetries: 1, delayBetweenTriesMs: 1 })).result;
}

/** A ratchet step: read the counter, think a little, write it plus one, in a transaction keyed `key`. */
function step(keys: ReturnType<typeof keysOver>, key: string) {
  return keys.transaction(async () => {
    const got = await keys.get('session', ['contact.0']);
    const n = got['contact.0'] ? Number(Buffer.from(got['contact.0'] as Uint8Array).toString()) : 0;
    await sleep(5); // the scenario: the step thinks between its read and its write
    await keys.set({ session: { 'contact.0': Buffer.from(String(n + 1)) } });
  }, key);
}

const counter = (data: Map<string, Uint8Array>) => Number(Buffer.from(data.get('session/contact.0')!).toString());

test("without it, a send and a decryption that overlap lose one of the two steps (Baileys' own behaviour)", async () => {
  const data = new Map<string, Uint8Array>();
  const keys = keysOver(data);
  await Promise.all([step(keys, 'me@s.whatsapp.net'), step(keys, 'contact@s.whatsapp.net')]);
  assert.equal(counter(data), 1, 'two steps, one survives: the later commit wins');
});

test('one transaction at a time per socket keeps both steps, and nested transactions still join', async () => {
  const data = new Map<string, Uint8Array>();
  const keys = keysOver(data);
  oneKeyTransactionAtATime(keys);
  await Promise.all([step(keys, 'me@s.whatsapp.net'), step(keys, 'contact@s.whatsapp.net'), step(keys, 'other@s.whatsapp.net')]);
  assert.equal(counter(data), 3, 'every step is kept');
  // A transaction inside a transaction (Baileys' encryptMessage inside relayMessage) joins it.
  await keys.transaction(async () => {
    await step(keys, 'contact@s.whatsapp.net');
    await step(keys, 'me@s.whatsapp.net');
  }, 'me@s.whatsapp.net');
  assert.equal(counter(data), 5, 'nested steps run in the outer transaction, without waiting for it');
});
