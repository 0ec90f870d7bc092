// History sync at pairing: the account's phone (simnet) holds N chats × M messages spread over D
// days; an instance of the real gateway process opts in (window W days) and is paired. Prints the
// time from the scan to the whole window stored, and the gateway process's memory (VmRSS before the
// scan, peak VmHWM after the import) — with --opt-in false the same pairing imports nothing, for
// comparison.
//
// Usage: node --import tsx bench/history-import.ts [--chats 500] [--messages 40] [--days 30] [--window 30] [--chunk 50] [--opt-in true]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { SimnetError } from '../simnet/src/index.js';
import { startBench } from './sender-harness.js';

const { values } = parseArgs({
  options: {
    chats: { type: 'string', default: '500' },
    messages: { type: 'string', default: '40' },
    days: { type: 'string', default: '30' },
    window: { type: 'string', default: '30' },
    chunk: { type: 'string', default: '50' },
    'opt-in': { type: 'string', default: 'true' },
  },
});
const CHATS = Number(values.chats);
const MESSAGES = Number(values.messages);
const DAYS = Number(values.days);
const WINDOW = Number(values.window);
const OPT_IN = values['opt-in'] !== 'false';
const OWNER = '5511900007001';
const LIVE = '5511900007002';

function memory(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(/\d+/.exec(status.split('\n').find((l) => l.startsWith(key)) ?? '0')?.[0] ?? 0);
  return { rss: kb('VmRSS:') * 1024, hwm: kb('VmHWM:') * 1024 };
}
const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;

const bench = await startBench();
try {
  await bench.restart({ ZAPGATE_WA_MEDIA_HOST: bench.sim.mediaHost, ZAPGATE_CHAT_MESSAGES_RETENTION_DAYS: '3650', ZAPGATE_CHAT_MESSAGES_PER_CHAT: '0' });
  await bench.admin.createUser({ phone: OWNER, pushName: 'owner' });
  await bench.admin.createUser({ phone: LIVE, pushName: 'live' });
  const seeded = await bench.admin.seedHistory(OWNER, { chats: CHATS, messagesPerChat: MESSAGES, days: DAYS, groups: Math.floor(CHATS / 25), chunkChats: Number(values.chunk) });
  const cutoff = Date.now() - WINDOW * 86_400_000;
  const wantChats = seeded.chats.filter((c) => c.messages.some((m) => m.at >= cutoff)).length;
  const wantMessages = seeded.chats.reduce((n, c) => n + c.messages.filter((m) => m.at >= cutoff).length, 0);

  const created = await bench.call('POST', '/instances', { name: 'history' });
  const prefix = `/instances/${String(created.json.instanceId)}/token/${String(created.json.instanceToken)}`;
  if (OPT_IN) await bench.call('PUT', `${prefix}/update-history-sync`, { enabled: true, days: WINDOW });
  const pid = bench.gateway().child.pid!;
  await sleep(1000);
  const before = memory(pid);
  let scannedAt = 0;
  for (let attempt = 1; ; attempt++) {
    const qr = await bench.call('GET', `${prefix}/qr-code`);
    try {
      scannedAt = Date.now();
      await bench.admin.scanQr(OWNER, String(qr.json.value));
      break;
    } catch (err) {
      if (!(err instanceof SimnetError && err.status === 410) || attempt >= 5) throw err;
    }
  }
  // Sent once the device is linked (the scan returns before), held by the network until it logs in.
  for (let i = 0; i < 600 && (await bench.admin.user(OWNER)).devices.length === 0; i++) await sleep(50);
  const { messageId: liveId } = await bench.admin.sendAsContact({ from: LIVE, to: OWNER, type: 'text', text: 'live' });
  const db = new Database(join(bench.dataDir, 'zapgate.db'), { readonly: true, fileMustExist: true });
  const count = () => (db.prepare('select count(*) as n from chat_messages where message_id <> ?').get(liveId) as { n: number }).n;
  const liveStored = () => !!db.prepare('select 1 from chat_messages where message_id = ?').get(liveId);
  let liveMs = 0;
  const deadline = Date.now() + 300_000;
  let connectedMs = 0;
  let peakRss = before.rss;
  while (Date.now() < deadline) {
    peakRss = Math.max(peakRss, memory(pid).rss);
    if (!connectedMs && (await bench.call('GET', `${prefix}/status`)).json.status === 'connected') connectedMs = Date.now() - scannedAt;
    if (!liveMs && liveStored()) liveMs = Date.now() - scannedAt;
    if (liveMs && (OPT_IN ? count() >= wantMessages : Date.now() - scannedAt > 5_000)) break;
    await sleep(50);
  }
  const importMs = Date.now() - scannedAt;
  const chats = (db.prepare('select count(*) as n from chats where chat_id <> ?').get(LIVE) as { n: number }).n;
  const stored = count();
  db.close();
  const after = memory(pid);
  console.log(
    JSON.stringify({
      optIn: OPT_IN,
      phone: { chats: CHATS, messagesPerChat: MESSAGES, days: DAYS },
      window: WINDOW,
      expected: OPT_IN ? { chats: wantChats, messages: wantMessages } : { chats: 0, messages: 0 },
      stored: { chats, messages: stored },
      scanToConnectedMs: connectedMs,
      scanToLiveMessageStoredMs: liveMs,
      scanToImportedMs: OPT_IN ? importMs : null,
      rssBefore: mb(before.rss),
      rssPeakSampled: mb(peakRss),
      vmHwmAfter: mb(after.hwm),
      rssAfter: mb(after.rss),
    }),
  );
} finally {
  await bench.close();
}
