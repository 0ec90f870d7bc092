// Webhook test harness: a test CA and certificate minted in-process (simnet/src/media/certs.ts), HTTPS receivers on loopback
// that record what they get (and when, on the gateway's clock), and a restartable in-process gateway
// (same SQLite file across restarts) whose outbox trusts the test CA, on a clock the test may own.
// Nothing here ever talks to anything but loopback.
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { Agent, request as undiciRequest } from 'undici';
import { mintTestCertificates } from '../../simnet/src/media/certs.js';
import type { Clock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { createGateway, type Gateway } from '../../src/main.js';
import { createAddressGuard, type Resolver } from '../../src/net/address-guard.js';
import type { OutboxTuning } from '../../src/outbox/index.js';
import { offlineSessions } from '../../src/sessions/offline-sessions.js';
import { WAIT_TIMEOUT_MS, waitFor } from './wait.js';

// ---------------------------------------------------------------------------------------------
// Test PKI

export interface TestPki {
  /** PEM of the CA that signed the receivers' certificate. */
  readonly ca: string;
  readonly key: Buffer;
  readonly cert: Buffer;
}

let pki: TestPki | undefined;

/** A CA and a server certificate for 127.0.0.1, 127.0.0.2, ::1 and hooks.test (once per process). */
export function testPki(): TestPki {
  if (pki !== undefined) return pki;
  const minted = mintTestCertificates({ caName: 'zapgate test CA', serverName: '127.0.0.1', ips: ['127.0.0.1', '127.0.0.2', '::1'], dnsNames: ['hooks.test'], days: 2 });
  pki = { ca: minted.caPem, key: Buffer.from(minted.keyPem), cert: Buffer.from(minted.certPem) };
  return pki;
}

// ---------------------------------------------------------------------------------------------
// Receivers

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** When it arrived, on the receiver's clock (the gateway's, when the test passed it). */
  receivedAt: number;
}

/** What a receiver answers: a status (with headers), or `hang` (never answers). */
export type Answer = { status: number; headers?: Record<string, string> } | 'hang';

export interface Receiver {
  readonly host: string;
  readonly port: number;
  /** `https://<host>:<port>` (IPv6 hosts bracketed). */
  readonly origin: string;
  readonly requests: ReceivedRequest[];
  /** Decides each answer; default 200. */
  answer: (req: ReceivedRequest) => Answer;
  /** Requests answered `hang` and not released yet. */
  readonly held: number;
  /** Answers the oldest held request. */
  release(status?: number): void;
  /** Resolves once `predicate` holds over the requests so far; rejects after `timeoutMs` (a hang guard). */
  waitFor(predicate: (requests: readonly ReceivedRequest[]) => boolean, timeoutMs?: number, what?: string): Promise<void>;
  /** Stops listening and drops connections: the receiver is "down" (connection refused). */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

/** The wall clock, for receivers of a gateway that runs on it. */
const wallClock: Pick<Clock, 'now'> = { now: () => Date.now() };

/** `clock`: the gateway's, so that a request's webhook-timestamp can be checked against the time it arrived. */
export async function startReceiver(host = '127.0.0.1', certs: TestPki = testPki(), clock: Pick<Clock, 'now'> = wallClock): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  let hanging: ServerResponse[] = [];
  let server: https.Server | undefined;
  let port = 0;
  let waiters: (() => void)[] = [];

  const receiver: Receiver = {
    host,
    get port() {
      return port;
    },
    get origin() {
      return `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
    },
    requests,
    answer: () => ({ status: 200 }),
    get held() {
      return hanging.length;
    },
    release(status = 200) {
      const res = hanging.shift();
      if (res === undefined) throw new Error('no held request to release');
      res.writeHead(status);
      res.end();
    },
    waitFor(predicate, timeoutMs = WAIT_TIMEOUT_MS, what = 'the expected webhook requests') {
      return new Promise<void>((resolve, reject) => {
        const check = (): boolean => {
          if (!predicate(requests)) return false;
          clearTimeout(timer);
          resolve();
          return true;
        };
        const timer = setTimeout(() => {
          waiters = waiters.filter((w) => w !== listener);
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what} (got ${requests.length} requests)`));
        }, timeoutMs);
        const listener = (): void => {
          if (check()) waiters = waiters.filter((w) => w !== listener);
        };
        if (!check()) waiters.push(listener);
      });
    },
    async down() {
      const s = server;
      server = undefined;
      if (s === undefined) return;
      for (const res of hanging) res.destroy();
      hanging = [];
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
    async up() {
      if (server !== undefined) return;
      const s = https.createServer({ key: certs.key, cert: certs.cert });
      s.on('request', (req: IncomingMessage, res: ServerResponse) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const r: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: clock.now() };
          requests.push(r);
          const a = receiver.answer(r);
          if (a === 'hang') hanging.push(res);
          else {
            res.writeHead(a.status, a.headers);
            res.end();
          }
          for (const w of [...waiters]) w();
        });
      });
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(port, host, () => resolve());
      });
      port = (s.address() as AddressInfo).port;
      server = s;
    },
    close() {
      return receiver.down();
    },
  };
  await receiver.up();
  return receiver;
}

