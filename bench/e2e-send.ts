// End-to-end sends through the real gateway process and real Baileys to simnet contacts, pacing off:
// from the HTTP request until the contact's phone has decrypted the message. Text, and media next
// to it: an image (a 640×480 JPEG, sent as is after its header is checked and a thumbnail made)
// and a voice note (a 5 s MP3, converted to Ogg/Opus by ffmpeg for every message). Each run also
// prints the CPU the gateway process spent per sent message over its throughput part (from the
// first request until the last decrypt; /proc/<pid>/stat, bench/process-cpu.ts; ffmpeg's share
// apart), beside this process's (simnet and its contacts' decryption, the HTTP client).
//
// Usage: node --import tsx bench/e2e-send.ts [--instances 1,10,100] [--messages 2000] [--media-messages 200]
//          [--contacts 5] [--sqlite-thread main|worker] [--kinds text,image,audio]
//   --messages / --media-messages: total per run (text / each media kind), spread over the instances.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import type { ReceivedMessage } from '../simnet/src/index.js';
import { bundledTool } from '../src/convert/ffmpeg.js';
import { cpuMark, cpuSince, formatCpuPer } from './process-cpu.js';
import { percentile, startBench, type Inst } from './sender-harness.js';

const { values } = parseArgs({
  options: {
    instances: { type: 'string', default: '1,10,100' },
    messages: { type: 'string', default: '2000' },
    'media-messages': { type: 'string', default: '200' },
    contacts: { type: 'string', default: '5' },
    kinds: { type: 'string', default: 'text,image,audio' },
    'sqlite-thread': { type: 'string', default: 'main' },
  },
});
const RUNS = values.instances.split(',').map(Number);
const TOTAL = Number(values.messages);
const MEDIA_TOTAL = Number(values['media-messages']);
const CONTACTS = Number(values.contacts);
const KINDS = values.kinds.split(',') as Kind[];
const MAX = Math.max(...RUNS);

type Kind = 'text' | 'image' | 'audio';

/** The request body of each kind (media as data URIs, so the bench measures the gateway, not a media server). */
const BODIES = await mediaBodies();

// Real time (scale 1): pacing is off, so the scale would only shorten QR lifetimes and receipt delays.
const bench = await startBench({ simnet: { timeScale: 1 }, env: { ZAPGATE_TIME_SCALE: '1', ZAPGATE_PACING: 'off', ZAPGATE_SQLITE_THREAD: values['sqlite-thread'] } });
const arrived = new Map<string, number>();
bench.sim.net.events.on('received', (m: ReceivedMessage) => {
  if (m.media?.error) console.error(`media not decrypted: ${m.media.error}`);
  if (!arrived.has(m.id)) arrived.set(m.id, performance.now());
});

try {
  const pairStart = Date.now();
  const instances: Inst[] = [];
  // Pair a few at a time: each pairing is a QR scan and a first login.
  for (let i = 0; i < MAX; i += 10) {
    const batch = Array.from({ length: Math.min(10, MAX - i) }, (_, j) => `55119500${String(i + j).padStart(5, '0')}`);
    instances.push(...(await Promise.all(batch.map((owner) => bench.pair(owner)))));
  }
  console.log(`paired ${MAX} instances in ${((Date.now() - pairStart) / 1000).toFixed(1)} s; pacing off; ${CONTACTS} contacts per instance; SQLite on the ${values['sqlite-thread']} thread`);
  // Warm-up: one message from every instance to every contact sets up the Signal sessions, so the
  // runs measure steady-state sending rather than first-contact key fetches.
  await run(instances, instances.length * CONTACTS, 'text', false);
  for (const kind of KINDS) {
    for (const n of RUNS) await run(instances.slice(0, n), kind === 'text' ? TOTAL : MEDIA_TOTAL, kind, true);
  }
} finally {
  await bench.close();
}

/** Throughput: every message accepted at once; rate from the first accept to the last decrypt. */
async function run(insts: Inst[], total: number, kind: Kind, print: boolean): Promise<void> {
  const per = Math.max(1, Math.floor(total / insts.length));
  const sentAt = new Map<string, number>();
  const cpu = cpuMark(bench.gateway().child.pid);
  const started = performance.now();
  await Promise.all(
    insts.map(async (inst, i) => {
      for (let k = 0; k < per; k++) sentAt.set(await send(inst, i, k, kind), performance.now());
    }),
  );
  await arrivedAll([...sentAt.keys()]);
  const spent = cpuSince(cpu);
  if (!print) return;
  const last = Math.max(...[...sentAt.keys()].map((id) => arrived.get(id) as number));
  const seconds = (last - started) / 1000;
  const queued = [...sentAt].map(([id, t0]) => (arrived.get(id) as number) - t0).sort((a, b) => a - b);
  // Latency of one message at a time per instance: API accept → the contact decrypted it.
  const latencies: number[] = [];
  const oneAtATime = kind === 'text' ? 200 : 50;
  await Promise.all(
    insts.map(async (inst, i) => {
      for (let k = 0; k < Math.max(2, Math.ceil(oneAtATime / insts.length)); k++) {
        const t0 = performance.now();
        const id = await send(inst, i, per + k, kind);
        await arrivedAll([id]);
        latencies.push((arrived.get(id) as number) - t0);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  console.log(
    `${kind.padEnd(5)} ${String(insts.length).padStart(3)} instances: ${sentAt.size} messages in ${seconds.toFixed(2)} s = ${(sentAt.size / seconds).toFixed(1)} msg/s ` +
      `(p50 ${percentile(queued, 50).toFixed(0)} ms, p99 ${percentile(queued, 99).toFixed(0)} ms from accept to decrypt with the queue full; ` +
      `CPU ${formatCpuPer(spent, sentAt.size, 'msg', 'simnet + client')}); ` +
      `one at a time per instance: p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms over ${latencies.length} messages`,
  );
}

async function send(inst: Inst, i: number, k: number, kind: Kind): Promise<string> {
  const to = `55219900${String(i % 1000).padStart(3, '0')}${String(k % CONTACTS).padStart(2, '0')}`;
  const path = kind === 'text' ? 'send-text' : kind === 'image' ? 'send-image' : 'send-audio';
  const body = kind === 'text' ? { message: `msg ${k}` } : BODIES[kind];
  const r = await bench.call('POST', `${inst.prefix}/${path}`, { phone: to, ...body });
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.json)}`);
  return String(r.json.messageId);
}

async function arrivedAll(ids: readonly string[]): Promise<void> {
  const deadline = Date.now() + 600_000;
  while (ids.some((id) => !arrived.has(id))) {
    if (Date.now() > deadline) throw new Error(`${ids.filter((id) => !arrived.has(id)).length} messages never arrived`);
    await sleep(1);
  }
}

async function mediaBodies(): Promise<Record<'image' | 'audio', Record<string, unknown>>> {
  const jpeg = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 30 } } })
    .jpeg({ quality: 70 })
    .toBuffer();
  const dir = mkdtempSync(join(tmpdir(), 'zapgate-bench-media-'));
  try {
    const ffmpeg = bundledTool('ffmpeg');
    const mp3 = join(dir, 'tone.mp3');
    execFileSync(ffmpeg, ['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=5', '-c:a', 'libmp3lame', '-b:a', '64k', mp3]);
    return {
      image: { image: `data:image/jpeg;base64,${jpeg.toString('base64')}`, caption: 'bench' },
      audio: { audio: `data:audio/mpeg;base64,${readFileSync(mp3).toString('base64')}` },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
