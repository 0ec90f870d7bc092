// Density of the gateway: N instances paired to simnet (a child process) and idle in ONE gateway
// process. Prints gateway RSS and heap per connected instance for each N, then restarts the gateway
// on the same database and times until every instance is connected again (no QR).
// Targets (docs/design.md): 5,000 connected instances on one node at ≤ 250 KB of gateway RSS each;
// all of them connected again within 60 s of a restart.
// Run: node --expose-gc --import tsx bench/density.ts [N ...]   (default 100 500 1000)
// Env: DENSITY_BUDGET_S (whole run, default 900), DENSITY_RESTORES (restarts timed, default 1),
//      DENSITY_SNAPSHOTS=dir (a heap snapshot after each N, for diffing what one instance retains),
//      DENSITY_PAIR_CONCURRENCY (pairings in flight, default 24), DENSITY_SCAN_DELAY_MS (QR shown → scanned, default 0).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { writeHeapSnapshot } from 'node:v8';
import { UPLOAD_TIMEOUT } from 'baileys';
import { SimnetClient } from '../simnet/src/admin/client.js';
import { loadConfig } from '../src/config.js';
import { createGateway, type Gateway } from '../src/main.js';

const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
const targets = sizes.length ? sizes : [100, 500, 1000];
const budgetMs = Number(process.env.DENSITY_BUDGET_S ?? 900) * 1000;
const started = Date.now();
const PAIR_CONCURRENCY = Number(process.env.DENSITY_PAIR_CONCURRENCY ?? 24);
/** How long the "person" takes to scan a shown QR (0: at once, a burst no human makes). */
const SCAN_DELAY_MS = Number(process.env.DENSITY_SCAN_DELAY_MS ?? 0);
const restores = Math.max(1, Number(process.env.DENSITY_RESTORES ?? 1));
const snapshots = process.env.DENSITY_SNAPSHOTS;

// Baileys 7 rc14 never clears its 30 s pre-key upload timer; unref it so the bench can exit.
const realSetTimeout = globalThis.setTimeout;
globalThis.setTimeout = ((fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) => {
  const t = realSetTimeout(fn, ms, ...args);
  if (ms === UPLOAD_TIMEOUT) t.unref();
  return t;
}) as typeof setTimeout;

const mb = (n: number): string => (n / 1024 / 1024).toFixed(1);
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
const sleep = (ms: number): Promise<void> => new Promise((r) => realSetTimeout(r, ms));
const over = (): boolean => Date.now() - started > budgetMs;

/** Where the RSS is: V8's heap (used of committed), Buffers, and resident anonymous vs file pages. */
function memoryDetail(m: NodeJS.MemoryUsage): string {
  let status = '';
  try {
    status = readFileSync('/proc/self/status', 'utf8');
  } catch {
    // not Linux: the V8 figures alone
  }
  const kb = (field: string): string => {
    const v = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1];
    return v ? `${mb(Number(v) * 1024)} MB` : '?';
  };
  return `heap ${mb(m.heapUsed)} of ${mb(m.heapTotal)} MB, external ${mb(m.external)} MB (array buffers ${mb(m.arrayBuffers)} MB), rss anon ${kb('RssAnon')}, file ${kb('RssFile')}`;
}

/** Event-loop delay and CPU time over one phase: a blocked loop is what stalls pairing and restore. */
function phase(): () => string {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  const cpu = process.cpuUsage();
  const t0 = Date.now();
  return () => {
    h.disable();
    const used = process.cpuUsage(cpu);
    const wall = Date.now() - t0;
    return `loop delay p99 ${(h.percentile(99) / 1e6).toFixed(0)} ms, max ${(h.max / 1e6).toFixed(0)} ms; cpu ${((used.user + used.system) / 1e6).toFixed(1)} s (${(((used.user + used.system) / 1e3 / Math.max(1, wall)) * 100).toFixed(0)}% of one core)`;
  };
}

async function startSimnetChild(): Promise<{ info: { wsUrl: string; adminUrl: string; rootPublicKey: string }; stop(): void }> {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', 'simnet/src/main.ts', '--port', '0', '--quiet'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const info = await new Promise<{ wsUrl: string; adminUrl: string; rootPublicKey: string }>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.once('line', (l) => resolve(JSON.parse(l) as { wsUrl: string; adminUrl: string; rootPublicKey: string }));
    child.once('exit', (c) => reject(new Error(`simnet exited ${c}`)));
  });
  return { info, stop: () => child.kill('SIGTERM') };
}

