// How long a gateway takes from spawn to a green /readyz, compiled build, empty data dir: the time
// every restart (a deploy, a crash, a cluster node joining) keeps the instances of that node down.
// Spawns `bin/zapgate.js serve` STARTUP_RUNS times (needs `npm run build` first) and prints the
// median and worst. Before the serializer cache (src/http/serializer-cache.ts): median 5.8 s; after: 1.8 s (this 2-core machine, idle).
// Run: npm run build && node --import tsx bench/startup.ts
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const RUNS = Number(process.env.STARTUP_RUNS ?? 5);
const bin = join(import.meta.dirname, '..', 'bin', 'zapgate.js');

async function once(port: number): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), 'zapgate-startup-'));
  const started = performance.now();
  const child = spawn(process.execPath, [bin, 'serve'], {
    env: { ...process.env, ZAPGATE_DATA_DIR: dataDir, ZAPGATE_PORT: String(port), ZAPGATE_HOST: '127.0.0.1', ZAPGATE_LOG_LEVEL: 'silent' },
    stdio: 'ignore',
  });
  try {
    for (let i = 0; i < 3000; i++) {
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(1000) }).then((r) => r.status === 200, () => false);
      if (ok) return performance.now() - started;
      await sleep(10);
    }
    throw new Error('the gateway did not get ready within 30 s');
  } finally {
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const times: number[] = [];
for (let i = 0; i < RUNS; i++) times.push(await once(20_000 + ((process.pid + i) % 20_000)));
times.sort((a, b) => a - b);
console.log(`spawn → /readyz over ${RUNS} runs: median ${times[Math.floor(RUNS / 2)]!.toFixed(0)} ms, worst ${times.at(-1)!.toFixed(0)} ms`);
