// Campaign throughput per number at the pacing floor (docs/contract.md §12): the real gateway
// process and real Baileys send a campaign to simnet contacts from 1 and from 3 numbers, with the
// smallest pacing the campaign settings allow (`paceSeconds` 0, the default) so the lane's own
// pacing is what limits it:
//   - `zapi`:    pacing on (the default, ZAPGATE_PACING=on), anti-ban off: Z-API's 1–3 s gap per message;
//   - `antiban`: anti-ban on (PUT …/update-antiban) as a user would turn it on: a human gap
//                (ZAPGATE_ANTIBAN_MIN/MAX_GAP_MS, 3–8 s) plus "typing…" for the text's length
//                (6 chars/s, at least 1 s). The recipients wrote to the number first: a first
//                message to a stranger is capped apart (12/hour, 2/hour in the first days of a
//                number, 60–120 s apart), which this bench does not measure (bench/antiban.ts does);
//   - `off`:     ZAPGATE_PACING=off (benchmarks only, no real deployment runs it): the ceiling of
//                the campaign runner itself (one message of the campaign outstanding per number,
//                a step every 100 ms) and the send path.
// Real time (scale 1): the gaps are what is measured. Each run prints messages/s per number, the
// time from start to the last message at its contact, the gateway process's CPU per message
// (/proc/<pid>/stat, bench/process-cpu.ts; at a few messages a second most of it is what the idle
// gateway spends anyway — keep-alives, the runner's step every 100 ms — so its idle share, measured
// over 10 s with nothing to send, is printed and taken off too) and queued → at the contact p50/p99 (`queuedAt` from
// GET /campaigns/{id}/recipients, the arrival from simnet's `received` event; same machine, same clock).
//
// Usage: node --import tsx bench/campaign.ts [--numbers 1,3] [--modes zapi,antiban,off]
//          [--zapi 20] [--antiban 8] [--off 200]   (recipients per number for each mode)
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ReceivedMessage } from '../simnet/src/index.js';
import { cpuMark, cpuSince, formatCpuPer } from './process-cpu.js';
import { percentile, startBench, type Inst } from './sender-harness.js';

const { values } = parseArgs({
  options: {
    numbers: { type: 'string', default: '1,3' },
    modes: { type: 'string', default: 'zapi,antiban,off' },
    zapi: { type: 'string', default: '20' },
    antiban: { type: 'string', default: '8' },
    off: { type: 'string', default: '200' },
  },
});
type Mode = 'zapi' | 'antiban' | 'off';
const NUMBERS = values.numbers.split(',').map(Number);
const MODES = values.modes.split(',') as Mode[];
const PER_NUMBER: Record<Mode, number> = { zapi: Number(values.zapi), antiban: Number(values.antiban), off: Number(values.off) };
const MAX = Math.max(...NUMBERS);
// A personalised text, as a campaign would send (so no two are identical): ~51 characters typed.
const TEMPLATE = 'Olá {{name}}, seu pedido {{code}} saiu para entrega.';

const bench = await startBench({ simnet: { timeScale: 1 } });
const arrived = new Map<string, number>();
bench.sim.net.events.on('received', (m: ReceivedMessage) => {
  if (!arrived.has(m.to)) arrived.set(m.to, Date.now());
});
let run = 0;
/** The gateway's CPU with the numbers connected and nothing to send (keep-alives, the runner's steps), in cores. */
let idleCores = 0;

