// Webhook deliveries/s to a local receiver, signed and durable (docs/design.md target: ≥ 15,000/s across URLs).
// The gateway runs in this process as `createGateway` builds it (SQLite WAL, synchronous=FULL): each
// event is emitted through Gateway.events one by one (as the engine does), committed with its
// delivery, POSTed with Standard Webhooks headers through the guarded keep-alive Agent, and its
// outcome committed. The receiver runs in a child process (its own core) and answers 200; a sample
// of what it got is verified with the `standardwebhooks` package. The clock is finished when every
// event has been received AND recorded as delivered in the database.
// Run: node --import tsx bench/webhooks.ts   (WEBHOOK_BENCH_EVENTS, default 20000; WEBHOOK_BENCH_TLS=1 for HTTPS)
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { Webhook } from 'standardwebhooks';
import { loadConfig } from '../src/config.js';
import type { GatewayEvent } from '../src/events/types.js';
import { createGateway, type Gateway } from '../src/main.js';
import { offlineSessions } from '../src/sessions/offline-sessions.js';
import { testPki } from '../test/helpers/webhook-harness.js';

const EVENTS = Math.min(Number(process.env.WEBHOOK_BENCH_EVENTS ?? 20_000), 200_000);
const TLS = process.env.WEBHOOK_BENCH_TLS === '1';
const SAMPLE_EVERY = 500;

interface Sample {
  headers: Record<string, string>;
  body: string;
}

// ---------------------------------------------------------------------------------------------
// Receiver (child process): counts POSTs, keeps a sample, reports when asked.

async function receiverMain(): Promise<void> {
  let count = 0;
  const samples: Sample[] = [];
  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      count++;
      if (count % SAMPLE_EVERY === 1) {
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
        samples.push({ headers, body: Buffer.concat(chunks).toString('utf8') });
      }
      res.writeHead(200, { 'content-length': '0' });
      res.end();
    });
  };
  const pki = process.env.BENCH_TLS === '1' ? testPki() : null;
  const server = pki ? https.createServer({ key: pki.key, cert: pki.cert }, onRequest) : http.createServer(onRequest);
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port, ca: pki?.ca }));
  process.on('message', (m: { report?: boolean }) => {
    if (m.report) process.send?.({ count, samples });
  });
  process.on('disconnect', () => process.exit(0));
}

// ---------------------------------------------------------------------------------------------
// Driver

function ask<T>(child: ChildProcess, message: object): Promise<T> {
  const reply = once(child, 'message') as Promise<[T]>;
  child.send(message);
  return reply.then(([m]) => m);
}

function event(n: number): GatewayEvent {
  return {
    type: 'ReceivedCallback',
    messageId: `3EB0${n.toString(16).toUpperCase().padStart(18, '0')}`,
    phone: '5511988887777',
    fromMe: false,
    momment: Date.now(),
    status: 'RECEIVED',
    chatName: 'Maria',
    senderName: 'Maria',
    participantPhone: null,
    isGroup: false,
    text: { message: `benchmark message number ${n}, about the size of a short chat line` },
  };
}

async function run(gateway: Gateway, receiver: ChildProcess, origin: string, lanes: number, events: number): Promise<void> {
  const account = await gateway.accounts.create(`bench-${lanes}`);
  const instances: { id: string; secret: string }[] = [];
  for (let i = 0; i < lanes; i++) {
    const inst = await gateway.instances.create(account.id, `bench-${i}`);
    await gateway.store.webhooks.set(inst.instanceId, ['received'], `${origin}/hook/${lanes}/${i}`, Date.now());
    instances.push({ id: inst.instanceId, secret: (await gateway.store.instances.findById(inst.instanceId))!.webhook_secret });
  }
  const before = (await ask<{ count: number }>(receiver, { report: true })).count;

  const started = performance.now();
  // One emit per event, a burst per tick, as an engine handing over incoming messages would.
  const emits: Promise<void>[] = [];
  for (let n = 0; n < events; n++) {
    emits.push(gateway.events.emit(instances[n % lanes]!.id, [event(n)]));
    if (n % 500 === 499) await new Promise((r) => setImmediate(r));
  }
  await Promise.all(emits);
  const committed = performance.now();

  let received = 0;
  let report: { count: number; samples: Sample[] } = { count: 0, samples: [] };
  while (received < events) {
    await new Promise((r) => setTimeout(r, 20));
    report = await ask(receiver, { report: true });
    received = report.count - before;
    if (performance.now() - started > 300_000) throw new Error(`only ${received} of ${events} events arrived in 5 minutes`);
  }
  // Durable means the outcome is on disk too: wait until no delivery of this run is left to record.
  const ids = instances.map((i) => i.id);
  for (;;) {
    const open = await gateway.store.database.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('instance_id', 'in', ids)
      .where('status', '!=', 'delivered')
      .executeTakeFirstOrThrow();
    if (Number(open.n) === 0) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const done = performance.now();

  const secrets = new Map(instances.map((i) => [i.id, i.secret]));
  let verified = 0;
  for (const s of report.samples) {
    const payload = JSON.parse(s.body) as { instanceId: string };
    const secret = secrets.get(payload.instanceId);
    if (secret === undefined) continue; // a sample from an earlier run
    new Webhook(secret).verify(s.body, s.headers);
    verified++;
  }
  const seconds = (done - started) / 1000;
  console.log(
    `${String(lanes).padStart(3)} lane(s)  ${String(events).padStart(6)} events   ${(events / seconds).toFixed(0).padStart(6)} delivered/s   ` +
      `(all committed after ${((committed - started) / 1000).toFixed(2)} s, all delivered and recorded after ${seconds.toFixed(2)} s; ` +
      `${verified} sampled signatures verified, ${report.count - before - events} duplicates)`,
  );
}

async function main(): Promise<void> {
  const receiver = fork(import.meta.filename, ['--receiver'], { env: { ...process.env, BENCH_TLS: TLS ? '1' : '0' } });
  const [{ port, ca }] = (await once(receiver, 'message')) as [{ port: number; ca?: string }];
  const origin = `${TLS ? 'https' : 'http'}://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'zapgate-bench-webhooks-'));
  const config = loadConfig({
    ZAPGATE_HOST: '127.0.0.1',
    ZAPGATE_PORT: '0',
    ZAPGATE_DATA_DIR: dataDir,
    ZAPGATE_LOG_LEVEL: 'warn',
    ZAPGATE_ALLOW_HOSTS: '127.0.0.1',
    ZAPGATE_WEBHOOK_ALLOW_HTTP: TLS ? 'false' : 'true',
  });
  const gateway = await createGateway(config, { collectProcessMetrics: false, sessions: offlineSessions(), ...(ca ? { outbox: { ca } } : {}) });
  await gateway.listen();
  try {
    console.log(`webhook deliveries to a local ${TLS ? 'HTTPS' : 'HTTP'} receiver (SQLite WAL, synchronous=FULL, Standard Webhooks signatures)`);
    await run(gateway, receiver, origin, 16, Math.min(2_000, EVENTS)); // warm-up: JIT, connections, page cache
    for (const lanes of [1, 16, 64]) await run(gateway, receiver, origin, lanes, EVENTS);
  } finally {
    await gateway.close();
    receiver.disconnect();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--receiver')) await receiverMain();
else await main();
