// Density bench: N real Baileys 7 sockets paired and idle against one simnet child process.
// Prints client memory per socket and simnet memory for each N (default 100, 500, 1000).
// Run: node --expose-gc --import tsx bench/simnet-density.ts [N ...]   (budget: SIMNET_BENCH_BUDGET_S, default 900 s)
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import makeWASocket, { Browsers, initAuthCreds, UPLOAD_TIMEOUT, WA_CERT_DETAILS, type SignalDataSet, type SignalKeyStore, type WASocket } from 'baileys';
import pino from 'pino';
import { SimnetClient } from '../simnet/src/admin/client.js';

const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
const targets = sizes.length ? sizes : [100, 500, 1000];
const budgetMs = Number(process.env.SIMNET_BENCH_BUDGET_S ?? 900) * 1000;
const started = Date.now();
const CONCURRENCY = 24;
const logger = pino({ level: 'silent' });

// Baileys never clears its 30 s pre-key upload timer; unref it so the bench can exit.
const realSetTimeout = globalThis.setTimeout;
globalThis.setTimeout = ((fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) => {
  const t = realSetTimeout(fn, ms, ...args);
  if (ms === UPLOAD_TIMEOUT) t.unref();
  return t;
}) as typeof setTimeout;

const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
const gc = () => (globalThis as { gc?: () => void }).gc?.();

function memoryKeys(): SignalKeyStore {
  const data = new Map<string, unknown>();
  return {
    get: async (type, ids) => {
      const out: Record<string, unknown> = {};
      for (const id of ids) {
        const v = data.get(`${type}:${id}`);
        if (v !== undefined) out[id] = v;
      }
      return out as never;
    },
    set: async (set: SignalDataSet) => {
      for (const [type, entries] of Object.entries(set)) {
        for (const [id, v] of Object.entries(entries ?? {})) {
          if (v == null) data.delete(`${type}:${id}`);
          else data.set(`${type}:${id}`, v);
        }
      }
    },
  };
}

function waitUpdate(sock: WASocket, pred: (u: { qr?: string; connection?: string; code?: number }) => boolean, ms: number) {
  return new Promise<{ qr?: string; code?: number }>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('timeout')), ms);
    sock.ev.on('connection.update', (u) => {
      const code = (u.lastDisconnect?.error as { output?: { statusCode?: number } } | undefined)?.output?.statusCode;
      const v = { qr: u.qr, connection: u.connection, code };
      if (pred(v)) {
        clearTimeout(t);
        resolve(v);
      }
    });
  });
}

/** Close codes of sockets that dropped after opening (a busy client event loop can miss its keep-alive: 408). */
const drops = new Map<number, number>();
const MAX_RECONNECTS = 5;

/** Keeps a paired socket connected like an engine would: reconnect on transient closes, bounded. */
function keepConnected(cfg: Parameters<typeof makeWASocket>[0], auth: { creds: ReturnType<typeof initAuthCreds> }, sock: WASocket, holder: { sock: WASocket }, attempt = 0): void {
  sock.ev.on('connection.update', (u) => {
    if (u.connection !== 'close' || stopping) return;
    const code = (u.lastDisconnect?.error as { output?: { statusCode?: number } } | undefined)?.output?.statusCode ?? 0;
    drops.set(code, (drops.get(code) ?? 0) + 1);
    if (attempt >= MAX_RECONNECTS || [401, 403, 440].includes(code)) return;
    const next = makeWASocket(cfg);
    next.ev.on('creds.update', (c) => Object.assign(auth.creds, c));
    holder.sock = next;
    keepConnected(cfg, auth, next, holder, attempt + 1);
  });
}

let stopping = false;