// ---------------------------------------------------------------------------------------------
// Gateway

export interface HarnessOptions {
  /** ZAPGATE_* variables on top of the quiet, loopback defaults. */
  env?: Record<string, string>;
  /** The guard's DNS; the default knows no name at all (tests use IP literals). */
  resolve?: Resolver;
  outbox?: Partial<Omit<OutboxTuning, 'allowHttp'>>;
  /** Opens the database another gateway left in this directory (deleted by close()). */
  dataDir?: string;
  /** The gateway's clock (a test's VirtualClock, to jump retries); default the wall clock. */
  clock?: Clock;
}

export interface HarnessInstance {
  id: string;
  token: string;
  prefix: string;
}

export interface HttpAnswer {
  status: number;
  body: unknown;
  json: Record<string, unknown>;
}

export interface Harness {
  readonly gateway: Gateway;
  readonly clientToken: string;
  readonly dataDir: string;
  createInstance(name?: string): Promise<HarnessInstance>;
  request(method: string, path: string, body?: unknown): Promise<HttpAnswer>;
  /** close() then createGateway() on the same database: what a process restart does. */
  restart(): Promise<void>;
  /** Stops the gateway and deletes its data. */
  close(): Promise<void>;
}

const noDns: Resolver = async (host) => {
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'zapgate-webhooks-'));
  const config = loadConfig({
    ZAPGATE_HOST: '127.0.0.1',
    ZAPGATE_PORT: '0',
    ZAPGATE_DATA_DIR: dataDir,
    ZAPGATE_LOG_LEVEL: process.env.ZAPGATE_LOG_LEVEL ?? 'silent',
    ZAPGATE_RATE_LIMIT: '0',
    ...options.env,
  });
  const boot = async (): Promise<{ gateway: Gateway; url: string }> => {
    const guard = createAddressGuard({ allowHosts: config.allowHosts, allowHttp: config.webhookAllowHttp, resolve: options.resolve ?? noDns });
    const gateway = await createGateway(config, {
      sqliteFile: join(dataDir, 'zapgate.db'),
      guard,
      collectProcessMetrics: false,
      sessions: offlineSessions(),
      outbox: { ca: testPki().ca, ...options.outbox },
      ...(options.clock ? { clock: options.clock } : {}),
    });
    return { gateway, url: await gateway.listen() };
  };

  let current = await boot();
  const account = await current.gateway.accounts.create('webhooks');
  const agent = new Agent({ connections: 4, keepAliveTimeout: 1_000 });

  async function request(method: string, path: string, body?: unknown): Promise<HttpAnswer> {
    const headers: Record<string, string> = { 'client-token': account.clientToken };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await undiciRequest(current.url + path, {
      method: method as 'GET',
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      dispatcher: agent,
      headersTimeout: 20_000,
      bodyTimeout: 20_000,
    });
    const text = await res.body.text();
    const parsed: unknown = text === '' ? undefined : JSON.parse(text);
    const json = parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
    return { status: res.statusCode, body: parsed, json };
  }

  return {
    get gateway() {
      return current.gateway;
    },
    clientToken: account.clientToken,
    dataDir,
    async createInstance(name = 'hooks') {
      const c = await current.gateway.instances.create(account.id, name);
      return { id: c.instanceId, token: c.instanceToken, prefix: `/instances/${c.instanceId}/token/${c.instanceToken}` };
    },
    request,
    async restart() {
      await current.gateway.close();
      current = await boot();
    },
    async close() {
      await agent.close();
      await current.gateway.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Polls `check` until it returns true; throws after `timeoutMs` (a hang guard: test/helpers/wait.ts). */
export async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = WAIT_TIMEOUT_MS, what = 'the condition'): Promise<void> {
  await waitFor(what, check, { timeoutMs, pollMs: 10 });
}

function headersOf(h: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/**
 * Verifies a request the way a Standard Webhooks receiver does, with the reference implementation
 * (`standardwebhooks`), but against the gateway's clock: webhook-timestamp is the gateway's time,
 * which a test's virtual clock may have moved hours away from the wall clock, so the package's own
 * check (against Date.now()) would refuse it. The timestamp must be within `toleranceS` of when the
 * request arrived, and one of the signatures must be the package's for that id, time and body.
 * Returns the payload; throws like `Webhook.verify` otherwise.
 */
export function verifySigned(secret: string, r: ReceivedRequest, toleranceS = 300): Record<string, unknown> {
  const headers = headersOf(r.headers);
  const id = headers['webhook-id'];
  const timestamp = Number(headers['webhook-timestamp']);
  const signatures = (headers['webhook-signature'] ?? '').split(' ');
  if (!id || !Number.isInteger(timestamp) || signatures.length === 0) throw new Error('missing webhook headers');
  if (Math.abs(timestamp - r.receivedAt / 1000) > toleranceS) throw new Error(`webhook-timestamp ${timestamp} is more than ${toleranceS} s from the arrival (${Math.floor(r.receivedAt / 1000)})`);
  const expected = new Webhook(secret).sign(id, new Date(timestamp * 1000), r.body);
  if (!signatures.includes(expected)) throw new Error('no matching signature');
  return JSON.parse(r.body) as Record<string, unknown>;
}
