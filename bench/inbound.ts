// Incoming messages end to end: simnet contacts write to instances of the real gateway process (real
// Baileys), and a local receiver takes the webhooks. Prints events/s and the latency from the
// contact's send to the webhook POST (p50, p99, max), for text alone and for text mixed with media,
// at a steady offered rate. For each run it also prints the CPU the gateway process spent per
// delivered event (from /proc/<pid>/stat, bench/process-cpu.ts) beside this process's (simnet, its
// contacts' encryption and the receiver), both from the run's start until its backlog is drained,
// and how long `GET /livez` took meanwhile (polled every 100 ms, one at a time, 5 s timeout; a
// timeout or error counts as 5 s): p50, p99, max.
//
// Usage: node --import tsx bench/inbound.ts [--rate 500] [--seconds 10] [--instances 4] [--contacts 40] [--media-share 0.1] [--sqlite-thread main|worker]
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'undici';
import { cpuMark, cpuSince, formatCpuPer } from './process-cpu.js';
import { percentile, startBench, type Inst } from './sender-harness.js';

const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '500' },
    seconds: { type: 'string', default: '10' },
    instances: { type: 'string', default: '4' },
    contacts: { type: 'string', default: '40' },
    'media-share': { type: 'string', default: '0.1' },
    'sqlite-thread': { type: 'string', default: 'main' },
  },
});
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const INSTANCES = Number(values.instances);
const CONTACTS = Number(values.contacts);
const MEDIA_SHARE = Number(values['media-share']);

// The receiver: when each event's POST arrives (keyed by the network message id).
const arrivedAt = new Map<string, number>();
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = performance.now();
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type?: string; messageId?: string };
      if (body.type === 'ReceivedCallback' && body.messageId && !arrivedAt.has(body.messageId)) arrivedAt.set(body.messageId, at);
    } catch {
      // not an event
    }
    res.writeHead(200).end('{}');
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

/** One connection for the liveness probe, so each poll measures the answer, not a TCP handshake. */
const livezAgent = new Agent({ connections: 1, keepAliveTimeout: 10_000 });
const LIVEZ_EVERY_MS = 100;
const LIVEZ_TIMEOUT_MS = 5_000;

/**
 * Polls `url` every 100 ms (a poll starts 100 ms after the previous one started, or when it ended if
 * it took longer) until stop(); returns each poll's latency, sorted, timeouts and errors as 5 s.
 */
