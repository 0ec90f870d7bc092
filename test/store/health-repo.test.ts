// Number health's reads on both dialects (docs/contract.md §12): an instance's messages of the
// window by outcome (older ones and other instances' left out), and its disconnections by reason
// (a new instance's first status and the retries of one outage not counted).
import assert from 'node:assert/strict';
import { messageRow, seedInstance, storeTest } from '../helpers/store-fixtures.js';

const T = 1_800_000_000_000;

storeTest('health: messages of the window by outcome, disconnections by status and reason', async (store) => {
  const { instanceId: a } = await seedInstance(store);
  const { instanceId: b } = await seedInstance(store);
  const add = (instanceId: string, at: number, o: Parameters<typeof messageRow>[1]) => store.messages.enqueue({ row: messageRow(instanceId, { created_at: at, updated_at: at, ...o }), cap: 0 });
  await add(a, T, { state: 'sent', wa_status: 'READ' });
  await add(a, T + 1, { state: 'sent', wa_status: 'READ' });
  await add(a, T + 2, { state: 'sent', wa_status: 'RECEIVED' });
  const refused = messageRow(a, { created_at: T + 3, updated_at: T + 3, state: 'failed', error: 'the network refused the message (error 463)' });
  await store.messages.enqueue({ row: refused, cap: 0 });
  // The code is written when a send fails (markFailed), not at enqueue.
  await store.database.db.updateTable('messages').set({ error_code: 'REFUSED' }).where('zaap_id', '=', refused.zaap_id).execute();
  await add(a, T + 4, { state: 'queued' });
  await add(a, T - 10, { state: 'sent', wa_status: 'READ' }); // before the window
  await add(b, T, { state: 'sent', wa_status: 'READ' }); // another instance
  const tally = (await store.health.messages(a, T)).sort((x, y) => `${x.state}${x.waStatus}`.localeCompare(`${y.state}${y.waStatus}`));
  assert.deepEqual(tally, [
    { state: 'failed', waStatus: null, errorCode: 'REFUSED', error: 'the network refused the message (error 463)', n: 1 },
    { state: 'sent', waStatus: 'READ', errorCode: null, error: null, n: 2 },
    { state: 'sent', waStatus: 'RECEIVED', errorCode: null, error: null, n: 1 },
  ]);

  // A new instance's first status: no lost connection.
  store.instances.setStatus(a, { status: 'disconnected', reason: 'created', at: T + 5 });
  store.instances.setStatus(a, { status: 'disconnected', reason: 'connection lost', at: T + 10 });
  store.instances.setStatus(a, { status: 'connected', reason: 'reconnected', at: T + 11 });
  store.instances.setStatus(a, { status: 'disconnected', reason: 'connection lost', at: T + 20 });
  store.instances.setStatus(a, { status: 'logged_out', reason: 'logged out from the phone', at: T + 30 });
  store.instances.setStatus(a, { status: 'disconnected', reason: 'connection lost', at: T - 5 }); // before the window
  // A link that drops and comes back by itself: `connecting` all along, one loss however many retries.
  store.instances.setStatus(a, { status: 'connected', reason: 'paired again', at: T + 40 });
  store.instances.setStatus(a, { status: 'connecting', reason: 'connection lost: Connection Closed (428); reconnecting in 1 s (attempt 1)', at: T + 41 });
  store.instances.setStatus(a, { status: 'connecting', reason: 'reconnecting (attempt 1)', at: T + 42 });
  store.instances.setStatus(a, { status: 'connecting', reason: 'connection lost: Connection Closed (428); reconnecting in 2 s (attempt 2)', at: T + 43 });
  store.instances.setStatus(a, { status: 'connected', reason: 'connected to the network', at: T + 45 });
  // Not a loss: the network's restart right after pairing.
  store.instances.setStatus(a, { status: 'connecting', reason: 'restart required by the network', at: T + 46 });
  await store.instances.drain();
  assert.deepEqual(await store.health.disconnections(a, T), [
    { status: 'disconnected', reason: 'connection lost: Connection Closed (428)', count: 1, last: T + 41 },
    { status: 'logged_out', reason: 'logged out from the phone', count: 1, last: T + 30 },
    { status: 'disconnected', reason: 'connection lost', count: 2, last: T + 20 },
  ]);
  assert.deepEqual(await store.health.disconnections(b, T), []);
  assert.deepEqual((await store.health.instanceIds()).sort(), [a, b].sort());
});
