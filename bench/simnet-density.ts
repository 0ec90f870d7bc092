// Density bench: N real Baileys 7 sockets paired and idle against one simnet child process, the sockets spread over
// client child processes (a single Node process stalls long before 1,000 sockets). Prints, per N, simnet's RSS and heap
// (and per device), the clients' memory per socket and the time to pair.
// Run: node --expose-gc --import tsx bench/simnet-density.ts [N ...]          (default N = 100 500 1000)
// Env: SIMNET_BENCH_BUDGET_S (whole run, default 600), SIMNET_BENCH_PER_PROCESS (sockets per client process, 250),
//      SIMNET_BENCH_CONCURRENCY (pairings in flight over all client processes, 16),
//      SIMNET_BENCH_SIMNET_ARGS / SIMNET_BENCH_CLIENT_ARGS (extra node flags for the simnet / client processes, e.g. --cpu-prof).
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import makeWASocket, { Browsers, initAuthCreds, UPLOAD_TIMEOUT, WA_CERT_DETAILS, type SignalDataSet, type SignalKeyStore, type WASocket } from 'baileys';
import pino from 'pino';
import { SimnetClient } from '../simnet/src/admin/client.js';
import type { SimnetStats } from '../simnet/src/admin/types.js';

/** Parent → worker. */
type Command =
  | { cmd: 'grow'; target: number; concurrency: number; deadline: number }
  | { cmd: 'measure' }
  | { cmd: 'stop' };

interface WorkerMemory {
  sockets: number;
  open: number;
  rss: number;
  heapUsed: number;
  baseRss: number;
  baseHeap: number;
  drops: Record<string, number>;
}

/** Worker → parent. */
type Reply =
  | { kind: 'ready' }
  | { kind: 'grown'; sockets: number; failures: number; errors: Record<string, number>; latencies: number[] }
  | ({ kind: 'memory' } & WorkerMemory);

const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
const gc = () => (globalThis as { gc?: () => void }).gc?.();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ───────────────────────────── client worker: holds up to PER_PROCESS Baileys sockets ─────────────────────────────

// Baileys never clears its 30 s pre-key upload timer; unref it so the process can exit.
const realSetTimeout = globalThis.setTimeout;
globalThis.setTimeout = ((fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) => {
  const t = realSetTimeout(fn, ms, ...args);
  if (ms === UPLOAD_TIMEOUT) t.unref();
  return t;
}) as typeof setTimeout;

function memoryKeys(): SignalKeyStore {
  const data = new Map<string, unknown>();
  return {
    get: async (type, ids) => {
      const out: Record<string, unknown> = {};
      for (const id of ids) {
        const v = data.get(`${type}:${id}`);
        if (v !== undefined) out[id] = v;
      }
      return out as never;
    },
    set: async (set: SignalDataSet) => {
      for (const [type, entries] of Object.entries(set)) {
        for (const [id, v] of Object.entries(entries ?? {})) {
          if (v == null) data.delete(`${type}:${id}`);
          else data.set(`${type}:${id}`, v);
        }
      }
    },
  };
}

function closeCode(u: { lastDisconnect?: { error?: Error } }): number {
  return (u.lastDisconnect?.error as { output?: { statusCode?: number } } | undefined)?.output?.statusCode ?? 0;
}

/** Resolves on the first connection.update that matches; rejects on timeout (and stops listening either way). */
function waitUpdate(sock: WASocket, what: string, pred: (u: { qr?: string; connection?: string }) => boolean, ms: number) {
  return new Promise<{ qr?: string; code: number }>((resolve, reject) => {
    const on = (u: Parameters<Parameters<WASocket['ev']['on']>[1]>[0] & { qr?: string; connection?: string; lastDisconnect?: { error?: Error } }) => {
      if (!pred(u)) return;
      clearTimeout(t);
      sock.ev.off('connection.update', on);
      resolve({ qr: u.qr, code: closeCode(u) });
    };
    const t = setTimeout(() => {
      sock.ev.off('connection.update', on);
      reject(new Error(`timeout waiting for ${what}`));
    }, ms);
    sock.ev.on('connection.update', on);
  });
}

