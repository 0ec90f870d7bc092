// Test helpers: real Baileys 7 sockets against an in-process simnet, in-memory auth, bounded waits.
import makeWASocket, {
  Browsers,
  DisconnectReason,
  initAuthCreds,
  WA_CERT_DETAILS,
  UPLOAD_TIMEOUT,
  type AuthenticationCreds,
  type SignalDataSet,
  type SignalDataTypeMap,
  type SignalKeyStore,
  type WASocket,
  type BaileysEventMap,
} from 'baileys';
import { Agent } from 'node:https';
import pino from 'pino';
// eslint-disable-next-line no-restricted-imports -- simnet's own sources (the rule guards the gateway's src/)
import { startSimnet, SimnetClient, type RunningSimnet, type SimnetOptions } from '../src/index.js';
// eslint-disable-next-line no-restricted-imports -- simnet's own sources
export type { ReceivedMessage } from '../src/index.js';
import { JumpClock } from './jump-clock.js';

/**
 * Baileys' query timeout in tests. A value nothing else uses, so the timers below can be told apart: sock.end() removes
 * the ws 'close' listeners that would reject queries still in flight (e.g. the init queries of a socket a test ends
 * right after 'open'), so their timeout timers run out in full after the test.
 */
const QUERY_TIMEOUT_MS = 10_003;

// Timers Baileys leaves behind that would keep a test file alive after its last test: every pre-key upload races a
// 30 s timer nobody clears (UPLOAD_TIMEOUT), and queries orphaned by end() wait out QUERY_TIMEOUT_MS. Unref exactly
// those: while a test runs, its sockets and servers keep the process alive, so they still fire when they matter.
const realSetTimeout = globalThis.setTimeout;
globalThis.setTimeout = ((fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) => {
  const t = realSetTimeout(fn, ms, ...args);
  if (ms === UPLOAD_TIMEOUT || ms === QUERY_TIMEOUT_MS) t.unref();
  return t;
}) as typeof setTimeout;

export const logger = pino({ level: process.env.SIMNET_TEST_LOG ?? 'silent' });

export interface MemoryAuth {
  creds: AuthenticationCreds;
  keys: SignalKeyStore;
  data: Map<string, unknown>;
}

export function memoryAuth(): MemoryAuth {
  const data = new Map<string, unknown>();
  const keys: SignalKeyStore = {
    get: async <T extends keyof SignalDataTypeMap>(type: T, ids: string[]) => {
      const out: { [id: string]: SignalDataTypeMap[T] } = {};
      for (const id of ids) {
        const v = data.get(`${type}:${id}`);
        if (v !== undefined) out[id] = v as SignalDataTypeMap[T];
      }
      return out;
    },
    set: async (set: SignalDataSet) => {
      for (const [type, entries] of Object.entries(set)) {
        for (const [id, v] of Object.entries(entries ?? {})) {
          if (v === null || v === undefined) data.delete(`${type}:${id}`);
          else data.set(`${type}:${id}`, v);
        }
      }
    },
  };
  return { creds: initAuthCreds(), keys, data };
}

export interface SimEnv {
  sim: RunningSimnet;
  admin: SimnetClient;
  agent: Agent;
  /** Moves the network's time ahead at once (jump-clock.ts); only when the test gave no clock of its own. */
  jump(ms: number): void;
  close(): Promise<void>;
}

/** A network on a time-lapse (default 0.05: 20 times real time) the test can jump, or on `opts.clock`. */
export async function startEnv(opts: SimnetOptions = {}): Promise<SimEnv> {
  const jumps = opts.clock ? null : new JumpClock(opts.timeScale ?? 0.05, opts.timeOrigin);
  const sim = await startSimnet({ ...opts, ...(jumps ? { clock: jumps } : {}) });
  // Baileys reads this at verify time: trust simnet's root instead of WhatsApp's.
  WA_CERT_DETAILS.PUBLIC_KEY = Buffer.from(sim.rootPublicKey, "base64");
  const agent = new Agent({ ca: sim.mediaCaPem });
  const jump = (ms: number): void => {
    if (!jumps) throw new Error('jump: this network runs on a clock of the test\'s own');
    jumps.jump(ms);
  };
  return { sim, admin: new SimnetClient(sim.adminUrl), agent, jump, close: () => sim.close() };
}

export type Sock = WASocket;

export function connect(env: SimEnv, auth: MemoryAuth, extra: Partial<Parameters<typeof makeWASocket>[0]> = {}): Sock {
  const sock = makeWASocket({
    waWebSocketUrl: env.sim.wsUrl,
    auth: { creds: auth.creds, keys: auth.keys },
    logger,
    browser: Browsers.ubuntu('Chrome'),
    markOnlineOnConnect: false,
    syncFullHistory: false,
    fetchAgent: env.agent,
    connectTimeoutMs: 10_000,
    defaultQueryTimeoutMs: QUERY_TIMEOUT_MS,
    ...extra,
  });
  sock.ev.on('creds.update', (u) => Object.assign(auth.creds, u));
  return sock;
}

export function waitForEvent<E extends keyof BaileysEventMap>(
  sock: Sock,
  event: E,
  pred: (v: BaileysEventMap[E]) => boolean,
  timeoutMs = 10_000,
  what: string = event,
): Promise<BaileysEventMap[E]> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      sock.ev.off(event, on);
      reject(new Error(`timed out waiting for ${what}`));
    }, timeoutMs);
    const on = (v: BaileysEventMap[E]) => {
      if (!pred(v)) return;
      clearTimeout(t);
      sock.ev.off(event, on);
      resolve(v);
    };
    sock.ev.on(event, on);
  });
}

export async function waitForQr(sock: Sock, timeoutMs = 10_000): Promise<string> {
  const u = await waitForEvent(sock, 'connection.update', (u) => !!u.qr, timeoutMs, 'qr');
  return u.qr!;
}

export async function waitForOpen(sock: Sock, timeoutMs = 15_000): Promise<void> {
  await waitForEvent(sock, 'connection.update', (u) => u.connection === 'open', timeoutMs, 'open');
}

/** Resolves with the close status code. */
export async function waitForClose(sock: Sock, timeoutMs = 15_000): Promise<{ code: number; message: string }> {
  const u = await waitForEvent(sock, 'connection.update', (u) => u.connection === 'close', timeoutMs, 'close');
  const err = u.lastDisconnect?.error as { output?: { statusCode?: number }; message?: string } | undefined;
  return { code: err?.output?.statusCode ?? 0, message: err?.message ?? '' };
}

/** Pairs a fresh auth state to `phone` by QR (scan → 515 → reconnect) and returns the open socket. */
export async function pairByQr(env: SimEnv, phone: string, auth = memoryAuth()): Promise<{ sock: Sock; auth: MemoryAuth }> {
  const first = connect(env, auth);
  const qr = await waitForQr(first);
  const closed = waitForClose(first);
  await env.admin.scanQr(phone, qr);
  const { code } = await closed;
  if (code !== DisconnectReason.restartRequired) throw new Error(`expected 515 after pairing, got ${code}`);
  const sock = connect(env, auth);
  await waitForOpen(sock);
  return { sock, auth };
}

export async function endSock(sock: Sock | undefined): Promise<void> {
  if (!sock) return;
  try {
    sock.end(undefined);
  } catch {
    // already closed
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until<T>(fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await fn();
    if (v) return v;
    await sleep(25);
  }
  throw new Error(`timed out waiting for ${what}`);
}
