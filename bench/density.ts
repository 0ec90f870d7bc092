// Density of the gateway: N instances paired to simnet (a child process) and idle in ONE gateway
// process. Prints gateway RSS and heap per connected instance for each N, then restarts the gateway
// on the same database and times until every instance is connected again (no QR).
// Targets (DESIGN.md): ≥ 1,000 instances at ≤ 2 MB each; 1,000 restored in ≤ 60 s.
// Run: node --expose-gc --import tsx bench/density.ts [N ...]   (default 100 500 1000; budget DENSITY_BUDGET_S, default 900)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { UPLOAD_TIMEOUT } from 'baileys';
import { SimnetClient } from '../simnet/src/admin/client.js';
import { loadConfig } from '../src/config.js';
import { createGateway, type Gateway } from '../src/main.js';

const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
const targets = sizes.length ? sizes : [100, 500, 1000];
const budgetMs = Number(process.env.DENSITY_BUDGET_S ?? 900) * 1000;
const started = Date.now();
const PAIR_CONCURRENCY = 24;

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

async function bootGateway(dataDir: string, info: { wsUrl: string; rootPublicKey: string }): Promise<Gateway> {
  const config = loadConfig({
    ZAPGATE_HOST: '127.0.0.1',
    ZAPGATE_PORT: '0',
    ZAPGATE_DATA_DIR: dataDir,
    ZAPGATE_LOG_LEVEL: 'silent',
    ZAPGATE_WA_URL: info.wsUrl,
    ZAPGATE_WA_ROOT_KEY: info.rootPublicKey,
    ZAPGATE_COMMAND_TIMEOUT_MS: '60000',
  });
  const gateway = await createGateway(config, { collectProcessMetrics: false });
  await gateway.listen();
  return gateway;
}

async function pairOne(gateway: Gateway, admin: SimnetClient, accountId: string, phone: string): Promise<string> {
  const engine = gateway.engine!;
  const { instanceId } = await gateway.instances.create(accountId, phone);
  const qr = await engine.qr(instanceId, 60_000);
  if (!qr) throw new Error('no QR');
  await admin.scanQr(phone, qr);
  const deadline = Date.now() + 60_000;
  while (!engine.isConnected(instanceId)) {
    if (Date.now() > deadline) throw new Error(`instance for ${phone} never connected`);
    await sleep(50);
  }
  return instanceId;
}

async function main(): Promise<void> {
  const sim = await startSimnetChild();
  const admin = new SimnetClient(sim.info.adminUrl);
  const dataDir = mkdtempSync(join(tmpdir(), 'zapgate-density-'));
  let gateway = await bootGateway(dataDir, sim.info);
  const account = await gateway.accounts.create('density');
  const ids: string[] = [];
  let failures = 0;
  try {
    await sleep(500);
    gc();
    const base = process.memoryUsage();
    console.log(`gateway baseline (0 instances): rss ${mb(base.rss)} MB, heap ${mb(base.heapUsed)} MB`);
    console.log('N\trss total\trss/instance\theap/instance\tconnected\tpairing time');
    for (const n of targets) {
      const t0 = Date.now();
      while (ids.length < n && !over() && failures < 20) {
        const batch = Math.min(PAIR_CONCURRENCY, n - ids.length);
        const results = await Promise.allSettled(
          Array.from({ length: batch }, (_, i) => pairOne(gateway, admin, account.id, `55119${String(ids.length + i).padStart(8, '0')}`)),
        );
        for (const r of results) {
          if (r.status === 'fulfilled') ids.push(r.value);
          else {
            failures++;
            console.error(`pairing failed: ${(r.reason as Error).message}`);
          }
        }
      }
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
    }

    // Restart: a new gateway on the same database reconnects every paired instance, no QR.
    const n = ids.length;
    await gateway.close();
    const r0 = Date.now();
    gateway = await bootGateway(dataDir, sim.info);
    const restoreBudget = Math.max(120_000, budgetMs - (Date.now() - started));
    let connected = 0;
    while (Date.now() - r0 < restoreBudget) {
      connected = ids.filter((id) => gateway.engine!.isConnected(id)).length;
      if (connected === n) break;
      await sleep(100);
    }
    const restoreS = (Date.now() - r0) / 1000;
    gc();
    const after = process.memoryUsage();
    console.log(`restore after restart: ${connected}/${n} instances connected in ${restoreS.toFixed(1)} s (rss ${mb(after.rss)} MB after restore)`);
  } finally {
    await gateway.close();
    sim.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
