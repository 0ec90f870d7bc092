// End-to-end harness: simnet on loopback, a gateway with the real Baileys engine pointed at it,
// a plain-HTTP webhook receiver, and helpers that only ever talk to the gateway over its HTTP API.
// The gateway and simnet share one VirtualClock the test owns ('flowing': protocol time moves with
// real time, nothing is compressed, and the test jumps it with `h.clock.advance(ms)` when it wants a
// pacing gap, a retry or a QR lifetime to pass). Baileys keeps its own timers on real time.
// Two ways to let protocol time pass while waiting: `sendQueued` (the sender's gaps, typing pauses
// and retries, jumped as soon as every lane waits on them) and `driveUntil` (any wait on a protocol
// timer: a reconnect's backoff, a phone-check gap). Waits on real things (`until`, `waitFor`,
// `waitForStatus`) have generous bounds that turn a hang into a failure; they are not measures.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { Agent, request } from 'undici';
import { startSimnet, SimnetClient, type RunningSimnet, type SimnetOptions } from '../../simnet/src/index.js';
import { loadConfig } from '../../src/config.js';
import { createGateway, type Gateway, type GatewayOverrides } from '../../src/main.js';
import { E2E_COMMAND_TIMEOUT_MS } from './baileys-timers.js';
import { VirtualClock } from './virtual-clock.js';