/** The gateway's settings in both the pairing process and the restore child: silent, on simnet. */
function densityConfig(dataDir: string, info: { wsUrl: string; rootPublicKey: string }) {
  return loadConfig({
    ZAPGATE_HOST: '127.0.0.1',
    ZAPGATE_PORT: '0',
    ZAPGATE_DATA_DIR: dataDir,
    ZAPGATE_LOG_LEVEL: 'silent',
    ZAPGATE_WA_URL: info.wsUrl,
    ZAPGATE_WA_ROOT_KEY: info.rootPublicKey,
    ZAPGATE_COMMAND_TIMEOUT_MS: '60000',
    // Thousands of instances in one account: no per-account cap here.
    ZAPGATE_MAX_INSTANCES_PER_ACCOUNT: '0',
  });
}

async function bootGateway(dataDir: string, info: { wsUrl: string; rootPublicKey: string }): Promise<Gateway> {
  const config = densityConfig(dataDir, info);
  const gateway = await createGateway(config, { collectProcessMetrics: false });
  await gateway.listen();
  return gateway;
}

/** Where one pairing spent its time (ms): waiting for the QR, the scan, until the link was open. */
interface PairTiming {
  qr: number;
  scan: number;
  open: number;
}

async function pairOne(gateway: Gateway, admin: SimnetClient, accountId: string, phone: string, timing: PairTiming[]): Promise<string> {
  const engine = gateway.engine!;
  const t0 = Date.now();
  const { instanceId } = await gateway.instances.create(accountId, phone);
  const qr = await engine.qr(instanceId, 60_000);
  if (!qr) throw new Error('no QR within 60 s');
  const t1 = Date.now();
  if (SCAN_DELAY_MS > 0) await sleep(SCAN_DELAY_MS);
  await admin.scanQr(phone, qr);
  const t2 = Date.now();
  const deadline = t2 + 60_000;
  while (!engine.isConnected(instanceId)) {
    if (Date.now() > deadline) throw new Error('scanned, never connected within 60 s');
    await sleep(50);
  }
  timing.push({ qr: t1 - t0, scan: t2 - t1, open: Date.now() - t2 });
  return instanceId;
}

const pct = (xs: number[], p: number): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

