// Calls: a contact's phone rings an account (<call><offer>), then the call ends as asked (ring-out, hang-up, answered or
// rejected on the account's phone); a linked device may reject it itself (Baileys' rejectCall), which is recorded.
import { randomBytes } from 'node:crypto';
import type { BinaryNode } from 'baileys';
import type { ClientConnection } from '../server/connection.js';
import type { SimnetContext } from '../server/context.js';
import { childNodes } from '../server/stanza.js';
import type { Account } from '../network/accounts.js';
import { CallStore, type CallOutcome, type CallRecord } from '../network/calls.js';
import { lidJid, parseJid, pnJid } from '../network/jid.js';

const stores = new WeakMap<SimnetContext, CallStore>();

export function callStore(net: SimnetContext): CallStore {
  let s = stores.get(net);
  if (!s) stores.set(net, (s = new CallStore()));
  return s;
}

export interface PlaceCallOptions {
  outcome: CallOutcome;
  video?: boolean;
  /** Protocol ms the phone rings before the call ends as asked (default 30 s). */
  ringMs?: number;
  /** Protocol ms an answered call lasts before the caller hangs up (default 10 s). */
  durationMs?: number;
  /** Address the caller by LID (with caller_pn) instead of by phone number. */
  viaLid?: boolean;
}

function callNode(net: SimnetContext, fromJid: string, notify: string | undefined, inner: BinaryNode): BinaryNode {
  const attrs: Record<string, string> = { from: fromJid, id: net.newId(), t: net.nowSec() };
  if (notify) Object.assign(attrs, { notify, platform: 'android', version: '2.24.20.89' });
  return { tag: 'call', attrs, content: [inner] };
}

/** `caller`'s phone calls `callee`: every linked device of the callee gets the offer, then what `outcome` says. */
export function placeCall(net: SimnetContext, caller: Account, callee: Account, opts: PlaceCallOptions): CallRecord {
  const store = callStore(net);
  const callId = net.newId().padEnd(32, '0').slice(0, 32);
  const video = !!opts.video;
  const callerJid = opts.viaLid ? lidJid(caller.lid) : pnJid(caller.phone);
  const rec: CallRecord = { callId, from: caller.phone, to: callee.phone, video, outcome: opts.outcome, status: 'ringing', offeredAt: net.now(), devices: 0 };
  store.add(rec);
  const base = { 'call-id': callId, 'call-creator': callerJid };
  const media: BinaryNode[] = [
    { tag: 'audio', attrs: { enc: 'opus', rate: '16000' } },
    { tag: 'audio', attrs: { enc: 'opus', rate: '8000' } },
  ];
  if (video) media.push({ tag: 'video', attrs: { enc: 'vp8', dec: 'vp8', orientation: '0', screen_width: '1080', screen_height: '2340', device_orientation: '0' } });
  media.push({ tag: 'net', attrs: { medium: '3' } }, { tag: 'encopt', attrs: { keygen: '2' } });
  const offerAttrs: Record<string, string> = { ...base };
  if (opts.viaLid) offerAttrs.caller_pn = pnJid(caller.phone);
  for (const d of callee.activeCompanions()) {
    net.deliver(d, callNode(net, callerJid, caller.pushName, { tag: 'offer', attrs: offerAttrs, content: media }));
    rec.devices++;
  }
  net.counters.inc('calls.offered');
  const toCallee = (fromJid: string, inner: BinaryNode) => {
    for (const d of callee.activeCompanions()) net.deliver(d, callNode(net, fromJid, undefined, inner));
  };
  const end = (status: CallRecord['status'], node?: { fromJid: string; inner: BinaryNode }) => {
    if (rec.status !== 'ringing' && rec.status !== 'accepted') return;
    rec.status = status;
    if (status !== 'accepted') rec.endedAt = net.now();
    if (node) toCallee(node.fromJid, node.inner);
    net.counters.inc(`calls.${status}`);
  };
  const ringMs = opts.ringMs ?? 30_000;
  const schedule = (ms: number, fn: () => void) => {
    const cancel = net.after(ms, () => {
      store.timers.delete(callId);
      fn();
    });
    store.timers.set(callId, cancel);
  };
  switch (opts.outcome) {
    case 'missed':
      // Nobody answered: the ring times out.
      schedule(ringMs, () => end('missed', { fromJid: callerJid, inner: { tag: 'terminate', attrs: { ...base, reason: 'timeout' } } }));
      break;
    case 'cancelled':
      // The caller hangs up before anyone answers.
      schedule(ringMs, () => end('cancelled', { fromJid: callerJid, inner: { tag: 'terminate', attrs: base } }));
      break;
    case 'rejected':
      // The account's own phone declines: its linked devices hear the reject from it.
      schedule(ringMs, () => end('rejected', { fromJid: pnJid(callee.phone), inner: { tag: 'reject', attrs: { ...base, count: '0' } } }));
      break;
    case 'accepted':
      schedule(ringMs, () => {
        end('accepted', { fromJid: pnJid(callee.phone), inner: { tag: 'accept', attrs: base } });
        schedule(opts.durationMs ?? 10_000, () => end('ended', { fromJid: callerJid, inner: { tag: 'terminate', attrs: base } }));
      });
      break;
    case 'ringing':
      break;
  }
  return rec;
}

/** `<call>` from a linked device: Baileys' rejectCall sends `<reject call-id call-creator count=0/>` and waits for the ack. */
export function handleClientCall(net: SimnetContext, conn: ClientConnection, node: BinaryNode): void {
  const dev = conn.device;
  const inner = childNodes(node)[0];
  if (inner?.tag === 'link_create') {
    // A call link (for an event): the server answers the query with the link's token.
    net.counters.inc('client.call.link_create');
    const token = randomBytes(15).toString('base64url');
    conn.sendNode({ tag: 'call', attrs: { id: node.attrs.id ?? '', from: '@call' }, content: [{ tag: 'link_create', attrs: { token, media: inner.attrs.media ?? 'audio' } }] });
    return;
  }
  const ackAttrs: Record<string, string> = { class: 'call', id: node.attrs.id ?? '', from: node.attrs.to ?? '' };
  if (inner) ackAttrs.type = inner.tag;
  conn.sendNode({ tag: 'ack', attrs: ackAttrs });
  if (!dev || !inner) return;
  net.counters.inc(`client.call.${inner.tag}`);
  const store = callStore(net);
  const rec = store.get(inner.attrs['call-id'] ?? '');
  if (!rec || rec.to !== dev.account.phone) return;
  if (inner.tag === 'reject' && (rec.status === 'ringing' || rec.status === 'accepted')) {
    rec.status = 'rejected';
    rec.rejectedByDevice = dev.id;
    rec.endedAt = net.now();
    store.timers.get(rec.callId)?.();
    store.timers.delete(rec.callId);
    // The callee's other linked devices stop ringing: they hear the reject from this device.
    const from = parseJid(node.attrs.from)?.server === 'lid' ? lidJid(dev.account.lid, dev.id) : pnJid(dev.account.phone, dev.id);
    for (const d of dev.account.activeCompanions()) {
      if (d !== dev) net.deliver(d, callNode(net, from, undefined, { tag: 'reject', attrs: { 'call-id': rec.callId, 'call-creator': inner.attrs['call-creator'] ?? '', count: '0' } }));
    }
  }
}
