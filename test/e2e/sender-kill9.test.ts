// kill -9 of the gateway process while its sender is mid-queue, with the real Baileys engine against
// simnet: after a restart every accepted message reaches its contact; the only duplicates are
// messages that were in flight at the crash, and they carry the identical messageId (simnet counts
// deliveries per recipient and messageId). Nothing went to the network before it was marked in flight.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { Agent, request } from 'undici';
import { startSimnet, SimnetClient, SimnetError, type RunningSimnet } from '../../simnet/src/index.js';
import { spawnGateway, type GatewayProcess } from '../helpers/process-gateway.js';
import { settle, until } from '../helpers/wait.js';

// Pacing is off, so the scale only shortens QR lifetimes and backoffs; 0.2 keeps pairing safe on a loaded machine.
const TIME_SCALE = 0.2;
const OWNERS = ['5511970000001', '5511970000002'];
const CONTACTS = ['5511980000001', '5511980000002', '5511980000003', '5511980000004'];
const PER_INSTANCE = 120;

interface Accepted {
  zaapId: string;
  messageId: string;
  to: string;
  text: string;
}

interface Inst {
  id: string;
  prefix: string;
}

test('kill -9 mid-queue: every accepted message arrives, duplicates only of in-flight ones with the same id', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'zapgate-sender-kill9-'));
  const token = randomBytes(20).toString('hex');
  const agent = new Agent({ connections: 8, keepAliveTimeout: 2_000 });
  let sim: RunningSimnet | undefined;
  let gw: GatewayProcess | undefined;
  try {
    sim = await startSimnet({ timeScale: TIME_SCALE });
    const admin = new SimnetClient(sim.adminUrl);
    const env = {
      ZAPGATE_CLIENT_TOKEN: token,
      ZAPGATE_RATE_LIMIT: '0',
      ZAPGATE_QUEUE_MAX_DISCONNECTED: '0',
      ZAPGATE_WA_URL: sim.wsUrl,
      ZAPGATE_WA_ROOT_KEY: sim.rootPublicKey,
      ZAPGATE_TIME_SCALE: String(TIME_SCALE), ZAPGATE_TIME_ORIGIN: String(sim.timeOrigin),
      // Back-to-back sends: the process is almost always inside a send when it dies.
      ZAPGATE_PACING: 'off',
    };
    gw = await spawnGateway({ dataDir, env });
    const url = gw.url;

    async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
      const res = await request(url + path, {
        method: method as 'GET',
        headers: { 'client-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        dispatcher: agent,
        headersTimeout: 30_000,
        bodyTimeout: 30_000,
      });
      const text = await res.body.text();
      return { status: res.statusCode, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    }

    async function waitConnected(inst: Inst): Promise<void> {
      await until(`instance ${inst.id} to connect`, async () => (await call('GET', `${inst.prefix}/status`)).json, (s) => s.status === 'connected');
    }

    // Pair one instance per owner number by scanning its QR with the owner's simnet phone.
    const instances: Inst[] = [];
    for (const owner of OWNERS) {
      const created = await call('POST', '/instances', { name: owner });
      assert.equal(created.status, 201);
      const inst = { id: String(created.json.instanceId), prefix: `/instances/${created.json.instanceId}/token/${created.json.instanceToken}` };
      // On a loaded machine the QR may rotate between reading and scanning it: read the next one.
      for (let attempt = 1; ; attempt++) {
        const qr = await call('GET', `${inst.prefix}/qr-code`);
        assert.equal(qr.status, 200, JSON.stringify(qr.json));
        try {
          await admin.scanQr(owner, String(qr.json.value));
          break;
        } catch (err) {
          if (!(err instanceof SimnetError && err.status === 410) || attempt >= 5) throw err;
        }
      }
      await waitConnected(inst);
      instances.push(inst);
    }

    // Accept the whole queue first, then let the sender work through it.
    const accepted: Accepted[] = [];
    await Promise.all(
      instances.map(async (inst, i) => {
        for (let n = 0; n < PER_INSTANCE; n++) {
          const to = CONTACTS[n % CONTACTS.length] as string;
          const text = `i${i} n${n}`;
          const r = await call('POST', `${inst.prefix}/send-text`, { phone: to, message: text });
          assert.equal(r.status, 200, JSON.stringify(r.json));
          accepted.push({ zaapId: String(r.json.zaapId), messageId: String(r.json.messageId), to, text });
        }
      }),
    );
    const total = accepted.length;

    // Kill once part of the queue is out, whatever it is doing at that moment.
    const killAt = Math.floor(total * 0.3);
    await until(`${killAt} of ${total} delivered before the kill`, async () => Object.keys((await admin.counters()).deliveries).length, (n) => n >= killAt, { pollMs: 5 });
    await gw.kill9();

    // What the dead process had committed, and what the network had received by then: read once
    // simnet has seen the dead process's sockets close (it has read what they carried by then).
    await until('simnet to see the killed gateway\'s sockets close', () => admin.stats(), (s) => s.connections === 0);
    const db = new Database(join(dataDir, 'zapgate.db'), { readonly: true, fileMustExist: true });
    const states = new Map<string, string>();
    try {
      const rows = db.prepare('select message_id, state from messages').all() as { message_id: string; state: string }[];
      for (const r of rows) states.set(r.message_id, r.state);
    } finally {
      db.close();
    }
    const atCrash = await admin.counters();
    const deliveredAtCrash = new Set(Object.keys(atCrash.deliveries).map((k) => k.split(':')[1] as string));
    const inFlightAtCrash = new Set([...states].filter(([, s]) => s === 'in_flight').map(([id]) => id));
    for (const a of accepted) assert.ok(states.has(a.messageId), `accepted ${a.messageId} is on disk`);
    // Committed as in flight before the engine saw it: nothing still "queued" had reached anyone.
    const leaked = [...deliveredAtCrash].filter((id) => states.get(id) === 'queued');
    assert.deepEqual(leaked, [], 'messages reached the network while still queued');
    const remaining = [...states.values()].filter((s) => s !== 'sent').length;
    assert.ok(remaining > 0, 'the kill came after the queue was done');

    // Restart on the same data directory: the engine restores the sessions and the sender resumes.
    gw = await spawnGateway({ dataDir, env, port: gw.port });
    const want = new Set(accepted.map((a) => `${a.to}:${a.messageId}`));
    const missing = (c: Awaited<ReturnType<typeof admin.counters>>): string[] => [...want].filter((k) => !c.deliveries[k]);
    const counters = await settle(() => admin.counters(), (c) => missing(c).length === 0, { timeoutMs: 180_000 });
    const lost = missing(counters);
    assert.deepEqual(lost.slice(0, 3), [], `${lost.length} of ${total} accepted messages never arrived`);

    // Each contact decrypted exactly the texts it was sent, under the ids the API returned.
    for (const contact of CONTACTS) {
      const got = new Map((await admin.received(contact)).map((m) => [m.id, m.text]));
      for (const a of accepted.filter((x) => x.to === contact)) assert.equal(got.get(a.messageId), a.text, `${contact} got ${a.messageId}`);
    }
    // Duplicates: only messages in flight at the crash, delivered again under the same id.
    const duplicated = Object.keys(counters.duplicates).map((k) => k.split(':')[1] as string);
    for (const id of duplicated) assert.ok(inFlightAtCrash.has(id), `${id} was delivered twice but had not been in flight`);
    // The queue empties once the last sends are settled: simnet counts a delivery before the gateway
    // has its ack and has committed the DeliveryCallback and the sent state, so each instance's last
    // message may still be counted a moment after it arrived (asserted at once, this raced).
    for (const inst of instances) {
      await until(`instance ${inst.id}'s queue/count to reach 0 once every message arrived`, async () => (await call('GET', `${inst.prefix}/queue/count`)).json.count, (count) => count === 0);
    }
    // libsignal's session dumps hold private keys: none may reach the gateway's output.
    assert.doesNotMatch(gw.stdout() + gw.stderr(), /privKey|rootKey|SessionEntry/);
    t.diagnostic(
      `accepted ${total}; at the kill: ${deliveredAtCrash.size} delivered, ${inFlightAtCrash.size} in flight, ${remaining} not sent; duplicates after restart: ${duplicated.length}`,
    );
  } catch (err) {
    if (gw) t.diagnostic(`gateway exited ${String(gw.child.exitCode ?? gw.child.signalCode)}; stderr: ${gw.stderr().slice(-3000)}`);
    throw err;
  } finally {
    await agent.close();
    await gw?.kill9();
    await sim?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