try {
  const owners = Array.from({ length: MAX }, (_, i) => `55119510000${String(i).padStart(2, '0')}`);
  const insts: Inst[] = [];
  for (const owner of owners) insts.push(await bench.pair(owner));
  console.log(
    `campaign bench: ${MAX} numbers paired; paceSeconds 0 (the campaign's floor), real time; ` +
      `load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at start`,
  );
  idleCores = await idle();
  const pacedModes = MODES.filter((m) => m !== 'off');
  for (const mode of pacedModes) {
    for (const inst of insts) {
      const r = await bench.call('PUT', `${inst.prefix}/update-antiban`, { value: mode === 'antiban' });
      if (r.status !== 200) throw new Error(`update-antiban: ${r.status} ${JSON.stringify(r.json)}`);
    }
    for (const n of NUMBERS) await campaign(mode, insts.slice(0, n));
  }
  if (MODES.includes('off')) {
    await bench.restart({ ZAPGATE_PACING: 'off' });
    for (const inst of insts) await bench.waitStatus(inst, 'connected');
    for (const inst of insts) await bench.call('PUT', `${inst.prefix}/update-antiban`, { value: false });
    idleCores = await idle();
    for (const n of NUMBERS) await campaign('off', insts.slice(0, n));
  }
  console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the end`);
} finally {
  await bench.close();
}

/** One campaign of PER_NUMBER[mode] recipients per number over `numbers`, from start to the last arrival. */
async function campaign(mode: Mode, numbers: Inst[]): Promise<void> {
  run++;
  const total = PER_NUMBER[mode] * numbers.length;
  // Fresh recipients for every run; recipient i is served by number i % numbers.length (campaigns-service.ts).
  const phones = Array.from({ length: total }, (_, i) => `55219${String(run).padStart(2, '0')}${String(i).padStart(6, '0')}`);
  if (mode === 'antiban') {
    // Customers who wrote first: no stranger caps, only the human gap and typing.
    for (let i = 0; i < total; i++) await bench.admin.sendAsContact({ from: phones[i]!, to: numbers[i % numbers.length]!.owner, type: 'text', text: 'oi' });
    await sleep(2_000);
  }
  const created = await bench.call('POST', '/campaigns', {
    name: `bench ${mode} ${numbers.length}`,
    message: TEMPLATE,
    instanceIds: numbers.map((i) => i.id),
    recipients: phones.map((phone, i) => ({ phone, vars: { name: `Cliente ${i}`, code: `#${10_000 + i}` } })),
    dailyCap: 100_000,
    paceSeconds: 0,
  });
  if (created.status !== 200) throw new Error(`create campaign: ${created.status} ${JSON.stringify(created.json)}`);
  const id = String(created.json.id);
  const cpu = cpuMark(bench.gateway().child.pid);
  const started = Date.now();
  const startedReply = await bench.call('POST', `/campaigns/${id}/start`);
  if (startedReply.status !== 200) throw new Error(`start: ${startedReply.status}`);
  // Bounded: the slowest mode's worst gap (8 s + 15 s typing) for every message, plus a minute.
  const deadline = Date.now() + PER_NUMBER[mode] * 25_000 + 60_000;
  while (phones.some((p) => !arrived.has(p))) {
    if (Date.now() > deadline) throw new Error(`${mode}: ${phones.filter((p) => !arrived.has(p)).length} of ${total} never arrived`);
    await sleep(20);
  }
  const spent = cpuSince(cpu);
  const last = Math.max(...phones.map((p) => arrived.get(p)!));
  const seconds = (last - started) / 1000;
  const queuedAt = await queuedTimes(id);
  const lat = phones.map((p) => arrived.get(p)! - (queuedAt.get(p) ?? NaN)).filter(Number.isFinite).sort((a, b) => a - b);
  const idleMs = idleCores * spent.wallMs;
  console.log(
    `${mode.padEnd(7)} ${numbers.length} number${numbers.length > 1 ? 's' : ' '}: ${total} messages in ${seconds.toFixed(1)} s = ` +
      `${(total / seconds / numbers.length).toFixed(3)} msg/s per number (${(total / seconds).toFixed(2)} in all); ` +
      `queued → at the contact p50 ${percentile(lat, 50).toFixed(0)} ms, p99 ${percentile(lat, 99).toFixed(0)} ms over ${lat.length}; ` +
      `CPU ${formatCpuPer(spent, total, 'msg', 'simnet + client')} (gateway above its idle: ${((spent.targetMs - idleMs) / total).toFixed(3)} ms/msg)`,
  );
}

/** The gateway process's CPU over 10 s with the numbers connected and no campaign running, in cores. */
async function idle(): Promise<number> {
  await sleep(3_000);
  const mark = cpuMark(bench.gateway().child.pid);
  await sleep(10_000);
  const span = cpuSince(mark);
  console.log(`idle gateway (${MAX} numbers connected, nothing to send): ${(span.targetMs / span.wallMs).toFixed(3)} cores`);
  return span.targetMs / span.wallMs;
}

/** Each recipient's `queuedAt` (wall-clock ms), from the recipients listing. */
async function queuedTimes(id: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  let after = 0;
  for (let page = 0; page < 1_000; page++) {
    const r = await bench.call('GET', `/campaigns/${id}/recipients?pageSize=1000&after=${after}`);
    for (const x of r.json.recipients as { phone: string; queuedAt: number | null }[]) if (x.queuedAt !== null) out.set(x.phone, x.queuedAt);
    if (r.json.next === null) break;
    after = Number(r.json.next);
  }
  return out;
}
