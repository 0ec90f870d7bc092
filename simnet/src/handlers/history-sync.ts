// History sync at pairing, the phone's side: after the first login of a newly linked device the
// phone sends what it holds (network/phone-history.ts) as WhatsApp does — device messages from the
// primary device carrying protocolMessage.historySyncNotification:
// - INITIAL_BOOTSTRAP, inline (zlib-deflated proto.HistorySync in the message): the newest chats
//   with their last message, so a client can show a chat list at once;
// - RECENT, in chunks (chunkOrder 1.., progress up to 100): every chat with all its messages, each
//   chunk a zlib-deflated proto.HistorySync encrypted as media type 'md-msg-hist' and put on the
//   media host (the device downloads it by directPath); a chat of the bootstrap comes again here;
// - PUSH_NAME: the push names the phone has seen, also as a blob.
import { deflateSync } from 'node:zlib';
import { proto } from 'baileys';
import type { SimnetContext } from '../server/context.js';
import type { LinkedDevice } from '../network/accounts.js';
import { phoneSendToOwnDevice } from '../contacts/outbound.js';
import { encryptMedia } from '../contacts/media-send.js';
import { pnJid } from '../network/jid.js';
import { phoneHistory, type PhoneHistory, type PhoneHistoryChat } from '../network/phone-history.js';

/** Chats in the inline bootstrap (WhatsApp keeps that payload small). */
const BOOTSTRAP_CHATS = 20;

const Type = proto.HistorySync.HistorySyncType;

/** Sends the device the phone's history; with none, the empty bootstrap every pairing gets. */
export async function sendHistory(net: SimnetContext, dev: LinkedDevice): Promise<void> {
  const history = phoneHistory(dev.account);
  const newestFirst = history ? [...history.chats].sort((a, b) => lastT(b) - lastT(a)) : [];
  const bootstrap = proto.HistorySync.encode({
    syncType: Type.INITIAL_BOOTSTRAP,
    conversations: newestFirst.slice(0, BOOTSTRAP_CHATS).map((c) => conversation(dev, c, c.messages.slice(-1))),
    pushnames: [],
    progress: history ? 0 : 100,
    chunkOrder: 0,
  }).finish();
  await notify(net, dev, { syncType: proto.Message.HistorySyncType.INITIAL_BOOTSTRAP, chunkOrder: 0, progress: history ? 0 : 100, initialHistBootstrapInlinePayload: deflateSync(bootstrap) });
  net.counters.inc('history.bootstrap');
  if (!history) return;
  await sendRecent(net, dev, history, newestFirst);
  const names = proto.HistorySync.encode({ syncType: Type.PUSH_NAME, conversations: [], pushnames: history.pushNames.map((p) => ({ id: pnJid(p.phone), pushname: p.pushName })) }).finish();
  await notify(net, dev, { ...(await upload(net, names)), syncType: proto.Message.HistorySyncType.PUSH_NAME, chunkOrder: 0, progress: 100 });
  net.counters.inc('history.pushnames');
}

async function sendRecent(net: SimnetContext, dev: LinkedDevice, history: PhoneHistory, chats: readonly PhoneHistoryChat[]): Promise<void> {
  const chunks = Math.max(1, Math.ceil(chats.length / history.chunkChats));
  for (let k = 0; k < chunks; k++) {
    const slice = chats.slice(k * history.chunkChats, (k + 1) * history.chunkChats);
    const oldest = Math.min(...slice.map((c) => c.messages[0]?.t ?? Infinity));
    const plain = proto.HistorySync.encode({
      syncType: Type.RECENT,
      conversations: slice.map((c) => conversation(dev, c, c.messages)),
      pushnames: [],
      chunkOrder: k + 1,
      progress: Math.round(((k + 1) * 100) / chunks),
    }).finish();
    await notify(net, dev, {
      ...(await upload(net, plain)),
      syncType: proto.Message.HistorySyncType.RECENT,
      chunkOrder: k + 1,
      progress: Math.round(((k + 1) * 100) / chunks),
      ...(Number.isFinite(oldest) ? { oldestMsgInChunkTimestampSec: oldest } : {}),
    });
    net.counters.inc('history.chunks');
  }
}

function lastT(c: PhoneHistoryChat): number {
  return c.messages[c.messages.length - 1]?.t ?? 0;
}

function conversation(dev: LinkedDevice, c: PhoneHistoryChat, messages: readonly PhoneHistoryChat['messages'][number][]): proto.IConversation {
  const group = c.jid.endsWith('@g.us');
  const own = pnJid(dev.account.phone);
  return {
    id: c.jid,
    name: c.name,
    ...(group ? {} : { displayName: c.name }),
    unreadCount: c.unread,
    archived: c.archived,
    pinned: c.pinned,
    muteEndTime: c.muteEndTime,
    ephemeralExpiration: c.ephemeral,
    conversationTimestamp: lastT(c),
    messages: messages.map((m, i) => ({
      msgOrderId: i + 1,
      message: {
        key: { remoteJid: c.jid, fromMe: m.fromMe, id: m.id, ...(group ? { participant: m.fromMe ? own : pnJid(m.author ?? '') } : {}) },
        message: { conversation: m.text },
        messageTimestamp: m.t,
        status: m.fromMe ? proto.WebMessageInfo.Status.READ : proto.WebMessageInfo.Status.DELIVERY_ACK,
        ...(m.fromMe ? {} : { pushName: group ? `member ${m.author ?? ''}` : c.name }),
      },
    })),
  };
}

/** Deflates, encrypts ('md-msg-hist' keys) and stores a HistorySync blob; returns the notification's media fields. */
async function upload(net: SimnetContext, plain: Uint8Array): Promise<proto.Message.IHistorySyncNotification> {
  const media = net.media;
  if (!media) throw new Error('media host not running: history chunks need it');
  const deflated = deflateSync(plain);
  const e = await encryptMedia(deflated, 'md-msg-hist');
  const directPath = media.put(e.enc, 'hist');
  return { directPath, mediaKey: e.mediaKey, fileSha256: e.fileSha256, fileEncSha256: e.fileEncSha256, fileLength: deflated.length };
}

async function notify(net: SimnetContext, dev: LinkedDevice, n: proto.Message.IHistorySyncNotification): Promise<void> {
  await phoneSendToOwnDevice(net, dev, { protocolMessage: { type: proto.Message.ProtocolMessage.Type.HISTORY_SYNC_NOTIFICATION, historySyncNotification: n } });
}
