// Builds an in-process gateway listening on 127.0.0.1:0 with a temp SQLite file, no engine and a
// fake DNS resolver, and talks to it over real HTTP (undici). Used by the HTTP contract tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingHttpHeaders } from 'node:http';
import assert from 'node:assert/strict';
import { request as undiciRequest, Agent } from 'undici';
import { ERROR_CODES } from '../../src/errors.js';
import { loadConfig } from '../../src/config.js';
import type { Clock } from '../../src/clock.js';
import { createGateway, type Gateway, type GatewayOverrides } from '../../src/main.js';
import { createAddressGuard, type ResolvedAddress } from '../../src/net/address-guard.js';
import { offlineSessions } from '../../src/sessions/offline-sessions.js';
import type { SessionsPort } from '../../src/sessions/port.js';

/** Names the fake resolver knows; any other name fails like NXDOMAIN (no real DNS, ever). */
export const FAKE_DNS: Readonly<Record<string, string>> = {
  'hooks.example.com': '93.184.216.34',
  // The webhook URL the OpenAPI examples and the README use: a name that resolves publicly.
  'example.com': '93.184.215.14',
  'localhost': '127.0.0.1',
  'internal.example.com': '10.0.0.7',
  'metadata.example.com': '169.254.169.254',
};

async function fakeResolve(host: string): Promise<ResolvedAddress[]> {
  const address = FAKE_DNS[host];
  if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return [{ address, family: 4 }];
}

export interface HttpResult {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  body: unknown;
  /** The body as a JSON object (asserts nothing; convenient for field access). */
  json: Record<string, unknown>;
}

export interface RequestOptions {
  /** JSON-encoded unless `raw` is given. */
  body?: unknown;
  /** Sent verbatim (with `contentType`, default application/json). */
  raw?: string | Buffer;
  /** `null` sends a body with no Content-Type at all. */
  contentType?: string | null;
  /** Client-Token to send; `null` sends none. Defaults to the gateway's first account. */
  token?: string | null;
  headers?: Record<string, string>;
}

export interface TestInstance {
  instanceId: string;
  instanceToken: string;
  /** `/instances/{id}/token/{token}` */
  prefix: string;
}

export interface TestGateway {
  readonly gateway: Gateway;
  readonly url: string;
  readonly clientToken: string;
  readonly accountId: string;
  readonly dataDir: string;
  request(method: string, path: string, options?: RequestOptions): Promise<HttpResult>;
  createAccount(name?: string): Promise<{ id: string; clientToken: string }>;
  createInstance(name?: string, clientToken?: string): Promise<TestInstance>;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Extra ZAPGATE_* variables (on top of a quiet, loopback-only default). */
  env?: Record<string, string>;
  sessions?: SessionsPort;
  /** Event stream settings (a short heartbeat for the stream tests). */
  eventStream?: GatewayOverrides['eventStream'];
  /** A cluster routing of the test's own (where each instance's requests run). */
  clusterRouting?: GatewayOverrides['clusterRouting'];
  /** The gateway's clock (a test's VirtualClock); default the wall clock. */
  clock?: Clock;
}

/** One keep-alive pool per test gateway, closed with it so the test process can exit. */
export async function startGateway(options: StartOptions = {}): Promise<TestGateway> {
  const dataDir = mkdtempSync(join(tmpdir(), 'zapgate-http-'));
  const config = loadConfig({
    ZAPGATE_HOST: '127.0.0.1',
    ZAPGATE_PORT: '0',
    ZAPGATE_DATA_DIR: dataDir,
    ZAPGATE_LOG_LEVEL: process.env.ZAPGATE_LOG_LEVEL ?? 'silent',
    ZAPGATE_RATE_LIMIT: '0',
    ...options.env,
  });
  const guard = createAddressGuard({ allowHosts: config.allowHosts, allowHttp: config.webhookAllowHttp, resolve: fakeResolve });
  const gateway = await createGateway(config, {
    sqliteFile: join(dataDir, 'zapgate.db'),
    guard,
    collectProcessMetrics: false,
    // Explicitly no engine: these tests are about the HTTP contract and the store.
    sessions: options.sessions ?? offlineSessions(),
    ...(options.eventStream ? { eventStream: options.eventStream } : {}),
    ...(options.clusterRouting ? { clusterRouting: options.clusterRouting } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const account = await gateway.accounts.create('test-a');
  const url = await gateway.listen();
  const agent = new Agent({ connections: 16, keepAliveTimeout: 1_000 });

  async function request(method: string, path: string, o: RequestOptions = {}): Promise<HttpResult> {
    const headers: Record<string, string> = { ...o.headers };
    const token = o.token === undefined ? account.clientToken : o.token;
    if (token !== null) headers['client-token'] = token;
    let body: string | Buffer | undefined;
    if (o.raw !== undefined) {
      body = o.raw;
      if (o.contentType !== null) headers['content-type'] = o.contentType ?? 'application/json';
    } else if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] = o.contentType ?? 'application/json';
    }
    const res = await undiciRequest(url + path, { method: method as 'GET', headers, body, dispatcher: agent, headersTimeout: 30_000, bodyTimeout: 30_000 });
    const text = await res.body.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const json = parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
    return { status: res.statusCode, headers: res.headers, text, body: parsed, json };
  }

  return {
    gateway,
    url,
    clientToken: account.clientToken,
    accountId: account.id,
    dataDir,
    request,
    async createAccount(name = 'test-b') {
      const a = await gateway.accounts.create(name);
      return { id: a.id, clientToken: a.clientToken };
    },
    async createInstance(name = 'inst', clientToken = account.clientToken) {
      const r = await request('POST', '/instances', { body: { name }, token: clientToken });
      if (r.status !== 201) throw new Error(`create instance: ${r.status} ${r.text}`);
      const instanceId = String(r.json.instanceId);
      const instanceToken = String(r.json.instanceToken);
      return { instanceId, instanceToken, prefix: `/instances/${instanceId}/token/${instanceToken}` };
    },
    async close() {
      await agent.close();
      await gateway.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** WhatsApp Web message ids as the gateway issues them. */
export const WA_MESSAGE_ID = /^3EB0[0-9A-F]{18}$/;

/**
 * Asserts the contract's error shape: `{error, code}` or `{error, message, code}`, nothing else, JSON,
 * with `code` one of the documented codes (docs/errors.md).
 * `message` may be a RegExp (e.g. /^phone: /) or an exact string.
 */
export function expectError(r: HttpResult, status: number, error: string, message?: string | RegExp): void {
  const where = `${r.status} ${r.text.slice(0, 300)}`;
  assert.equal(r.status, status, where);
  assert.match(String(r.headers['content-type']), /^application\/json/, where);
  assert.equal(r.json.error, error, where);
  for (const key of Object.keys(r.json)) assert.ok(key === 'error' || key === 'message' || key === 'code', `unexpected key ${key} in ${where}`);
  assert.ok((ERROR_CODES as readonly string[]).includes(r.json.code as string), `no documented code in ${where}`);
  if (message instanceof RegExp) assert.match(String(r.json.message), message, where);
  else if (message !== undefined) assert.equal(r.json.message, message, where);
}
