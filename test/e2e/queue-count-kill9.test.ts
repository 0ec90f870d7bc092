// Issue "Messages at line rate": an outside run left already-delivered messages counted in Z-API's
// GET …/queue/count after repeated kill -9 under sends. Here the real gateway process (real Baileys,
// pacing off so it is nearly always inside a send) streams texts to a simnet contact through the API
// and is killed with kill -9 three times mid-stream, restarting on the same data each time (the
// stream ends at the last kill, so what follows is the backlog alone). Once every accepted send
// (HTTP 200) has reached the contact, the queue must empty: queue/count 0, the listing empty, and
// none of them given up (a row in flight at a kill is sent again after the
// restart, same id, and must then be marked sent: neither counted forever nor failed).
//
// It passed from the start (4 runs: 121-136 accepted, 1-3 of them in flight and already delivered at
// a kill, so resent; queue/count 0 within 0.2 s of the last arrival). It fails as it should when
// the sender leaves in-flight rows behind (nextHead taking `queued` rows only): "queue/count stays 3
// after every accepted message arrived", the three rows in flight, delivered, at the three kills.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { startProcessHarness, type ProcessHarness } from '../helpers/process-harness.js';
import { settle, sleep, until } from '../helpers/wait.js';

const OWNER = '5511999997301';
const CONTACT = '5511988887301';
const KILLS = 3;

test('queue/count is 0 after repeated kill -9 under sends', async (t) => {
  const h: ProcessHarness = await startProcessHarness({ owner: OWNER, contacts: [CONTACT], env: { ZAPGATE_PACING: 'off' } });
  const started = Date.now();
  try {
    const accepted: { messageId: string; text: string }[] = [];
    let n = 0;
    let stop = false;
    // The API side: a steady stream of sends, each waiting for its answer. A request cut by a kill
    // is not counted as accepted (it may or may not have been committed; either is fine).
    const stream = (async () => {
      while (!stop) {
        const text = `q${n++}`;
        const r = await h.api('POST', `${h.prefix}/send-text`, { phone: CONTACT, message: text }).catch(() => null);
        if (r?.status === 200) accepted.push({ messageId: String(r.json.messageId), text });
        // The stream's own pace; while the gateway is down (no answer), a client's retry interval.
        await sleep(r ? randomInt(1, 8) : 50);
      }
    })();

    const killedWith: number[] = [];
    for (let kill = 1; kill <= KILLS; kill++) {
      // Kill once the sender is well into the stream, just after a delivery: the message that
      // reached the contact a moment ago is likely still in flight on disk.
      const target = (await h.admin.received(CONTACT)).length + randomInt(15, 30);
      await until(`${target} messages at the contact before kill ${kill}`, async () => (await h.admin.received(CONTACT)).length, (n) => n >= target, { pollMs: 10 });
      killedWith.push(accepted.length);
      await h.gateway().kill9();
      // The stream ends with the last kill: after it only the leftovers go out, the ones in flight
      // at the kill first, so nothing new can push a stuck row out of sight.
      if (kill === KILLS) stop = true;
      // The restart logs in once the network has let the dead process's socket go.
      await until('simnet to see the killed gateway\'s socket close', () => h.admin.user(OWNER), (u) => u.devices.every((d) => !d.online));
      await h.restart();
      await h.connected();
    }
    await stream;
    const total = accepted.length;

    // Every accepted message reaches the contact (decrypted, under the id the API returned).
    const want = new Map(accepted.map((a) => [a.messageId, a.text]));
    const got = await settle(
      async () => new Map((await h.admin.received(CONTACT)).filter((m) => m.from === OWNER && !m.error).map((m) => [m.id, m.text])),
      (g) => [...want.keys()].every((id) => g.has(id)),
      { timeoutMs: 120_000, pollMs: 100 },
    );
    const missing = [...want.keys()].filter((id) => !got.has(id));
    assert.deepEqual(missing.slice(0, 3), [], `${missing.length} of ${total} accepted messages never reached the contact`);
    for (const [id, text] of want) assert.equal(got.get(id), text, `the contact got ${id} as sent`);
    const arrivedAt = Date.now();

    // Then the queue empties (the last sends are settled just after their ack). How long that
    // takes is printed; a row counted forever fails at the wait's (generous) timeout.
    const count = await settle(
      async () => {
        const r = await h.api('GET', `${h.prefix}/queue/count`);
        assert.equal(r.status, 200, JSON.stringify(r.json));
        return Number(r.json.count);
      },
      (c) => c === 0,
      { pollMs: 100 },
    );
    const waiting = await h.api('GET', `${h.prefix}/queue?pageSize=1000`);
    const failed = await h.api('GET', `${h.prefix}/queue?pageSize=1000&status=failed`);
    const rows = (x: { json: Record<string, unknown> }) =>
      (x.json.messages as Record<string, unknown>[]).map((m) => ({
        messageId: m.messageId,
        state: m.state,
        attempts: m.attempts,
        error: m.error,
        delivered: got.has(String(m.messageId)),
      }));
    const dup = (await h.admin.counters()).duplicates;
    t.diagnostic(
      `accepted ${total} sends over ${KILLS} kills (at ${killedWith.join(', ')} accepted); all arrived ${((arrivedAt - started) / 1000).toFixed(1)} s after the start; ` +
        `queue/count ${count} ${((Date.now() - arrivedAt) / 1000).toFixed(1)} s later; resent after a kill (simnet duplicates): ${Object.keys(dup).length}`,
    );
    assert.equal(count, 0, `queue/count stays ${count} after every accepted message arrived: ${JSON.stringify(rows(waiting))}`);
    assert.deepEqual(rows(waiting), [], 'the queue listing is empty');
    assert.equal(waiting.json.hasMore, false);
    assert.deepEqual(rows(failed), [], 'no delivered message was given up as failed');
  } catch (err) {
    t.diagnostic(`gateway stderr: ${h.gateway().stderr().slice(-3000)}`);
    throw err;
  } finally {
    await h.close();
  }
});
