// Runs the real gateway as a child process (`node bin/zapgate.js serve`) on a free loopback port,
// with a hermetic environment: no ZAPGATE_* variable leaks in from the parent, no .env is read.
// The child runs the TypeScript sources (ZAPGATE_FROM_SOURCE=1, through tsx), never dist/: a test
// must never pass or fail on a stale build. test/e2e/cli-dist.test.ts covers the compiled build.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseScrape } from './prometheus.js';
import { WAIT_TIMEOUT_MS, waitFor, WaitTimeout, within } from './wait.js';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/zapgate.js', import.meta.url));
/** Ends a gateway whose test process is gone (test/helpers/die-with-parent.mjs). */
const DIE_WITH_PARENT = ['--import', new URL('./die-with-parent.mjs', import.meta.url).href];

/**
 * A port nobody listens on right now, for a server another process will open. It is drawn at random
 * below the kernel's ephemeral range (net.ipv4.ip_local_port_range), which is where every `listen(0)`
 * and every outgoing connection of the test run takes its ports: a port released here and bound a
 * moment later by the child cannot have been handed meanwhile to another test's receiver (that race
 * once let a webhook receiver answer a gateway's /readyz and `POST /instances` with `200 {}`).
 */
export async function freePort(): Promise<number> {
  const [ephemeralLow] = ephemeralRange();
  const low = 10_000;
  const high = Math.max(low + 1_000, ephemeralLow) - 1;
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port found between ${low} and ${high}`);
}

function ephemeralRange(): [number, number] {
  try {
    const [lowText, highText] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const low = Number(lowText);
    const high = Number(highText);
    if (Number.isInteger(low) && Number.isInteger(high) && low > 11_000) return [low, high];
  } catch {
    // Not Linux: Linux's default range.
  }
  return [32_768, 60_999];
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * The environment of a `bin/zapgate.js` child: the parent's, less every ZAPGATE_* setting (a test
 * states the ones it means), running the sources rather than a possibly stale dist/.
 */
export function cliEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('ZAPGATE_')) env[k] = v;
  return { ...env, ZAPGATE_FROM_SOURCE: '1', ...extra };
}

export interface GatewayProcess {
  readonly child: ChildProcess;
  readonly url: string;
  readonly port: number;
  /** Everything written so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or signal) once the process has ended. */
  readonly exited: Promise<number | NodeJS.Signals | null>;
  kill9(): Promise<void>;
  /**
   * SIGTERM (graceful drain), then SIGKILL if it takes longer than `graceMs`: by default longer than
   * the gateway's own shutdown bound (ZAPGATE_SHUTDOWN_TIMEOUT_MS, 25 s), so the exit is its own.
   */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnOptions {
  dataDir: string;
  /** ZAPGATE_* settings on top of loopback host, the chosen port and the data dir. */
  env?: Record<string, string>;
  port?: number;
  /** Working directory (defaults to the data dir, so no stray .env is loaded). */
  cwd?: string;
  /** Extra node flags, e.g. ['--cpu-prof']. */
  nodeArgs?: string[];
  /** false: return at once, without waiting for /readyz (for a process expected to refuse to start). */
  waitReady?: boolean;
  /** Another bin/zapgate.js, run as it is (a compiled build's, test/e2e/cli-dist.test.ts), not from the sources. */
  bin?: string;
}

export async function spawnGateway(options: SpawnOptions): Promise<GatewayProcess> {
  // A port chosen here can still be taken by another test's freePort before the child listens: the
  // child then exits saying so (src/start-errors.ts), and a new port is tried.
  for (let attempt = 1; ; attempt++) {
    try {
      return await spawnOnce(options, options.port ?? (await freePort()));
    } catch (err) {
      if (options.port !== undefined || attempt >= 3 || !(err instanceof PortTaken)) throw err;
    }
  }
}

class PortTaken extends Error {}

/**
 * How long a start may take before it counts as hung: a few seconds on a quiet machine (tsx
 * compiles the sources), over a minute beside CPU-bound work on two cores.
 */
const START_TIMEOUT_MS = 2 * WAIT_TIMEOUT_MS;

async function spawnOnce(options: SpawnOptions, port: number): Promise<GatewayProcess> {
  const env = cliEnv();
  if (options.bin) delete env.ZAPGATE_FROM_SOURCE;
  Object.assign(env, {
    ZAPGATE_HOST: '127.0.0.1',
    ZAPGATE_PORT: String(port),
    ZAPGATE_DATA_DIR: options.dataDir,
    ZAPGATE_LOG_LEVEL: 'warn',
    // The engine must never reach WhatsApp's own servers from a test: point it at a loopback
    // port where nothing listens (tests that need a network pass simnet's URL instead).
    ZAPGATE_WA_URL: `ws://127.0.0.1:${await freePort()}/ws/chat`,
    ...options.env,
  });
  const child = spawn(process.execPath, [...DIE_WITH_PARENT, ...(options.nodeArgs ?? []), options.bin ?? BIN, 'serve'], {
    cwd: options.cwd ?? options.dataDir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal));
  });
  const url = `http://127.0.0.1:${port}`;
  const proc: GatewayProcess = {
    child,
    url,
    port,
    stdout: () => out,
    stderr: () => err,
    exited,
    async kill9() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop(graceMs = 30_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      // graceMs is the supervisor's patience (a test's scenario), not a wait for an event.
      const done = await within('the exit after SIGTERM', exited, { timeoutMs: graceMs }).then(
        () => true,
        () => false,
      );
      if (!done) await proc.kill9();
    },
  };
  if (options.waitReady === false) return proc;
  try {
    await waitReady(proc, START_TIMEOUT_MS);
  } catch (e) {
    await proc.kill9();
    throw e;
  }
  return proc;
}