function pollLivez(url: string): { stop(): Promise<{ latencies: number[]; failed: number }> } {
  let stopped = false;
  let failed = 0;
  const latencies: number[] = [];
  const loop = (async () => {
    while (!stopped) {
      const t0 = performance.now();
      try {
        const res = await request(url, { dispatcher: livezAgent, signal: AbortSignal.timeout(LIVEZ_TIMEOUT_MS) });
        await res.body.dump();
        if (res.statusCode !== 200) throw new Error(`/livez answered ${res.statusCode}`);
        latencies.push(performance.now() - t0);
      } catch {
        failed++;
        latencies.push(LIVEZ_TIMEOUT_MS);
      }
      const wait = LIVEZ_EVERY_MS - (performance.now() - t0);
      if (wait > 0 && !stopped) await sleep(wait);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return { latencies: latencies.sort((a, b) => a - b), failed };
    },
  };
}

const bench = await startBench({ simnet: { timeScale: 1 }, env: { ZAPGATE_WEBHOOK_ALLOW_HTTP: 'true', ZAPGATE_ALLOW_HOSTS: '127.0.0.1' } });
// Media downloads need the gateway to trust simnet's media host: restart it with the CA.
const caFile = join(bench.dataDir, 'media-ca.pem');
writeFileSync(caFile, bench.sim.mediaCaPem);
await bench.restart({ ZAPGATE_WEBHOOK_ALLOW_HTTP: 'true', ZAPGATE_ALLOW_HOSTS: '127.0.0.1', NODE_EXTRA_CA_CERTS: caFile, ZAPGATE_SQLITE_THREAD: values['sqlite-thread'] });

try {
  const owners: Inst[] = [];
  for (let i = 0; i < INSTANCES; i++) owners.push(await bench.pair(`55119600${String(i).padStart(5, '0')}`));
  for (const o of owners) {
    const r = await bench.call('PUT', `${o.prefix}/update-every-webhooks`, { value: hookUrl });
    if (r.status !== 200) throw new Error(`webhooks: ${r.status}`);
  }
  const contacts = Array.from({ length: CONTACTS }, (_, i) => `55118600${String(i).padStart(5, '0')}`);
  for (const c of contacts) await bench.sim.admin.createUser(c, `contact ${c}`);
  const image = randomBytes(20_000);
  console.log(`${INSTANCES} instances, ${CONTACTS} contacts; offered ${RATE} events/s for ${SECONDS} s; receiver on loopback; SQLite on the ${values['sqlite-thread']} thread`);

  // Warm-up: every contact writes once to every instance (Signal sessions set up).
  await run('warm-up', contacts.length * owners.length, contacts.length * owners.length, 0, false);
  // What the gateway spends with its instances connected and nothing arriving (timers, keep-alives,
  // polls): at a low rate this is a share of each message's figure below.
  const idle = cpuMark(bench.gateway().child.pid);
  await sleep(5_000);
  const idleCpu = cpuSince(idle);
  console.log(`idle (${INSTANCES} instances connected, nothing arriving): gateway ${((idleCpu.targetMs / idleCpu.wallMs) * 1000).toFixed(1)} ms CPU per second`);
  await run('text', RATE, RATE * SECONDS, 0, true);
  await run(`text + ${Math.round(MEDIA_SHARE * 100)} % images (20 KB)`, RATE, RATE * SECONDS, MEDIA_SHARE, true);

  async function run(label: string, rate: number, total: number, mediaShare: number, print: boolean): Promise<void> {
    const sentAt = new Map<string, number>();
    const cpu = cpuMark(bench.gateway().child.pid);
    const livez = print ? pollLivez(`${bench.gateway().url}/livez`) : undefined;
    const start = performance.now();
    let failures = 0;
    const sends: Promise<void>[] = [];
    for (let n = 0; n < total; n++) {
      // Paced: the n-th send is due at start + n / rate.
      const due = start + (n * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      const from = contacts[n % contacts.length]!;
      const to = owners[Math.floor(n / contacts.length) % owners.length]!.owner;
      const media = mediaShare > 0 && n % Math.round(1 / mediaShare) === 0;
      const t0 = performance.now();
      sends.push(
        bench.sim.admin
          .sendAsContact(
            media
              ? { from, to, type: 'image', imageBase64: image.toString('base64'), mimetype: 'image/jpeg', width: 100, height: 100, jpegThumbnail: '' }
              : { from, to, type: 'text', text: `m${n}` },
          )
          .then(
            ({ messageId }) => void sentAt.set(messageId, t0),
            () => void failures++,
          ),
      );
    }
    await Promise.all(sends);
    const offeredSeconds = (performance.now() - start) / 1000;
    const deadline = Date.now() + 120_000;
    while ([...sentAt.keys()].some((id) => !arrivedAt.has(id)) && Date.now() < deadline) await sleep(20);
    const spent = cpuSince(cpu);
    const probes = await livez?.stop();
    if (!print || !probes) return;
    const lat = [...sentAt].filter(([id]) => arrivedAt.has(id)).map(([id, t]) => arrivedAt.get(id)! - t).sort((a, b) => a - b);
    const last = Math.max(...[...sentAt.keys()].filter((id) => arrivedAt.has(id)).map((id) => arrivedAt.get(id)!));
    const missing = sentAt.size - lat.length;
    console.log(
      `${label}: ${lat.length} events in ${((last - start) / 1000).toFixed(2)} s = ${(lat.length / ((last - start) / 1000)).toFixed(0)} events/s ` +
        `(offered over ${offeredSeconds.toFixed(2)} s); send → webhook POST p50 ${percentile(lat, 50).toFixed(1)} ms, p99 ${percentile(lat, 99).toFixed(1)} ms, max ${lat[lat.length - 1]!.toFixed(1)} ms` +
        `; CPU ${formatCpuPer(spent, lat.length, 'event', 'simnet + receiver')}` +
        (missing || failures ? `; ${missing} missing, ${failures} sends failed` : ''),
    );
    const slow = probes.latencies;
    console.log(
      `  GET /livez meanwhile: p50 ${percentile(slow, 50).toFixed(1)} ms, p99 ${percentile(slow, 99).toFixed(1)} ms, max ${(slow[slow.length - 1] ?? NaN).toFixed(1)} ms ` +
        `over ${slow.length} polls` +
        (probes.failed ? ` (${probes.failed} timed out or failed, counted as 5 s)` : ''),
    );
  }
} finally {
  await bench.close();
  await livezAgent.close();
  server.closeAllConnections();
  server.close();
}
