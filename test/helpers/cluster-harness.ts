// Cluster tests: simnet and a webhook receiver in this process, a PostgreSQL schema of their own,
// and several real gateway processes (`zapgate serve` in cluster mode) on loopback, each killable.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startSimnet, SimnetClient, type RunningSimnet } from '../../simnet/src/index.js';
import { PG_URL } from './databases.js';
import { startPostReceiver, type WebhookPost } from './post-receiver.js';
import { freePort, simnetGatewayEnv, spawnGateway, type GatewayProcess } from './process-gateway.js';
import { until } from './wait.js';

export { sleep } from './wait.js';

/**
 * simnet's count, asserted: the most connections logged in as each device of each phone at once,
 * over the whole run, is 1 (WhatsApp allows one per linked device; docs/cluster.md, "One socket per
 * device"). Every cluster test calls it after each move of instances between nodes.
 */
export async function assertOneSocketPerDevice(admin: SimnetClient, phones: readonly string[], when: string): Promise<void> {
  for (const phone of phones) {
    const { devices } = await admin.user(phone);
    for (const d of devices) assert.equal(d.maxSockets, 1, `${when}: ${phone} device ${d.id} was logged in ${d.maxSockets} times at once (${d.replacedSockets} replaced)`);
  }
}

export interface ApiAnswer {
  status: number;
  json: Record<string, unknown>;
  node: string | null;
  headers: Headers;
}

export interface ClusterInstance {
  id: string;
  prefix: string;
  phone: string;
}

export interface ClusterHarness {
  readonly sim: RunningSimnet;
  readonly admin: SimnetClient;
  readonly posts: WebhookPost[];
  readonly schema: string;
  readonly databaseUrl: string;
  /** Running node processes by name. */
  readonly nodes: Map<string, GatewayProcess>;
  startNode(name: string): Promise<GatewayProcess>;
  /**
   * Starts the nodes side by side: a loaded machine shares its CPU per process, so three start-ups
   * at once take about as long as one (one after the other, they took 80 s beside busy processes).
   */
  startNodes(...names: string[]): Promise<void>;
  api(node: string, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiAnswer>;
  /** Creates an instance through `node` and pairs it with `phone`'s simnet account. */
  pair(node: string, phone: string): Promise<ClusterInstance>;
  /** Resolves once the instance reports connected through `node`; answers its owner node. */
  connected(node: string, inst: ClusterInstance, timeoutMs?: number, notOn?: string): Promise<string>;
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]>;
  close(): Promise<void>;
}

export interface ClusterOptions {
  owners: readonly string[];
  contacts: readonly string[];
  heartbeatMs?: number;
  leaseMs?: number;
  timeScale?: number;
  env?: Record<string, string>;
  /** A PostgreSQL server of the test's own (one it restarts); the suite's otherwise. */
  pgUrl?: string;
  /** A compiled build's bin/zapgate.js for every node (benches); the sources otherwise. */
  bin?: string;
}

