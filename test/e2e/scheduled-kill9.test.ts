// Scheduled sends with the real gateway process and the real Baileys engine against simnet: a
// message with `scheduledAt` reaches its contact, never before its time; it holds up no unscheduled
// message behind it; a cancelled one never leaves; and the schedule survives a kill -9 and restart.
// How late each arrives after its time is a service level, not a correctness bound (a loaded
// machine makes everything late): it is printed here and measured by bench/service-levels.ts. The
// times are wall-clock, so the time scale (which only shortens pacing gaps and backoffs here)
// flatters neither.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'undici';
import { startSimnet, SimnetClient, SimnetError, type RunningSimnet } from '../../simnet/src/index.js';
import { spawnGateway, type GatewayProcess } from '../helpers/process-gateway.js';
import { until, WAIT_TIMEOUT_MS } from '../helpers/wait.js';

const TIME_SCALE = 0.2;
const OWNER = '5511970000051';
const ALICE = '5511980000051';
const BOB = '5511980000052';

test('scheduledAt: never leaves before its time, leaves after it across a kill -9 and restart; cancelled ones never', async (t) => {
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
      ZAPGATE_TIME_SCALE: String(TIME_SCALE), ZAPGATE_TIME_ORIGIN: String(sim.timeOrigin),
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
      await until('the instance to connect', async () => (await call('GET', `${prefix}/status`)).json, (s) => s.status === 'connected');
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
     * Waits for the message on the contact's phone; fails if the network read it before `at`, and
     * answers how late after `at` it came (printed: a service level, not asserted). The network's
     * own clock (`atMs`, same machine) times it, so a test process slow to poll changes nothing.
     */
    const protocolNow = (): number => sim!.clock.now();
    const arrival = async (phone: string, id: string, at: number): Promise<number> => {
      const got = await admin.waitForReceived(phone, (m) => m.id === id, Math.max(0, (at - protocolNow()) * TIME_SCALE) + WAIT_TIMEOUT_MS);
      assert.ok(got.atMs >= at, `${id} arrived ${at - got.atMs} ms before its time`);
      return got.atMs - at;
    };

    // Scheduled times are on the gateway's clock, a time-lapse from simnet's origin (src/clock.ts,
    // ZAPGATE_TIME_ORIGIN): read here through simnet's same clock. At this scale 50 s is 10 s real.
    const t0 = protocolNow();
    // Far enough ahead that a loaded machine still sends the unscheduled message, and restarts the
    // gateway, well before them (each checked below).
    const early = { at: t0 + 50_000, id: '' };
    early.id = await send(ALICE, 'scheduled before the crash', new Date(early.at).toISOString());
    const afterCrash = [
      { at: t0 + 200_000, id: '', to: BOB },
      { at: t0 + 205_000, id: '', to: ALICE },
    ];
    for (const m of afterCrash) m.id = await send(m.to, `scheduled after the crash ${m.at - t0}`, m.at);
    const cancelled = await call('POST', `${prefix}/send-text`, { phone: BOB, message: 'cancelled', scheduledAt: t0 + 60_000 });
    assert.equal((await call('DELETE', `${prefix}/queue/${String(cancelled.json.zaapId)}`)).status, 200);
    // Queued behind three scheduled messages, an ordinary message goes at once: it reaches its
    // contact before the first scheduled one is even due. Held behind it, it would come after
    // early.at, whatever the machine's load; a send takes a few hundred ms, and 10 s is far more.
    const now = await send(BOB, 'right away');
    const rightAway = await admin.waitForReceived(BOB, (m) => m.id === now, WAIT_TIMEOUT_MS);
    assert.ok(rightAway.atMs < early.at, `the unscheduled message did not wait for the scheduled ones (it arrived ${rightAway.atMs - early.at} ms after the first one's time)`);
    t.diagnostic(`the unscheduled message reached its contact ${rightAway.atMs - t0} ms after the first request`);

    const listed = (await call('GET', `${prefix}/queue`)).json.messages as { messageId: string; scheduledAt: number | null }[];
    // (The unscheduled one may still be listed for a moment: simnet has it before the gateway settles it.)
    assert.deepEqual(listed.filter((m) => m.messageId !== now).map((m) => [m.messageId, m.scheduledAt]), [[early.id, early.at], ...afterCrash.map((m) => [m.id, m.at])]);

    const lateEarly = await arrival(ALICE, early.id, early.at);
    // Killed once it is settled: a message in flight at a crash is sent again (same id), by design.
    await until(
      'the early message to be settled (off the queue)',
      async () => ((await call('GET', `${prefix}/queue`)).json.messages as { messageId: string }[]).map((m) => m.messageId),
      (ids) => !ids.includes(early.id),
      { pollMs: 20 },
    );
    await gw.kill9();
    gw = await spawnGateway({ dataDir, env, port: gw.port });
    await waitConnected();
    // A guard of the test's own meaning, not a bound on the gateway: the messages must still be
    // ahead when the restarted gateway takes over (some 30 s of room for a restart of a few seconds).
    assert.ok(protocolNow() < afterCrash[0]!.at - 10_000, `the restart took too long for this test to mean anything (back ${afterCrash[0]!.at - protocolNow()} ms before the next scheduled time)`);
    const late = await Promise.all(afterCrash.map((m) => arrival(m.to, m.id, m.at)));

    // Exactly once each; the cancelled one never. Read once the queue is empty: nothing is in
    // flight, so nothing more can reach a phone.
    await until('the queue to empty', async () => (await call('GET', `${prefix}/queue/count`)).json.count, (c) => c === 0);
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
