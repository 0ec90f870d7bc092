// The engine's floor: what bare Baileys costs per message, with no gateway around it. The same
// loads as bench/inbound.ts (contacts writing to paired numbers at a steady rate) and
// bench/e2e-send.ts (every number sending as fast as the engine goes, pacing off), but the sockets
// live in bench/engine-floor-child.mjs: plain Baileys, keys in memory, no store, no outbox, no
// webhooks. It prints the child process's CPU per message (bench/process-cpu.ts) beside throughput
// and latency, so the gateway's figures read as "engine + zapgate" against "engine alone", and the
// cryptography's share comes from bench/crypto-floor.ts.
//
// Receive: latency is from the contact's send (simnet, this process) to Baileys' messages.upsert in
// the child (both read as epoch milliseconds on the same machine); arrivals reach this process in
// batches every 20 ms, which the child's CPU includes and which costs it little.
// Send: from the first send to the last contact's decryption (simnet's 'received' event).
//
// Usage: node --import tsx bench/engine-floor.ts [--rates 100,300] [--seconds 10] [--instances 4]
//        [--contacts 40] [--send-instances 1,10,100] [--send-messages 2000] [--zapgate-patches]
// --zapgate-patches: Baileys as zapgate runs it (its process-wide patches and one transaction
// storage for every socket, from the build); without it, Baileys as published.
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { startSimnet, SimnetClient, type ReceivedMessage } from '../simnet/src/index.js';
import { cpuMark, cpuSince, formatCpuPer } from './process-cpu.js';
import { gatewayBin, percentile } from './sender-harness.js';

const { values } = parseArgs({
  options: {
    rates: { type: 'string', default: '100,300' },
    seconds: { type: 'string', default: '10' },
    instances: { type: 'string', default: '4' },
    contacts: { type: 'string', default: '40' },
    'send-instances': { type: 'string', default: '1,10,100' },
    'send-messages': { type: 'string', default: '2000' },
    'zapgate-patches': { type: 'boolean', default: false },
  },
});
const PATCHED = values['zapgate-patches'];
// The patched child imports zapgate's build: make sure it is there and current.
if (PATCHED) gatewayBin();
const RATES = values.rates.split(',').filter(Boolean).map(Number);
const SECONDS = Number(values.seconds);
const INSTANCES = Number(values.instances);
const CONTACTS = Number(values.contacts);
const SEND_RUNS = values['send-instances'].split(',').filter(Boolean).map(Number);
const SEND_TOTAL = Number(values['send-messages']);
const NUMBERS = Math.max(INSTANCES, ...SEND_RUNS);

type FromChild = { qr: string; phone: string } | { paired: string } | { arrived: [string, number][] } | { sent: number };