export async function startCluster(options: ClusterOptions): Promise<ClusterHarness> {
  const timeScale = options.timeScale ?? 1;
  const sim = await startSimnet({ timeScale });
  const admin = new SimnetClient(sim.adminUrl);
  for (const p of options.owners) await admin.createUser({ phone: p, pushName: `owner ${p.slice(-4)}` });
  for (const c of options.contacts) await admin.createUser({ phone: c, pushName: `contact ${c.slice(-4)}` });

  const receiver = await startPostReceiver();
  const { posts, url: hookUrl } = receiver;

  const root = mkdtempSync(join(tmpdir(), 'zapgate-cluster-'));
  const schema = `cluster_${randomBytes(5).toString('hex')}`;
  const serverUrl = options.pgUrl ?? PG_URL;
  const pool = new pg.Pool({ connectionString: serverUrl, max: 2 });
  // A restarted server cuts idle connections: a pool must not crash the test on that.
  pool.on('error', () => undefined);
  await pool.query(`create schema ${schema}`);
  const url = new URL(serverUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const databaseUrl = url.toString();
  const scoped = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  scoped.on('error', () => undefined);
  const token = randomBytes(20).toString('hex');
  const env: Record<string, string> = {
    ...simnetGatewayEnv(sim, join(root, 'media-ca.pem'), token, timeScale),
    ZAPGATE_DATABASE_URL: databaseUrl,
    ZAPGATE_CLUSTER_SECRET: randomBytes(24).toString('hex'),
    ZAPGATE_CLUSTER_HEARTBEAT_MS: String(options.heartbeatMs ?? 1_000),
    ZAPGATE_CLUSTER_LEASE_MS: String(options.leaseMs ?? 10_000),
    ...options.env,
  };
  const nodes = new Map<string, GatewayProcess>();

  const harness: ClusterHarness = {
    sim,
    admin,
    posts,
    schema,
    databaseUrl,
    nodes,
    async startNode(name) {
      const port = await freePort();
      const dataDir = join(root, name);
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      const proc = await spawnGateway({
        dataDir,
        port,
        env: { ...env, ZAPGATE_NODE_ID: name, ZAPGATE_NODE_URL: `http://127.0.0.1:${port}` },
        ...(options.bin ? { bin: options.bin } : {}),
      });
      nodes.set(name, proc);
      return proc;
    },
    async startNodes(...names) {
      await Promise.all(names.map((n) => harness.startNode(n)));
    },
    async api(node, method, path, body, headers) {
      const proc = nodes.get(node);
      if (!proc) throw new Error(`no node ${node}`);
      const res = await fetch(`${proc.url}${path}`, {
        method,
        headers: { 'client-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(60_000),
      });
      const text = await res.text();
      let json: Record<string, unknown> = {};
      try {
        json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      } catch {
        json = { raw: text };
      }
      return { status: res.status, json, node: res.headers.get('x-zapgate-node'), headers: res.headers };
    },
    async pair(node, phone) {
      const created = await harness.api(node, 'POST', '/instances', { name: `cluster ${phone.slice(-4)}` });
      if (created.status !== 201) throw new Error(`create instance: ${created.status} ${JSON.stringify(created.json)}`);
      const inst = { id: String(created.json.instanceId), prefix: `/instances/${String(created.json.instanceId)}/token/${String(created.json.instanceToken)}`, phone };
      const qr = await harness.api(node, 'GET', `${inst.prefix}/qr-code`);
      if (qr.status !== 200) throw new Error(`qr-code: ${qr.status} ${JSON.stringify(qr.json)}`);
      await admin.scanQr(phone, String(qr.json.value));
      await harness.connected(node, inst);
      const hooks = await harness.api(node, 'PUT', `${inst.prefix}/update-every-webhooks`, { value: hookUrl });
      if (hooks.status !== 200) throw new Error(`update-every-webhooks: ${hooks.status}`);
      return inst;
    },
    async connected(node, inst, timeoutMs, notOn) {
      const status = await until(
        `instance ${inst.id} to be connected${notOn ? ` on a node other than ${notOn}` : ''} (asked through ${node})`,
        async () => (await harness.api(node, 'GET', `${inst.prefix}/status`).catch(() => null))?.json ?? null,
        (s) => s?.connected === true && typeof s.ownerNode === 'string' && s.ownerNode !== notOn,
        { pollMs: 100, ...(timeoutMs === undefined ? {} : { timeoutMs }) },
      );
      return String(status?.ownerNode);
    },
    async query(text, values) {
      return (await scoped.query(text, values)).rows;
    },
    async close() {
      await Promise.all([...nodes.values()].map((n) => n.kill9()));
      await receiver.close();
      await sim.close();
      rmSync(root, { recursive: true, force: true });
      await scoped.end();
      await pool.query(`drop schema if exists ${schema} cascade`).catch(() => undefined);
      await pool.end();
    },
  };
  return harness;
}