async function runWorker(): Promise<void> {
  const wsUrl = process.env.BENCH_WS_URL!;
  const admin = new SimnetClient(process.env.BENCH_ADMIN_URL!);
  const workerIndex = Number(process.env.BENCH_WORKER_INDEX ?? 0);
  WA_CERT_DETAILS.PUBLIC_KEY = Buffer.from(process.env.BENCH_ROOT_KEY!, 'base64');
  const logger = pino({ level: 'silent' });
  const holders: { sock: WASocket }[] = [];
  const drops: Record<string, number> = {};
  let stopping = false;
  let nextPhone = 0;
  const MAX_RECONNECTS = 5;
  gc();
  const base = process.memoryUsage();

  /** Keeps a paired socket connected like an engine would: reconnect on transient closes, bounded. */
  const keepConnected = (cfg: Parameters<typeof makeWASocket>[0], holder: { sock: WASocket }, attempt: number, creds: object): void => {
    holder.sock.ev.on('connection.update', (u) => {
      if (u.connection !== 'close' || stopping) return;
      const code = closeCode(u);
      drops[code] = (drops[code] ?? 0) + 1;
      if (attempt >= MAX_RECONNECTS || [401, 403, 440].includes(code)) return;
      holder.sock = makeWASocket(cfg);
      holder.sock.ev.on('creds.update', (c) => Object.assign(creds, c));
      keepConnected(cfg, holder, attempt + 1, creds);
    });
  };

  const pairOne = async (phone: string): Promise<{ sock: WASocket }> => {
    const auth = { creds: initAuthCreds(), keys: memoryKeys() };
    const cfg = {
      waWebSocketUrl: wsUrl,
      auth,
      logger,
      browser: Browsers.ubuntu('Chrome'),
      markOnlineOnConnect: false,
      syncFullHistory: false,
      // The bench measures idle sockets, not history sync.
      shouldSyncHistoryMessage: () => false,
      connectTimeoutMs: 60_000,
      defaultQueryTimeoutMs: 60_000,
    };
    const first = makeWASocket(cfg);
    first.ev.on('creds.update', (u) => Object.assign(auth.creds, u));
    try {
      const { qr } = await waitUpdate(first, 'qr', (u) => !!u.qr, 60_000);
      const closed = waitUpdate(first, '515', (u) => u.connection === 'close', 60_000);
      await admin.scanQr(phone, qr!);
      const { code } = await closed;
      if (code !== 515) throw new Error(`expected 515, got ${code}`);
    } catch (e) {
      first.end(undefined);
      throw e;
    }
    const sock = makeWASocket(cfg);
    sock.ev.on('creds.update', (u) => Object.assign(auth.creds, u));
    try {
      await waitUpdate(sock, 'open', (u) => u.connection === 'open', 60_000);
    } catch (e) {
      sock.end(undefined);
      throw e;
    }
    const holder = { sock };
    keepConnected(cfg, holder, 0, auth.creds);
    return holder;
  };

  const grow = async (target: number, concurrency: number, deadline: number): Promise<Reply> => {
    let failures = 0;
    const errors: Record<string, number> = {};
    const latencies: number[] = [];
    let inFlight = 0;
    const lane = async () => {
      while (holders.length + inFlight < target && Date.now() < deadline && failures < 20) {
        inFlight++;
        const t0 = Date.now();
        // Numbers 55 1 9 <worker:2> <index:7>: distinct across workers, inside simnet's auto-user pattern.
        const phone = `5519${String(workerIndex).padStart(2, '0')}${String(nextPhone++).padStart(7, '0')}`;
        try {
          holders.push(await pairOne(phone));
          latencies.push(Date.now() - t0);
        } catch (e) {
          failures++;
          const msg = (e as Error).message;
          errors[msg] = (errors[msg] ?? 0) + 1;
        } finally {
          inFlight--;
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, lane));
    return { kind: 'grown', sockets: holders.length, failures, errors, latencies };
  };

  const measure = (): Reply => {
    gc();
    const m = process.memoryUsage();
    const open = holders.filter((h) => (h.sock.ws as unknown as { isOpen: boolean }).isOpen).length;
    return { kind: 'memory', sockets: holders.length, open, rss: m.rss, heapUsed: m.heapUsed, baseRss: base.rss, baseHeap: base.heapUsed, drops };
  };

  process.on('message', (c: Command) => {
    if (c.cmd === 'grow') void grow(c.target, c.concurrency, c.deadline).then((r) => process.send!(r));
    else if (c.cmd === 'measure') process.send!(measure());
    else {
      stopping = true;
      for (const h of holders) h.sock.end(undefined);
      // process.exit, not a lingering loop: Baileys leaves timers behind. Via 'exit' so --cpu-prof still writes.
      setTimeout(() => process.exit(0), 200);
    }
  });
  // The parent going away (crash, Ctrl-C) must not leave sockets behind.
  process.on('disconnect', () => process.exit(0));
  process.send!({ kind: 'ready' } satisfies Reply);
}

// ───────────────────────────── parent: simnet child, client workers, the table ─────────────────────────────

class Worker {
  readonly proc: ChildProcess;
  private waiters: { resolve: (r: Reply) => void; reject: (e: Error) => void }[] = [];
  target = 0;

  constructor(index: number, env: Record<string, string>) {
    this.proc = fork(fileURLToPath(import.meta.url), ['--worker'], {
      execArgv: [...(process.env.SIMNET_BENCH_CLIENT_ARGS ?? '').split(' ').filter(Boolean), '--expose-gc', '--import', 'tsx'],
      env: { ...process.env, ...env, BENCH_WORKER_INDEX: String(index) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.proc.on('message', (r: Reply) => this.waiters.shift()?.resolve(r));
    this.proc.on('exit', (code) => {
      for (const w of this.waiters.splice(0)) w.reject(new Error(`client worker exited ${code}`));
    });
  }

  /** Replies come in command order (one outstanding command per worker at a time). */
  next(): Promise<Reply> {
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  async ask<K extends Reply['kind']>(c: Command): Promise<Extract<Reply, { kind: K }>> {
    const reply = this.next();
    this.proc.send(c);
    return (await reply) as Extract<Reply, { kind: K }>;
  }
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function runParent(): Promise<void> {
  const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
  const targets = sizes.length ? sizes : [100, 500, 1000];
  const budgetMs = Number(process.env.SIMNET_BENCH_BUDGET_S ?? 600) * 1000;
  const perProcess = Number(process.env.SIMNET_BENCH_PER_PROCESS ?? 250);
  const concurrency = Number(process.env.SIMNET_BENCH_CONCURRENCY ?? 16);
  const started = Date.now();
  const deadline = started + budgetMs;

  // SIMNET_BENCH_SIMNET_ARGS: extra node flags for the simnet child, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const simArgs = (process.env.SIMNET_BENCH_SIMNET_ARGS ?? '').split(' ').filter(Boolean);
  const sim = spawn(process.execPath, [...simArgs, '--expose-gc', '--import', 'tsx', 'simnet/src/main.ts', '--port', '0', '--time-scale', '0.05', '--quiet'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const workers: Worker[] = [];
  try {
    const info = await new Promise<{ wsUrl: string; adminUrl: string; rootPublicKey: string }>((resolve, reject) => {
      createInterface({ input: sim.stdout! }).once('line', (l) => resolve(JSON.parse(l)));
      sim.once('exit', (c) => reject(new Error(`simnet exited ${c}`)));
    });
    const admin = new SimnetClient(info.adminUrl);
    const workerEnv = { BENCH_WS_URL: info.wsUrl, BENCH_ADMIN_URL: info.adminUrl, BENCH_ROOT_KEY: info.rootPublicKey };
    await admin.stats(); // the first reading collects startup garbage (tsx compiling simnet)
    await sleep(1000);
    const simBase = await admin.stats();
    console.log(`simnet baseline: rss ${mb(simBase.rss)} MB, heap ${mb(simBase.heapUsed)} MB | ${perProcess} sockets per client process, ${concurrency} pairings in flight, budget ${budgetMs / 1000} s`);
    console.log('(per dev/sock: over the baseline; Δ: marginal since the previous row, steadier for RSS)');
    console.log(
      [
        'N',
        'simnet rss',
        'simnet heap',
        'heap/dev',
        'rss/dev Δ',
        'client rss/sock',
        'rss/sock Δ',
        'heap/sock',
        'procs',
        'open/online',
        'pair time',
        'pairs/s',
        'p50/p95',
        'simnet loop p99/max',
        'simnet cpu/pair',
      ].join('\t'),
    );
    let prev = { simRss: simBase.rss, devices: 0, clientRss: 0, sockets: 0 };
    let prevCpu = simBase.cpuMs.user + simBase.cpuMs.system;
    for (const n of targets) {
      const needed = Math.ceil(n / perProcess);
      while (workers.length < needed) {
        const w = new Worker(workers.length, workerEnv);
        await w.next(); // ready
        workers.push(w);
      }
      // Fill processes in order: 100 → [100], 500 → [250, 250], 1000 → 4 × 250.
      let left = n;
      for (const w of workers) {
        w.target = Math.min(perProcess, left);
        left -= w.target;
      }
      const growing = workers.filter((w) => w.target > 0);
      const each = Math.max(1, Math.floor(concurrency / growing.length));
      const t0 = Date.now();
      await admin.stats(); // resets simnet's event-loop histogram: the next reading covers this step
      const grown = await Promise.all(growing.map((w) => w.ask<'grown'>({ cmd: 'grow', target: w.target, concurrency: each, deadline })));
      const stepS = (Date.now() - t0) / 1000;
      const have = grown.reduce((a, g) => a + g.sockets, 0);
      const failures = grown.reduce((a, g) => a + g.failures, 0);
      const latencies = grown.flatMap((g) => g.latencies).sort((a, b) => a - b);
      if (failures) {
        const errors: Record<string, number> = {};
        for (const g of grown) for (const [k, v] of Object.entries(g.errors)) errors[k] = (errors[k] ?? 0) + v;
        console.log(`  ${failures} pairing failures: ${JSON.stringify(errors)}`);
      }
      // Let post-login traffic (pre-key uploads, bootstrap) settle, then measure idle.
      await sleep(3000);
      const mems = await Promise.all(workers.map((w) => w.ask<'memory'>({ cmd: 'measure' })));
      const s: SimnetStats = await admin.stats();
      const sockets = mems.reduce((a, m) => a + m.sockets, 0);
      const open = mems.reduce((a, m) => a + m.open, 0);
      const clientRss = mems.reduce((a, m) => a + (m.rss - m.baseRss), 0);
      const clientHeap = mems.reduce((a, m) => a + (m.heapUsed - m.baseHeap), 0);
      const cpu = s.cpuMs.user + s.cpuMs.system;
      const newlyPaired = Math.max(1, sockets - prev.sockets);
      const kb = (bytes: number, per: number, digits = 0) => `${(bytes / Math.max(1, per) / 1024).toFixed(digits)} KB`;
      console.log(
        [
          sockets,
          `${mb(s.rss)} MB`,
          `${mb(s.heapUsed)} MB`,
          kb(s.heapUsed - simBase.heapUsed, s.devices, 1),
          kb(s.rss - prev.simRss, s.devices - prev.devices),
          kb(clientRss, sockets),
          kb(clientRss - prev.clientRss, sockets - prev.sockets),
          kb(clientHeap, sockets),
          mems.length,
          `${open}/${s.online}`,
          `${stepS.toFixed(1)} s`,
          (newlyPaired / stepS).toFixed(1),
          `${(percentile(latencies, 50) / 1000).toFixed(1)}/${(percentile(latencies, 95) / 1000).toFixed(1)} s`,
          `${s.eventLoopDelayMs.p99}/${s.eventLoopDelayMs.max} ms`,
          `${((cpu - prevCpu) / newlyPaired).toFixed(0)} ms`,
        ].join('\t'),
      );
      prev = { simRss: s.rss, devices: s.devices, clientRss, sockets };
      const drops: Record<string, number> = {};
      for (const m of mems) for (const [k, v] of Object.entries(m.drops)) drops[k] = (drops[k] ?? 0) + v;
      if (Object.keys(drops).length) console.log(`  drops so far (close code → count, reconnected): ${JSON.stringify(drops)}`);
      prevCpu = cpu;
      if (have < n) {
        console.log(`stopped at ${have} of ${n} sockets (${Date.now() >= deadline ? 'budget SIMNET_BENCH_BUDGET_S spent' : 'too many failures'})`);
        break;
      }
    }
    console.log(`total ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await Promise.all(
      workers.map(async (w) => {
        const exited = new Promise((r) => w.proc.once('exit', r));
        if (w.proc.connected) w.proc.send({ cmd: 'stop' } satisfies Command);
        await Promise.race([exited, sleep(5000)]);
        w.proc.kill('SIGKILL');
      }),
    );
    const simExited = new Promise((r) => sim.once('exit', r));
    sim.kill('SIGTERM');
    await Promise.race([simExited, sleep(10_000)]);
  }
}

const main = process.argv.includes('--worker') ? runWorker : runParent;
main().then(
  () => {
    if (!process.argv.includes('--worker')) process.exit(0);
  },
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
