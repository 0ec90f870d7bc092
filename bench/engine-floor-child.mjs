// The engine alone, for bench/engine-floor.ts: bare Baileys sockets (the version zapgate runs, set
// up the way src/sessions/link/socket-config.ts sets up the gateway's) with their keys in a plain
// in-memory map, and nothing else — no store, no outbox, no webhooks, no HTTP server. Plain
// JavaScript run by node itself, so no TypeScript loader or source maps cost it CPU the gateway's
// build does not pay. The parent (simnet's side) drives it over the IPC channel:
//   → { cmd: 'pair', phones }           ← { qr, phone } per QR to scan, then { paired: phone }
//   → { cmd: 'send', jobs: [[phone, [to, …], count], …] }   ← { sent: n } when every send resolved
//   → { cmd: 'quit' }
//   ← { arrived: [[messageId, epochMs], …] } every 20 ms while messages from contacts arrive
/* global performance, setInterval */
import makeWASocket, { Browsers, DisconnectReason, initAuthCreds, proto, WA_CERT_DETAILS } from 'baileys';
import pino from 'pino';

const WS_URL = process.env.ENGINE_FLOOR_WS_URL;
WA_CERT_DETAILS.PUBLIC_KEY = Buffer.from(process.env.ENGINE_FLOOR_ROOT_KEY ?? '', 'base64');
const logger = pino({ level: 'silent' });
// ENGINE_FLOOR_PATCHED=1: Baileys as zapgate runs it, with the process-wide patches of
// src/sessions/patches/ and one AsyncLocalStorage for every socket's key-store transactions
// (src/sessions/link/tx-storage.ts), taken from the build (the parent builds it first).
const PATCHED = process.env.ENGINE_FLOOR_PATCHED === '1';
let makeSocket = makeWASocket;
if (PATCHED) {
  const { installBaileysPatches } = await import('../dist/src/sessions/patches/index.js');
  const { withScopedStorage } = await import('../dist/src/sessions/link/tx-storage.js');
  installBaileysPatches({ waRootKey: process.env.ENGINE_FLOOR_ROOT_KEY, log: logger });
  makeSocket = (config) => withScopedStorage(() => makeWASocket(config)).result;
}
const sockets = new Map();
let arrivals = [];

function memoryAuth() {
  const data = new Map();
  return {
    creds: initAuthCreds(),
    keys: {
      get: async (type, ids) => {
        const out = {};
        for (const id of ids) {
          const v = data.get(`${type}:${id}`);
          if (v !== undefined) out[id] = v;
        }
        return out;
      },
      set: async (set) => {
        for (const [type, entries] of Object.entries(set)) {
          for (const [id, v] of Object.entries(entries ?? {})) {
            if (v === null || v === undefined) data.delete(`${type}:${id}`);
            else data.set(`${type}:${id}`, v);
          }
        }
      },
    },
  };
}

function connect(phone, auth) {
  const sock = makeSocket({
    waWebSocketUrl: WS_URL,
    auth,
    logger,
    browser: Browsers.ubuntu('Chrome'),
    markOnlineOnConnect: false,
    syncFullHistory: false,
    shouldSyncHistoryMessage: ({ syncType }) =>
      syncType !== proto.HistorySync.HistorySyncType.RECENT && syncType !== proto.HistorySync.HistorySyncType.FULL,
    fireInitQueries: true,
    emitOwnEvents: true,
    enableRecentMessageCache: true,
    generateHighQualityLinkPreview: false,
    getMessage: async () => undefined,
  });
  sock.ev.on('creds.update', (u) => Object.assign(auth.creds, u));
  sock.ev.on('messages.upsert', ({ messages, type }) => {
    if (type !== 'notify') return;
    const at = performance.timeOrigin + performance.now();
    for (const m of messages) if (!m.key.fromMe && m.key.id) arrivals.push([m.key.id, at]);
  });
  sock.ev.on('connection.update', (u) => {
    if (u.qr) process.send({ qr: u.qr, phone });
    if (u.connection === 'open') {
      sockets.set(phone, sock);
      process.send({ paired: phone });
    }
    if (u.connection === 'close') {
      const code = u.lastDisconnect?.error?.output?.statusCode;
      // Pairing ends with 515 (restart required): the same credentials log in again.
      if (code === DisconnectReason.restartRequired) connect(phone, auth);
    }
  });
  return sock;
}

setInterval(() => {
  if (arrivals.length === 0) return;
  process.send({ arrived: arrivals });
  arrivals = [];
}, 20);

process.on('message', (msg) => {
  handle(msg).catch((err) => {
    console.error(`engine-floor child: ${msg.cmd} failed: ${err?.stack ?? err}`);
    process.exit(1);
  });
});

async function handle(msg) {
  if (msg.cmd === 'pair') for (const phone of msg.phones) connect(phone, memoryAuth());
  if (msg.cmd === 'send') {
    // Each number sends one message after another, numbers in parallel: the gateway's model (one
    // FIFO lane per instance, src/sender/lane.ts).
    let sent = 0;
    await Promise.all(
      msg.jobs.map(async ([phone, tos, count]) => {
        const sock = sockets.get(phone);
        for (let k = 0; k < count; k++) {
          await sock.sendMessage(`${tos[k % tos.length]}@s.whatsapp.net`, { text: `msg ${k}` });
          sent++;
        }
      }),
    );
    process.send({ sent });
  }
  if (msg.cmd === 'quit') {
    for (const sock of sockets.values()) sock.end(undefined);
    process.exit(0);
  }
}