// jsqr is CommonJS with an ESM-style default export in its typings: take whichever shape loaded.
type Decode = (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
const jsQRLoaded = jsQRModule as unknown as Decode | { default: Decode };
const jsQR: Decode = typeof jsQRLoaded === 'function' ? jsQRLoaded : jsQRLoaded.default;

export interface Http {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  json: Record<string, unknown>;
}

export interface Instance {
  instanceId: string;
  instanceToken: string;
  prefix: string;
}

export interface WebhookHit {
  path: string;
  body: Record<string, unknown>;
}

/** Receives every webhook delivery; lets tests wait for one that matches. */
export class WebhookReceiver {
  readonly hits: WebhookHit[] = [];
  private server: Server | null = null;
  /** Woken at every delivery, so a wait ends with the delivery it waits for, not at the next poll. */
  private readonly waiters = new Set<() => void>();
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        try {
          this.hits.push({ path: req.url ?? '/', body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
        } catch {
          // not JSON: not ours to record
        }
        res.writeHead(200).end('{}');
        for (const wake of [...this.waiters]) wake();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The first delivery that matches, once it has come (bounded by `timeoutMs` of real time). */
  waitFor(match: (h: WebhookHit) => boolean, timeoutMs = 15_000, what = 'webhook'): Promise<WebhookHit> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        // `match` may look at every hit (a count): it is asked again at each delivery.
        const hit = this.hits.find(match);
        if (!hit) return;
        done();
        resolve(hit);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out waiting for ${what}; got ${JSON.stringify(this.hits.map((h) => h.body.type ?? h.body), null, 0).slice(0, 2000)}`));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // The outbox keeps connections alive; close() alone would wait for them to time out.
    server.closeAllConnections();
    await closed;
  }
}

/** Polls `read` until `done` holds (bounded), failing with `what` and the last value read. */
export async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await read();
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last ${JSON.stringify(last).slice(0, 500)}`);
    await sleep(50);
    last = await read();
  }
  return last;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export interface DriveOptions {
  /**
   * Only a timer due within this many protocol ms is jumped to (default 60 s): an hourly sweep or a
   * day's retention never fires early because a test waited.
   */
  withinMs?: number;
  /** Real ms before giving up (default 30 s): a bound on a hang, not a measure. */
  timeoutMs?: number;
}

/** Real ms between looks while driving the clock: the work a jump started gets this long to show. */
const DRIVE_PAUSE_MS = 20;

/** True once `work` resolves, false if `ms` of real time pass first. */
function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(false), Math.max(0, ms));
    work.then(
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

export interface Harness {
  /** The gateway's and simnet's clock: advance it to let protocol time pass. */
  clock: VirtualClock;
  simnet: RunningSimnet;
  admin: SimnetClient;
  gateway: Gateway;
  url: string;
  dataDir: string;
  webhooks: WebhookReceiver;
  clientToken: string;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Http>;
  createInstance(name?: string): Promise<Instance>;
  /** QR via the PNG endpoint, decoded like a phone camera would. */
  qrFromPng(inst: Instance): Promise<string>;
  /** Creates the instance, scans its QR with `phone`, waits for `connected`, points webhooks at the receiver. */
  pairNew(phone: string, name?: string): Promise<Instance>;
  waitForStatus(inst: Instance, status: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  /**
   * Polls `read` until `done` holds, letting protocol time pass as fast as the gateway gets to it:
   * between looks, the clock jumps to the next timer due within `withinMs` (a reconnect's backoff,
   * a phone-check gap, a receipt the network sends later). For waits on the gateway's own pacing.
   */
  driveUntil<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, options?: DriveOptions): Promise<T>;
  /**
   * Lets the queued messages of `inst` (or of every instance) go without waiting out their pacing:
   * whenever every sender lane waits (a gap, a typing pause, a retry's backoff) while messages are
   * still waiting, the clock jumps to the next timer. Resolves once none is waiting: each was
   * handed to the network (and acknowledged) or failed.
   */
  sendQueued(inst?: Instance, options?: DriveOptions): Promise<void>;
  /** A new gateway over the same database (a restart); the old one is closed first. */
  restartGateway(): Promise<void>;
  /** Closes the gateway (as on SIGTERM); startGateway() brings a new one up on the same data. */
  stopGateway(): Promise<void>;
  startGateway(): Promise<void>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** Default: a flowing VirtualClock starting at the wall clock's now. */
  clock?: VirtualClock;
  simnet?: SimnetOptions;
  engine?: GatewayOverrides['engine'];
  phoneCheckJobs?: GatewayOverrides['phoneCheckJobs'];
  env?: Record<string, string>;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const clock = options.clock ?? new VirtualClock();
  const simnet = await startSimnet({ ...options.simnet, clock });
  const admin = new SimnetClient(simnet.adminUrl);
  const webhooks = new WebhookReceiver();
  await webhooks.start();
  const dataDir = mkdtempSync(join(tmpdir(), 'zapgate-e2e-'));
  const mediaAgent = new HttpsAgent({ ca: simnet.mediaCaPem, keepAlive: false });
  const agent = new Agent({ connections: 8, keepAliveTimeout: 1_000 });
  const env = {
    ZAPGATE_HOST: '127.0.0.1',
    ZAPGATE_PORT: '0',
    ZAPGATE_DATA_DIR: dataDir,
    ZAPGATE_LOG_LEVEL: process.env.ZAPGATE_LOG_LEVEL ?? 'silent',
    ZAPGATE_RATE_LIMIT: '0',
    ZAPGATE_WA_URL: simnet.wsUrl,
    ZAPGATE_WA_ROOT_KEY: simnet.rootPublicKey,
    // History-sync blobs are fetched by path from the network's media host.
    ZAPGATE_WA_MEDIA_HOST: simnet.mediaHost,
    ZAPGATE_WEBHOOK_ALLOW_HTTP: 'true',
    ZAPGATE_ALLOW_HOSTS: '127.0.0.1',
    ZAPGATE_COMMAND_TIMEOUT_MS: String(E2E_COMMAND_TIMEOUT_MS),
    ...options.env,
  };
  let gateway: Gateway;
  let url = '';
  let clientToken = '';

  async function boot(): Promise<void> {
    gateway = await createGateway(loadConfig(env), {
      sqliteFile: join(dataDir, 'zapgate.db'),
      collectProcessMetrics: false,
      clock,
      engine: { mediaAgent, ...options.engine },
      ...(options.phoneCheckJobs ? { phoneCheckJobs: options.phoneCheckJobs } : {}),
    });
    if (!clientToken) clientToken = (await gateway.accounts.create('e2e')).clientToken;
    url = await gateway.listen();
  }
  await boot();

  async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Http> {
    const h: Record<string, string> = { 'client-token': clientToken, ...headers };
    if (body !== undefined) h['content-type'] = 'application/json';
    const res = await request(url + path, {
      method: method as 'GET',
      headers: h,
      body: body === undefined ? undefined : JSON.stringify(body),
      dispatcher: agent,
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
    });
    const buf = Buffer.from(await res.body.arrayBuffer());
    let json: Record<string, unknown> = {};
    try {
      const parsed: unknown = JSON.parse(buf.toString('utf8'));
      if (parsed && typeof parsed === 'object') json = parsed as Record<string, unknown>;
    } catch {
      // binary body (PNG)
    }
    return { status: res.statusCode, headers: res.headers, body: buf, json };
  }

  const harness: Harness = {
    clock,
    simnet,
    admin,
    get gateway() {
      return gateway;
    },
    get url() {
      return url;
    },
    dataDir,
    webhooks,
    get clientToken() {
      return clientToken;
    },
    call,
    async createInstance(name = 'e2e') {
      const r = await call('POST', '/instances', { name });
      if (r.status !== 201) throw new Error(`create instance: ${r.status} ${r.body.toString()}`);
      const instanceId = String(r.json.instanceId);
      const instanceToken = String(r.json.instanceToken);
      return { instanceId, instanceToken, prefix: `/instances/${instanceId}/token/${instanceToken}` };
    },
    async qrFromPng(inst) {
      const r = await call('GET', `${inst.prefix}/qr-code/image`);
      if (r.status !== 200) throw new Error(`qr-code/image: ${r.status} ${r.body.toString().slice(0, 200)}`);
      if (r.headers['content-type'] !== 'image/png') throw new Error(`qr-code/image content-type ${String(r.headers['content-type'])}`);
      const png = PNG.sync.read(r.body);
      const code = jsQR(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), png.width, png.height);
      if (!code) throw new Error('the QR image did not decode');
      return code.data;
    },
    async waitForStatus(inst, status, timeoutMs = 20_000) {
      return until(
        `status ${status}`,
        async () => (await call('GET', `${inst.prefix}/status`)).json,
        // The stored status survives a restart; "connected" also needs the live socket.
        (last) => last.status === status && (status !== 'connected' || last.connected === true),
        timeoutMs,
      );
    },
    async driveUntil(what, read, done, options = {}) {
      const withinMs = options.withinMs ?? 60_000;
      const deadline = performance.now() + (options.timeoutMs ?? 30_000);
      for (;;) {
        const last = await read();
        if (done(last)) return last;
        if (performance.now() > deadline) throw new Error(`timed out waiting for ${what} (clock driven to ${new Date(clock.now()).toISOString()}); last ${JSON.stringify(last).slice(0, 500)}`);
        await sleep(DRIVE_PAUSE_MS);
        const next = clock.nextAt();
        if (next !== null && next - clock.now() <= withinMs) await clock.advanceTo(next);
      }
    },
    async sendQueued(inst, options = {}) {
      const withinMs = options.withinMs ?? 60_000;
      const timeoutMs = options.timeoutMs ?? 60_000;
      const deadline = performance.now() + timeoutMs;
      const waiting = async (): Promise<number> => {
        const messages = gateway.store.messages;
        // Moves to `sent` are written in batches: flushed first, a sent message never counts as waiting.
        await messages.drain();
        return inst ? messages.countWaiting(inst.instanceId) : messages.countAllWaiting();
      };
      for (;;) {
        const sender = gateway.sender;
        if (!sender) return;
        // Every lane is waiting (on time or on an event) or has nothing to do.
        const settled = await within(sender.idle(), deadline - performance.now());
        const left = await waiting();
        if (left === 0) return;
        if (!settled || performance.now() > deadline) throw new Error(`sendQueued: ${left} message(s) still waiting after ${timeoutMs} ms (clock at ${new Date(clock.now()).toISOString()})`);
        const next = clock.nextAt();
        if (next !== null && next - clock.now() <= withinMs) await clock.advanceTo(next);
        // Waiting on an event (a reconnect) or on a timer further away: look again shortly.
        else await sleep(DRIVE_PAUSE_MS);
      }
    },
    async pairNew(phone, name = 'e2e') {
      await admin.createUser({ phone, pushName: `owner ${phone}` }).catch(() => undefined);
      const inst = await harness.createInstance(name);
      const qr = await harness.qrFromPng(inst);
      await admin.scanQr(phone, qr);
      await harness.waitForStatus(inst, 'connected');
      const hook = await call('PUT', `${inst.prefix}/update-every-webhooks`, { value: `${webhooks.url}/${inst.instanceId}`, notifySentByMe: false });
      if (hook.status !== 200) throw new Error(`update-every-webhooks: ${hook.status} ${hook.body.toString()}`);
      return inst;
    },
    async restartGateway() {
      await gateway.close();
      await boot();
    },
    async stopGateway() {
      await gateway.close();
    },
    async startGateway() {
      await boot();
    },
    async close() {
      await gateway.close();
      await agent.close();
      mediaAgent.destroy();
      await webhooks.close();
      await simnet.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}
