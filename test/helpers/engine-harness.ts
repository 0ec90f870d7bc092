// End-to-end harness: simnet on loopback, a gateway with the real Baileys engine pointed at it,
// a plain-HTTP webhook receiver, and helpers that only ever talk to the gateway over its HTTP API.
// The gateway and simnet share one VirtualClock the test owns ('flowing': protocol time moves with
// real time, nothing is compressed, and the test jumps it with `h.clock.advance(ms)` when it wants a
// pacing gap, a retry or a QR lifetime to pass). Baileys keeps its own timers on real time.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
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
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async waitFor(match: (h: WebhookHit) => boolean, timeoutMs = 15_000, what = 'webhook'): Promise<WebhookHit> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const hit = this.hits.find(match);
      if (hit) return hit;
      await sleep(25);
    }
    throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(this.hits.map((h) => h.body.type ?? h.body), null, 0).slice(0, 2000)}`);
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
      const deadline = Date.now() + timeoutMs;
      let last: Record<string, unknown> = {};
      while (Date.now() < deadline) {
        last = (await call('GET', `${inst.prefix}/status`)).json;
        // The stored status survives a restart; "connected" also needs the live socket.
        if (last.status === status && (status !== 'connected' || last.connected === true)) return last;
        await sleep(50);
      }
      throw new Error(`status never became ${status}; last ${JSON.stringify(last)}`);
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