async function waitReady(proc: GatewayProcess, timeoutMs: number): Promise<void> {
  let exitedEarly = false;
  void proc.exited.then(() => (exitedEarly = true));
  const ready = async (): Promise<boolean> => {
    if (exitedEarly) {
      const message = `gateway exited during start-up:\n${proc.stdout()}\n${proc.stderr()}`;
      throw /port \d+ is already in use/.test(proc.stderr()) ? new PortTaken(message) : new Error(message);
    }
    try {
      const res = await fetch(`${proc.url}/readyz`, { signal: AbortSignal.timeout(1_000) });
      const body = await res.text();
      // Only a gateway's readiness answer counts, never whatever else might hold the port.
      return res.status === 200 && body === '{"status":"ok"}';
    } catch {
      return false; // not listening yet
    }
  };
  try {
    await waitFor('the gateway to answer /readyz', ready, { timeoutMs, pollMs: 100 });
  } catch (err) {
    if (err instanceof WaitTimeout) throw new Error(`gateway not ready after ${timeoutMs} ms:\n${proc.stdout()}\n${proc.stderr()}`);
    throw err;
  }
}

/**
 * The sum of a metric's samples on the gateway's /metrics whose labels include `labels` (0 when it
 * has none): e.g. zapgate_webhook_pending, what its outbox still has to deliver.
 */
export async function metricValue(url: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  const res = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(30_000) });
  const scrape = parseScrape(await res.text());
  return scrape.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((n, s) => n + s.value, 0);
}

/**
 * The settings of a gateway process that talks to an in-process simnet: its network and root key,
 * its media CA trusted (written to `caFile`), the time scale and simnet's origin, webhooks allowed to a loopback receiver
 * over plain HTTP, no rate limit, and `token` as the account's Client-Token.
 */
export function simnetGatewayEnv(
  sim: { wsUrl: string; rootPublicKey: string; mediaCaPem: string; timeOrigin?: number | undefined },
  caFile: string,
  token: string,
  timeScale: number,
): Record<string, string> {
  writeFileSync(caFile, sim.mediaCaPem);
  return {
    // One time-lapse for simnet and every gateway process of the test, restarts included: under a
    // time scale the clocks agree only from a shared origin (src/clock.ts).
    ...(sim.timeOrigin === undefined ? {} : { ZAPGATE_TIME_ORIGIN: String(sim.timeOrigin) }),
    ZAPGATE_CLIENT_TOKEN: token,
    ZAPGATE_RATE_LIMIT: '0',
    ZAPGATE_WA_URL: sim.wsUrl,
    ZAPGATE_WA_ROOT_KEY: sim.rootPublicKey,
    ZAPGATE_TIME_SCALE: String(timeScale),
    ZAPGATE_WEBHOOK_ALLOW_HTTP: 'true',
    ZAPGATE_ALLOW_HOSTS: '127.0.0.1',
    NODE_EXTRA_CA_CERTS: caFile,
  };
}
