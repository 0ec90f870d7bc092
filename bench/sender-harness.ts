// Shared by the sender benchmarks: simnet in this process, the real gateway (`zapgate serve`, real
// Baileys) as a child process pointed at it, and a small client for its HTTP API.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { startSimnet, SimnetClient, SimnetError, type RunningSimnet, type SimnetOptions } from '../simnet/src/index.js';
import { REPO_ROOT, freePort, spawnGateway, type GatewayProcess } from '../test/helpers/process-gateway.js';

export interface Inst {
  id: string;
  owner: string;
  prefix: string;
}

export interface Reply {
  status: number;
  json: Record<string, unknown>;
}

export interface Bench {
  readonly sim: RunningSimnet;
  readonly admin: SimnetClient;
  readonly dataDir: string;
  gateway(): GatewayProcess;
  /** (Re)starts the gateway on the same data directory and port with these extra settings. */
  restart(env?: Record<string, string>): Promise<void>;
  call(method: string, path: string, body?: unknown): Promise<Reply>;
  /** Creates an instance and pairs it by having `owner`'s simnet phone scan its QR. */
  pair(owner: string): Promise<Inst>;
  waitStatus(inst: Inst, status: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * The gateway a bench measures is the compiled build, as it runs in production (rebuilt first when
 * a source is newer): from the sources, tsx's loader and source-mapped stack traces (Baileys takes
 * a stack per request) cost the gateway CPU a deployment never pays. BENCH_FROM_SOURCE=1 runs the
 * sources instead.
 */
export function gatewayBin(): string | undefined {
  if (process.env.BENCH_FROM_SOURCE === '1') return undefined;
  execFileSync(process.execPath, [join(REPO_ROOT, 'scripts/build.mjs'), '--if-stale'], { stdio: 'inherit' });
  return join(REPO_ROOT, 'bin/zapgate.js');
}

export async function startBench(options: { simnet?: SimnetOptions; env?: Record<string, string> } = {}): Promise<Bench> {
  const sim = await startSimnet(options.simnet);
  const admin = new SimnetClient(sim.adminUrl);
  const dataDir = mkdtempSync(join(tmpdir(), 'zapgate-bench-sender-'));
  const token = randomBytes(20).toString('hex');
  const port = await freePort();
  // Media sends upload to simnet's HTTPS media host: the gateway process must trust its CA.
  const caFile = join(dataDir, 'simnet-media-ca.pem');
  writeFileSync(caFile, sim.mediaCaPem);
  const newAgent = (): Agent => new Agent({ connections: 64, keepAliveTimeout: 5_000 });
  let agent = newAgent();
  const base = {
    ZAPGATE_CLIENT_TOKEN: token,
    ZAPGATE_RATE_LIMIT: '0',
    ZAPGATE_QUEUE_MAX_DISCONNECTED: '0',
    ZAPGATE_WA_URL: sim.wsUrl,
    ZAPGATE_WA_ROOT_KEY: sim.rootPublicKey,
    ZAPGATE_LOG_LEVEL: 'error',
    NODE_EXTRA_CA_CERTS: caFile,
  };
  // BENCH_GATEWAY_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the gateway process.
  const nodeArgs = process.env.BENCH_GATEWAY_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const bin = gatewayBin();
  let gw = await spawnGateway({ dataDir, port, env: { ...base, ...options.env }, nodeArgs, bin });

  const bench: Bench = {
    sim,
    admin,
    dataDir,
    gateway: () => gw,
    async restart(env = {}) {
      await gw.stop();
      // Kept-alive connections belong to the old process.
      await agent.close();
      agent = newAgent();
      gw = await spawnGateway({ dataDir, port, env: { ...base, ...env }, nodeArgs, bin });
    },
    async call(method, path, body) {
      const res = await request(`${gw.url}${path}`, {
        method: method as 'GET',
        headers: { 'client-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        dispatcher: agent,
        headersTimeout: 60_000,
        bodyTimeout: 60_000,
      });
      const text = await res.body.text();
      return { status: res.statusCode, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    },
    async pair(owner) {
      const created = await bench.call('POST', '/instances', { name: owner });
      if (created.status !== 201) throw new Error(`create instance: ${created.status} ${JSON.stringify(created.json)}`);
      const inst = { id: String(created.json.instanceId), owner, prefix: `/instances/${created.json.instanceId}/token/${created.json.instanceToken}` };
      // On a loaded machine a QR can rotate between reading and scanning it: read the next one.
      for (let attempt = 1; ; attempt++) {
        const qr = await bench.call('GET', `${inst.prefix}/qr-code`);
        if (qr.status !== 200) throw new Error(`qr-code: ${qr.status} ${JSON.stringify(qr.json)}`);
        try {
          await admin.scanQr(owner, String(qr.json.value));
          break;
        } catch (err) {
          if (!(err instanceof SimnetError && err.status === 410) || attempt >= 5) throw err;
        }
      }
      await bench.waitStatus(inst, 'connected');
      return inst;
    },
    async waitStatus(inst, status, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      let last = '';
      while (Date.now() < deadline) {
        last = String((await bench.call('GET', `${inst.prefix}/status`)).json.status);
        if (last === status) return;
        await sleep(50);
      }
      throw new Error(`instance ${inst.id} is ${last}, never ${status}`);
    },
    async close() {
      await gw.stop();
      await agent.close();
      await sim.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return bench;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}
