// Crash tests of the receive side: simnet in this process, a webhook receiver, and the real gateway
// as a child process (so it can be killed with SIGKILL) paired to one simnet phone. SQLite in a temp
// data dir, or PostgreSQL in a schema of its own.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startSimnet, SimnetClient, type RunningSimnet } from '../../simnet/src/index.js';
import { PG_URL } from './databases.js';
import { startPostReceiver, type WebhookPost } from './post-receiver.js';
import { simnetGatewayEnv, spawnGateway, type GatewayProcess } from './process-gateway.js';
import { until } from './wait.js';

export type { WebhookPost } from './post-receiver.js';
// Tests outside this harness's files import their scenario pacing from here.
export { sleep } from './wait.js';

export interface ProcessHarness {
  readonly sim: RunningSimnet;
  readonly admin: SimnetClient;
  /** Every webhook POST received, in arrival order. */
  readonly posts: WebhookPost[];
  /** The running gateway process (replaced by restart()). */
  gateway(): GatewayProcess;
  /** Starts a new gateway process on the same data (after a stop or a kill). */
  restart(): Promise<void>;
  /** Calls the gateway's API with the account token; `prefix` is the paired instance's. */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }>;
  readonly prefix: string;
  /** Resolves once the instance reports connected again (fails after `timeoutMs`, a hang guard). */
  connected(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startProcessHarness(options: {
  owner: string;
  contacts: readonly string[];
  dialect?: 'sqlite' | 'postgres';
  timeScale?: number;
  env?: Record<string, string>;
  /** Extra node flags of every gateway process (e.g. a preload that slows the disk). */
  nodeArgs?: string[];
  /** false: the instance is created but not paired (the test pairs it). */
  pair?: boolean;
}): Promise<ProcessHarness> {
  const timeScale = options.timeScale ?? 1;
  const sim = await startSimnet({ timeScale });
  const admin = new SimnetClient(sim.adminUrl);
  await admin.createUser({ phone: options.owner, pushName: 'owner' });
  for (const c of options.contacts) await admin.createUser({ phone: c, pushName: `contact ${c}` });

  const receiver = await startPostReceiver();
  const { posts, url: hookUrl } = receiver;

  const dataDir = mkdtempSync(join(tmpdir(), 'zapgate-process-'));
  const token = randomBytes(20).toString('hex');
  const env: Record<string, string> = { ...simnetGatewayEnv(sim, join(dataDir, 'media-ca.pem'), token, timeScale), ...options.env };
  const schema = `process_${randomBytes(5).toString('hex')}`;
  const onPostgres = async (statement: string): Promise<void> => {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  if (options.dialect === 'postgres') {
    await onPostgres(`create schema ${schema}`);
    const url = new URL(PG_URL);
    url.searchParams.set('options', `-c search_path=${schema}`);
    env.ZAPGATE_DATABASE_URL = url.toString();
  }

  const spawn = (): Promise<GatewayProcess> => spawnGateway({ dataDir, env, ...(options.nodeArgs ? { nodeArgs: options.nodeArgs } : {}) });
  const release = async (): Promise<void> => {
    await receiver.close();
    await sim.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (options.dialect === 'postgres') await onPostgres(`drop schema if exists ${schema} cascade`);
  };
  // A gateway that cannot start must not leave simnet and the receiver running (the test would
  // then hang until the runner's timeout instead of failing with the start-up error).
  let gw = await spawn().catch(async (err: unknown) => {
    await release();
    throw err;
  });
  let prefix = '';
  const harness: ProcessHarness = {
    sim,
    admin,
    posts,
    gateway: () => gw,
    async restart() {
      gw = await spawn();
    },
    async api(method, path, body) {
      const res = await fetch(`${gw.url}${path}`, {
        method,
        headers: { 'client-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    },
    get prefix() {
      return prefix;
    },
    async connected(timeoutMs) {
      await until('the instance to connect', () => harness.api('GET', `${prefix}/status`).catch((err: unknown) => ({ error: String(err) })), (s) => 'json' in s && s.json.connected === true, {
        pollMs: 100,
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      });
    },
    async close() {
      await gw.kill9();
      await release();
    },
  };

  try {
    const created = await harness.api('POST', '/instances', { name: 'process' });
    if (created.status !== 201) throw new Error(`create instance: ${created.status} ${JSON.stringify(created.json)}`);
    prefix = `/instances/${String(created.json.instanceId)}/token/${String(created.json.instanceToken)}`;
    if (options.pair !== false) {
      const qr = await harness.api('GET', `${prefix}/qr-code`);
      await admin.scanQr(options.owner, String(qr.json.value));
      await harness.connected();
    }
    const hooks = await harness.api('PUT', `${prefix}/update-every-webhooks`, { value: hookUrl });
    if (hooks.status !== 200) throw new Error(`update-every-webhooks: ${hooks.status}`);
  } catch (err) {
    await harness.close();
    throw err;
  }
  return harness;
}