const sim = await startSimnet({ timeScale: 1 });
const admin = new SimnetClient(sim.adminUrl);
const child: ChildProcess = fork(join(import.meta.dirname, 'engine-floor-child.mjs'), [], {
  env: { ...process.env, ENGINE_FLOOR_WS_URL: sim.wsUrl, ENGINE_FLOOR_ROOT_KEY: sim.rootPublicKey, ENGINE_FLOOR_PATCHED: PATCHED ? '1' : '0' },
  execArgv: [],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
child.once('exit', (code) => {
  if (code !== 0) {
    console.error(`the engine's process exited with ${code}`);
    process.exit(1);
  }
});
const arrivedAt = new Map<string, number>();
const paired = new Set<string>();
let sentReport: ((n: number) => void) | undefined;
child.on('message', (msg: FromChild) => {
  if ('qr' in msg) {
    admin.scanQr(msg.phone, msg.qr).catch((err: unknown) => console.error(`scan ${msg.phone}: ${String(err)}`));
  } else if ('paired' in msg) {
    paired.add(msg.paired);
  } else if ('arrived' in msg) {
    for (const [id, at] of msg.arrived) if (!arrivedAt.has(id)) arrivedAt.set(id, at);
  } else {
    sentReport?.(msg.sent);
  }
});
const decrypted: ReceivedMessage[] = [];
sim.net.events.on('received', (m: ReceivedMessage) => decrypted.push(m));

try {
  const numbers = Array.from({ length: NUMBERS }, (_, i) => `55119700${String(i).padStart(5, '0')}`);
  const pairStart = Date.now();
  for (let i = 0; i < numbers.length; i += 10) {
    const batch = numbers.slice(i, i + 10);
    child.send({ cmd: 'pair', phones: batch });
    await until(() => batch.every((p) => paired.has(p)), 60_000, `numbers ${batch.join(', ')} paired`);
  }
  // Let the init queries and pre-key uploads after login settle before anything is measured.
  await sleep(2_000);
  console.log(`engine alone (${PATCHED ? 'Baileys with zapgate\'s patches' : 'Baileys as published'}, keys in memory): paired ${numbers.length} numbers in ${((Date.now() - pairStart) / 1000).toFixed(1)} s`);

  if (RATES.length > 0) {
    const owners = numbers.slice(0, INSTANCES);
    const contacts = Array.from({ length: CONTACTS }, (_, i) => `55118700${String(i).padStart(5, '0')}`);
    for (const c of contacts) await admin.createUser({ phone: c, pushName: `contact ${c}` });
    console.log(`receive: ${INSTANCES} numbers, ${CONTACTS} contacts, ${SECONDS} s per rate`);
    await receive(owners, contacts, contacts.length * owners.length, contacts.length * owners.length, undefined);
    for (const rate of RATES) await receive(owners, contacts, rate, rate * SECONDS, `${rate}/s`);
  }

  const recipients = (i: number): string[] => Array.from({ length: 5 }, (_, k) => `55219700${String(i % 1000).padStart(3, '0')}${String(k).padStart(2, '0')}`);
  if (SEND_RUNS.length > 0) {
    // Warm-up: every number writes once to each of its recipients (sessions and device lists).
    await send(numbers.slice(0, Math.max(...SEND_RUNS)), 5, recipients, undefined);
    for (const n of SEND_RUNS) await send(numbers.slice(0, n), Math.max(1, Math.floor(SEND_TOTAL / n)), recipients, `${n} numbers`);
  }
} finally {
  child.send({ cmd: 'quit' });
  await new Promise((r) => child.once('exit', r));
  await sim.close();
}

async function receive(owners: string[], contacts: string[], rate: number, total: number, label: string | undefined): Promise<void> {
  const sentAt = new Map<string, number>();
  const cpu = cpuMark(child.pid);
  const start = performance.now();
  const sends: Promise<void>[] = [];
  let failures = 0;
  for (let n = 0; n < total; n++) {
    const wait = start + (n * 1000) / rate - performance.now();
    if (wait > 1) await sleep(wait);
    const from = contacts[n % contacts.length]!;
    const to = owners[Math.floor(n / contacts.length) % owners.length]!;
    const t0 = performance.timeOrigin + performance.now();
    sends.push(
      admin.sendAsContact({ from, to, type: 'text', text: `m${n}` }).then(
        ({ messageId }) => void sentAt.set(messageId, t0),
        () => void failures++,
      ),
    );
  }
  await Promise.all(sends);
  await until(() => [...sentAt.keys()].every((id) => arrivedAt.has(id)), 120_000, `${sentAt.size} messages received`).catch(() => undefined);
  const spent = cpuSince(cpu);
  if (!label) return;
  const lat = [...sentAt].filter(([id]) => arrivedAt.has(id)).map(([id, t]) => arrivedAt.get(id)! - t).sort((a, b) => a - b);
  const missing = sentAt.size - lat.length;
  console.log(
    `receive ${label}: ${lat.length} messages; send → messages.upsert p50 ${percentile(lat, 50).toFixed(1)} ms, p99 ${percentile(lat, 99).toFixed(1)} ms; ` +
      `CPU ${formatCpuPer(spent, lat.length, 'msg', 'simnet', 'engine')}` +
      (missing || failures ? `; ${missing} missing, ${failures} sends failed` : ''),
  );
}

async function send(numbers: string[], per: number, recipients: (i: number) => string[], label: string | undefined): Promise<void> {
  const from = decrypted.length;
  const total = numbers.length * per;
  const cpu = cpuMark(child.pid);
  const start = performance.now();
  const done = new Promise<number>((resolve) => (sentReport = resolve));
  child.send({ cmd: 'send', jobs: numbers.map((phone, i) => [phone, recipients(i), per]) });
  await done;
  await until(() => decrypted.length - from >= total, 600_000, `${total} messages decrypted`);
  const seconds = (performance.now() - start) / 1000;
  const spent = cpuSince(cpu);
  if (!label) return;
  console.log(
    `send ${label}: ${total} texts in ${seconds.toFixed(2)} s = ${(total / seconds).toFixed(1)} msg/s; ` +
      `CPU ${formatCpuPer(spent, total, 'msg', 'simnet', 'engine')}`,
  );
}

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await sleep(5);
  }
}
