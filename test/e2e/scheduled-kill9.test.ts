// Scheduled sends with the real gateway process and the real Baileys engine against simnet: a
// message with `scheduledAt` reaches its contact within 1 s of its time, never before; it holds up
// no unscheduled message behind it; a cancelled one never leaves; and the schedule survives a
// kill -9 and restart (the times are wall-clock, so the time scale, which only shortens pacing
// gaps and backoffs here, cannot flatter the 1 s bound).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { startSimnet, SimnetClient, SimnetError, type RunningSimnet } from '../../simnet/src/index.js';
import { spawnGateway, type GatewayProcess } from '../helpers/process-gateway.js';

const TIME_SCALE = 0.2;
const OWNER = '5511970000051';
const ALICE = '5511980000051';
const BOB = '5511980000052';
/** How late a scheduled message may arrive (wall-clock ms after its time). */
const BOUND_MS = 1_000;

test('scheduledAt: leaves within 1 s of its time, across a kill -9 and restart; cancelled ones never', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'zapgate-scheduled-'));
  const token = randomBytes(20).toString('hex');
  const agent = new Agent({ connections: 4 });
  let sim: RunningSimnet | undefined;
  let gw: GatewayProcess | undefined;
  try {
    sim = await startSimnet({ timeScale: TIME_SCALE });
    const admin = new SimnetClient(sim.adminUrl);
    const env = {
      ZAPGATE_CLIENT_TOKEN: token,
      ZAPGATE_RATE_LIMIT: '0',
      ZAPGATE_WA_URL: sim.wsUrl,
      ZAPGATE_WA_ROOT_KEY: sim.rootPublicKey,
      ZAPGATE_TIME_SCALE: String(TIME_SCALE),
    };
    gw = await spawnGateway({ dataDir, env });
    const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> => {
      const res = await request(gw!.url + path, {
        method: method as 'GET',
        headers: { 'client-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        dispatcher: agent,
      });
      const text = await res.body.text();
      return { status: res.statusCode, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    };
    const created = await call('POST', '/instances', { name: 'sched' });
    const prefix = `/instances/${String(created.json.instanceId)}/token/${String(created.json.instanceToken)}`;
    const waitConnected = async (): Promise<void> => {
      const deadline = Date.now() + 60_000;
      while ((await call('GET', `${prefix}/status`)).json.status !== 'connected') {
        if (Date.now() > deadline) throw new Error('the instance never connected');
        await sleep(50);
      }
    };
    for (let attempt = 1; ; attempt++) {
      const qr = await call('GET', `${prefix}/qr-code`);
      try {
        await admin.scanQr(OWNER, String(qr.json.value));
        break;
      } catch (err) {
        if (!(err instanceof SimnetError && err.status === 410) || attempt >= 5) throw err;
      }
    }
    await waitConnected();

    const send = async (phone: string, message: string, scheduledAt?: number | string): Promise<string> => {
      const r = await call('POST', `${prefix}/send-text`, { phone, message, ...(scheduledAt === undefined ? {} : { scheduledAt }) });
      assert.equal(r.status, 200, JSON.stringify(r.json));
      return String(r.json.messageId);
    };
    /**
     * Waits for the message on the contact's phone; fails if the network read it before `at` or
     * later than BOUND_MS after. The network's own clock (`atMs`, same machine) times it, so a
     * test process slow to poll cannot make a punctual send look late.
     */
    const arrival = async (phone: string, id: string, at: number): Promise<number> => {
      const got = await admin.waitForReceived(phone, (m) => m.id === id, Math.max(0, at - Date.now()) + BOUND_MS + 10_000);
      assert.ok(got.atMs >= at, `${id} arrived ${at - got.atMs} ms before its time`);
      assert.ok(got.atMs - at <= BOUND_MS, `${id} arrived ${got.atMs - at} ms after its time`);
      return got.atMs - at;
    };

    const t0 = Date.now();
    const early = { at: t0 + 6_000, id: '' };
    early.id = await send(ALICE, 'scheduled before the crash', new Date(early.at).toISOString());
    const afterCrash = [
      { at: t0 + 30_000, id: '', to: BOB },
      { at: t0 + 31_000, id: '', to: ALICE },
    ];
    for (const m of afterCrash) m.id = await send(m.to, `scheduled after the crash ${m.at - t0}`, m.at);
    const cancelled = await call('POST', `${prefix}/send-text`, { phone: BOB, message: 'cancelled', scheduledAt: t0 + 8_000 });
    assert.equal((await call('DELETE', `${prefix}/queue/${String(cancelled.json.zaapId)}`)).status, 200);
    // Queued behind three scheduled messages, an ordinary message goes at once.
    const now = await send(BOB, 'right away');
    await admin.waitForReceived(BOB, (m) => m.id === now, 5_000);
    assert.ok(Date.now() < early.at, 'the unscheduled message did not wait for the scheduled ones');

    const listed = (await call('GET', `${prefix}/queue`)).json.messages as { messageId: string; scheduledAt: number | null }[];
    // (The unscheduled one may still be listed for a moment: simnet has it before the gateway settles it.)
    assert.deepEqual(listed.filter((m) => m.messageId !== now).map((m) => [m.messageId, m.scheduledAt]), [[early.id, early.at], ...afterCrash.map((m) => [m.id, m.at])]);

    const lateEarly = await arrival(ALICE, early.id, early.at);
    // Killed once it is settled: a message in flight at a crash is sent again (same id), by design.
    const settledBy = Date.now() + 10_000;
    while (((await call('GET', `${prefix}/queue`)).json.messages as { messageId: string }[]).some((m) => m.messageId === early.id)) {
      if (Date.now() > settledBy) assert.fail('the early message was never settled');
      await sleep(20);
    }
    await gw.kill9();
    gw = await spawnGateway({ dataDir, env, port: gw.port });
    await waitConnected();
    assert.ok(Date.now() < afterCrash[0]!.at - 2_000, 'the restart took too long for this test to mean anything');
    const late = await Promise.all(afterCrash.map((m) => arrival(m.to, m.id, m.at)));

    // Exactly once each; the cancelled one never.
    await sleep(500);
    const all = [...(await admin.received(ALICE)), ...(await admin.received(BOB))];
    for (const id of [early.id, ...afterCrash.map((m) => m.id)]) assert.equal(all.filter((m) => m.id === id).length, 1, `${id} once`);
    assert.ok(!all.some((m) => m.text === 'cancelled'), 'the cancelled message never left');
    assert.equal((await call('GET', `${prefix}/queue/count`)).json.count, 0);
    t.diagnostic(`lateness after its time: ${lateEarly} ms before the crash, ${late.join(', ')} ms after the restart`);
  } catch (err) {
    if (gw) t.diagnostic(`log (warn and up): ${gw.stdout().slice(-3000)}\nstderr: ${gw.stderr().slice(-3000)}`);
    throw err;
  } finally {
    await agent.close();
    await gw?.kill9();
    await sim?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