async function main(): Promise<void> {
  const sim = await startSimnetChild();
  const admin = new SimnetClient(sim.info.adminUrl);
  const dataDir = mkdtempSync(join(tmpdir(), 'zapgate-density-'));
  const gateway = await bootGateway(dataDir, sim.info);
  const account = await gateway.accounts.create('density');
  const ids: string[] = [];
  const errors = new Map<string, number>();
  let failures = 0;
  try {
    await sleep(500);
    gc();
    const base = process.memoryUsage();
    console.log(`gateway baseline (0 instances): rss ${mb(base.rss)} MB, heap ${mb(base.heapUsed)} MB`);
    console.log('N\trss total\trss/instance\theap/instance\tconnected\tpairing time');
    for (const n of targets) {
      const t0 = Date.now();
      const done = phase();
      const timing: PairTiming[] = [];
      let next = ids.length;
      // A pool, not batches: one slow pairing does not hold up the others.
      await Promise.all(
        Array.from({ length: PAIR_CONCURRENCY }, async () => {
          while (next < n && !over() && failures < 20) {
            const phone = `55119${String(next++).padStart(8, '0')}`;
            try {
              ids.push(await pairOne(gateway, admin, account.id, phone, timing));
            } catch (err) {
              failures++;
              const msg = (err as Error).message;
              errors.set(msg, (errors.get(msg) ?? 0) + 1);
            }
          }
        }),
      );
      const pairing = done();
      if (errors.size) console.log(`pairing failures: ${JSON.stringify(Object.fromEntries(errors))}`);
      if (ids.length < n) {
        console.log(`stopped at ${ids.length} instances (budget or ${failures} failures)`);
        break;
      }
      // Let the first-login work (pre-key upload, init queries) finish before measuring idle.
      await sleep(3_000);
      gc();
      const m = process.memoryUsage();
      const connected = ids.filter((id) => gateway.engine!.isConnected(id)).length;
      console.log(
        [n, `${mb(m.rss)} MB`, `${((m.rss - base.rss) / n / 1024).toFixed(0)} KB`, `${((m.heapUsed - base.heapUsed) / n / 1024).toFixed(0)} KB`, connected, `${((Date.now() - t0) / 1000).toFixed(1)} s`].join('\t'),
      );
      console.log(`  memory: ${memoryDetail(m)}`);
      const steps = (k: keyof PairTiming): string => `${k} p50 ${pct(timing.map((t) => t[k]), 50)} / p99 ${pct(timing.map((t) => t[k]), 99)} ms`;
      console.log(`  pairing: ${steps('qr')}, ${steps('scan')}, ${steps('open')}; ${pairing}`);
      if (snapshots) console.log(`  heap snapshot: ${writeHeapSnapshot(join(snapshots, `density-${n}.heapsnapshot`))}`);
    }

    // Restart: a fresh gateway process on the same database reconnects every paired instance, no
    // QR. A new process, so its RSS is what a node holding these instances needs from boot.
    await gateway.close();
    for (let round = 1; round <= restores && ids.length > 0; round++) {
      const budget = Math.max(120_000, budgetMs - (Date.now() - started));
      const r = await restoreInChild(dataDir, sim.info, ids.length, budget);
      const perInstance = ((r.rss - r.baseRss) / ids.length / 1024).toFixed(0);
      const marks = Object.entries(r.reached).map(([share, ms]) => `${share}% in ${(ms / 1000).toFixed(1)} s`).join(', ');
      console.log(`restore after restart: ${r.connected}/${ids.length} instances connected in ${(r.ms / 1000).toFixed(1)} s (${marks})`);
      console.log(`  fresh process: rss ${mb(r.baseRss)} MB at boot → ${mb(r.rss)} MB restored = ${perInstance} KB per instance; ${r.phase}`);
      console.log(`  memory: ${r.memory}`);
    }
  } finally {
    await gateway.close().catch(() => {});
    sim.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

interface RestoreResult {
  connected: number;
  ms: number;
  reached: Record<string, number>;
  baseRss: number;
  rss: number;
  phase: string;
  memory: string;
}

/** Runs this script as `--restore-child`: a gateway process that restores and reports one JSON line. */
async function restoreInChild(dataDir: string, info: { wsUrl: string; rootPublicKey: string }, n: number, budgetMs: number): Promise<RestoreResult> {
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!, '--restore-child'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, DENSITY_CHILD: JSON.stringify({ dataDir, info, n, budgetMs }) },
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (c) => reject(new Error(`restore child exited ${c}`)));
  });
  await new Promise((resolve) => child.once('exit', resolve));
  return JSON.parse(line) as RestoreResult;
}

async function restoreChild(): Promise<void> {
  const { dataDir, info, n, budgetMs: childBudget } = JSON.parse(process.env.DENSITY_CHILD!) as { dataDir: string; info: { wsUrl: string; rootPublicKey: string }; n: number; budgetMs: number };
  const config = densityConfig(dataDir, info);
  const gateway = await createGateway(config, { collectProcessMetrics: false });
  gc();
  const baseRss = process.memoryUsage().rss;
  const ids = (await gateway.store.instances.listPaired()).map((r) => r.id);
  const r0 = Date.now();
  const done = phase();
  await gateway.listen();
  const reached: Record<string, number> = {};
  let connected = 0;
  while (Date.now() - r0 < childBudget) {
    connected = ids.filter((id) => gateway.engine!.isConnected(id)).length;
    for (const share of [50, 90]) if (!(share in reached) && connected >= (n * share) / 100) reached[share] = Date.now() - r0;
    if (connected >= n) break;
    await sleep(100);
  }
  const ms = Date.now() - r0;
  const restoring = done();
  // Idle a moment (post-login queries settle), then measure what the restored fleet holds.
  await sleep(3_000);
  gc();
  const m = process.memoryUsage();
  const result: RestoreResult = { connected, ms, reached, baseRss, rss: m.rss, phase: restoring, memory: memoryDetail(m) };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  await gateway.close();
}

(process.argv[2] === '--restore-child' ? restoreChild() : main()).then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