async function pairOne(wsUrl: string, admin: SimnetClient, phone: string): Promise<{ sock: WASocket }> {
  const auth = { creds: initAuthCreds(), keys: memoryKeys() };
  const cfg = {
    waWebSocketUrl: wsUrl,
    auth,
    logger,
    browser: Browsers.ubuntu('Chrome'),
    markOnlineOnConnect: false,
    syncFullHistory: false,
    // Skip history processing: the bench measures idle sockets, not sync.
    shouldSyncHistoryMessage: () => false,
    connectTimeoutMs: 60_000,
    defaultQueryTimeoutMs: 60_000,
  };
  const first = makeWASocket(cfg);
  first.ev.on('creds.update', (u) => Object.assign(auth.creds, u));
  const { qr } = await waitUpdate(first, (u) => !!u.qr, 60_000);
  const closed = waitUpdate(first, (u) => u.connection === 'close', 60_000);
  await admin.scanQr(phone, qr!);
  const { code } = await closed;
  if (code !== 515) throw new Error(`expected 515, got ${code}`);
  const sock = makeWASocket(cfg);
  sock.ev.on('creds.update', (u) => Object.assign(auth.creds, u));
  await waitUpdate(sock, (u) => u.connection === 'open', 60_000);
  const holder = { sock };
  keepConnected(cfg, auth, sock, holder);
  return holder;
}

async function main(): Promise<void> {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', 'simnet/src/main.ts', '--port', '0', '--time-scale', '0.05', '--quiet'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const info = await new Promise<{ wsUrl: string; adminUrl: string; rootPublicKey: string }>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.once('line', (l) => resolve(JSON.parse(l)));
    child.once('exit', (c) => reject(new Error(`simnet exited ${c}`)));
  });
  WA_CERT_DETAILS.PUBLIC_KEY = Buffer.from(info.rootPublicKey, 'base64');
  const admin = new SimnetClient(info.adminUrl);
  const socks: { sock: WASocket }[] = [];
  gc();
  const base = process.memoryUsage();
  const simBase = await admin.stats();
  console.log(`baseline: client rss ${mb(base.rss)} MB heap ${mb(base.heapUsed)} MB | simnet rss ${mb(simBase.rss)} MB heap ${mb(simBase.heapUsed)} MB`);
  console.log('N\tclient rss/sock\tclient heap/sock\tsimnet rss\tsimnet heap\tsimnet heap/dev\tonline\tpair time');
  let failures = 0;
  try {
    for (const n of targets) {
      const t0 = Date.now();
      // Pairs in bounded batches until N sockets are open or the budget runs out.
      while (socks.length < n && Date.now() - started < budgetMs && failures < 20) {
        const batch = Math.min(CONCURRENCY, n - socks.length);
        const results = await Promise.allSettled(
          Array.from({ length: batch }, (_, i) => pairOne(info.wsUrl, admin, `55119${String(socks.length + i).padStart(8, '0')}`)),
        );
        for (const r of results) {
          if (r.status === 'fulfilled') socks.push(r.value);
          else failures++;
        }
      }
      if (socks.length < n) {
        console.log(`stopped at ${socks.length} sockets (budget or failures: ${failures})`);
        break;
      }
      await new Promise((r) => setTimeout(r, 2000));
      gc();
      const m = process.memoryUsage();
      const s = await admin.stats();
      console.log(
        [
          n,
          `${((m.rss - base.rss) / n / 1024).toFixed(0)} KB`,
          `${((m.heapUsed - base.heapUsed) / n / 1024).toFixed(0)} KB`,
          `${mb(s.rss)} MB`,
          `${mb(s.heapUsed)} MB`,
          `${((s.heapUsed - simBase.heapUsed) / Math.max(1, s.devices) / 1024).toFixed(1)} KB`,
          s.online,
          `${((Date.now() - t0) / 1000).toFixed(1)} s`,
        ].join('\t'),
      );
      if (drops.size) console.log(`  drops so far (close code → count, reconnected): ${JSON.stringify(Object.fromEntries(drops))}`);
    }
  } finally {
    stopping = true;
    for (const s of socks) s.sock.end(undefined);
    child.kill('SIGTERM');
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
