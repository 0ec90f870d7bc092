// Accepted means on disk: stream send-text requests at the real gateway process, kill -9 it
// mid-stream, restart it on the same data directory, and find every acknowledged message stored
// with the zaapId and messageId it was acknowledged with (queued, or sent if a sender ran).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomInt } from 'node:crypto';
import Database from 'better-sqlite3';
import { Agent, request } from 'undici';
import { spawnGateway, type GatewayProcess } from '../helpers/process-gateway.js';
import { WA_MESSAGE_ID } from '../helpers/gateway.js';
import { WAIT_TIMEOUT_MS } from '../helpers/wait.js';

const MAX_REQUESTS = 3_000;
const WORKERS = 8;

interface Ack {
  zaapId: string;
  messageId: string;
}

test('kill -9 during a burst of sends loses no acknowledged message', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'zapgate-kill9-'));
  const token = randomBytes(20).toString('hex');
  const env = { ZAPGATE_CLIENT_TOKEN: token, ZAPGATE_RATE_LIMIT: '0', ZAPGATE_QUEUE_MAX_DISCONNECTED: '0' };
  const agent = new Agent({ connections: WORKERS, keepAliveTimeout: 2_000 });
  let gw: GatewayProcess | undefined;
  try {
    gw = await spawnGateway({ dataDir, env });
    const created = await request(`${gw.url}/instances`, {
      method: 'POST',
      headers: { 'client-token': token, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'kill9' }),
      dispatcher: agent,
    });
    assert.equal(created.statusCode, 201);
    const { instanceId, instanceToken } = (await created.body.json()) as { instanceId: string; instanceToken: string };
    const sendUrl = `${gw.url}/instances/${instanceId}/token/${instanceToken}/send-text`;

    // Kill somewhere in the middle of the stream, not at a round number.
    const killAfter = randomInt(300, 1_500);
    const acks: Ack[] = [];
    let issued = 0;
    let inFlightAtKill = 0;
    let inFlight = 0;
    let transportErrors = 0;
    let killed = false;
    const victim = gw;

    async function worker(w: number): Promise<void> {
      while (issued < MAX_REQUESTS && !killed) {
        const n = issued++;
        inFlight++;
        try {
          const res = await request(sendUrl, {
            method: 'POST',
            headers: { 'client-token': token, 'content-type': 'application/json' },
            body: JSON.stringify({ phone: '5511999990000', message: `w${w} n${n}` }),
            dispatcher: agent,
            // A hang guard: a request slowed by a loaded machine is no failure.
            headersTimeout: WAIT_TIMEOUT_MS,
            bodyTimeout: WAIT_TIMEOUT_MS,
          });
          const body = (await res.body.json()) as Partial<Ack>;
          if (res.statusCode === 200 && body.zaapId && body.messageId) {
            acks.push({ zaapId: body.zaapId, messageId: body.messageId });
          } else {
            assert.fail(`unexpected ${res.statusCode} ${JSON.stringify(body)}`);
          }
        } catch (err) {
          // Only requests cut off by the kill may fail, and they were never acknowledged.
          if (!killed) throw err;
          transportErrors++;
        } finally {
          inFlight--;
        }
        if (!killed && acks.length >= killAfter) {
          killed = true;
          inFlightAtKill = inFlight;
          await victim.kill9();
        }
      }
    }
    await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
    assert.ok(killed, `the stream ended after ${issued} requests before the kill`);
    assert.equal(await victim.exited, 'SIGKILL');
    assert.ok(inFlightAtKill > 0, 'requests were in flight when the process died');
    assert.ok(acks.length >= killAfter);
    for (const a of acks) assert.match(a.messageId, WA_MESSAGE_ID);

    // Restart on the same data directory.
    gw = await spawnGateway({ dataDir, env });
    const db = new Database(join(dataDir, 'zapgate.db'), { readonly: true, fileMustExist: true });
    let stored: Map<string, { message_id: string; state: string; instance_id: string }>;
    try {
      const rows = db.prepare('select zaap_id, message_id, state, instance_id from messages').all() as {
        zaap_id: string;
        message_id: string;
        state: string;
        instance_id: string;
      }[];
      stored = new Map(rows.map((r) => [r.zaap_id, r]));
    } finally {
      db.close();
    }
    const missing = acks.filter((a) => !stored.has(a.zaapId));
    assert.deepEqual(missing.slice(0, 5), [], `${missing.length} of ${acks.length} acknowledged messages lost`);
    for (const a of acks) {
      const row = stored.get(a.zaapId);
      assert.equal(row?.message_id, a.messageId, `zaapId ${a.zaapId} kept its messageId`);
      assert.equal(row?.instance_id, instanceId);
      assert.ok(['queued', 'in_flight', 'sent'].includes(row?.state ?? ''), `state ${row?.state}`);
    }
    // The restarted gateway serves them too: the queue listing (when nothing sent them) agrees.
    const count = await request(`${gw.url}/instances/${instanceId}/token/${instanceToken}/queue/count`, {
      headers: { 'client-token': token },
      dispatcher: agent,
    });
    assert.equal(count.statusCode, 200);
    const waiting = ((await count.body.json()) as { count: number }).count;
    const unsent = [...stored.values()].filter((r) => r.state !== 'sent').length;
    assert.equal(waiting, unsent);
    // Reported for the record: how much was cut off by the kill.
    t.diagnostic(`acked ${acks.length}, issued ${issued}, cut off ${transportErrors}, stored ${stored.size}`);
  } finally {
    await agent.close();
    await gw?.kill9();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
