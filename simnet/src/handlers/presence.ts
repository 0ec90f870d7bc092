// Presence: contacts' chat states (typing, recording, paused) and online/last-seen presence towards linked devices, and the
// devices' own presence, subscriptions and chat states. Presence is live only: never held for an offline device.
import type { BinaryNode } from 'baileys';
import type { ClientConnection } from '../server/connection.js';
import type { SimnetContext } from '../server/context.js';
import { childNodes } from '../server/stanza.js';
import type { Account, LinkedDevice } from '../network/accounts.js';
import { isGroupJid, lidJid, parseJid, pnJid } from '../network/jid.js';
import type { Group } from '../network/groups.js';
import { pushBounded } from './message-helpers.js';

export type PresenceState = 'composing' | 'recording' | 'paused' | 'available' | 'unavailable';

/** Sends to a device only if it is online and active now; returns whether it went out. */
export function sendLive(dev: LinkedDevice, node: BinaryNode): boolean {
  const link = dev.link as ClientConnection | null;
  if (dev.removed || !link || !link.isOnline || !link.active) return false;
  link.sendNode(node);
  return true;
}

function presenceNode(jid: string, acc: Account): BinaryNode {
  const attrs: Record<string, string> = { from: jid };
  if (!acc.presence.available) {
    attrs.type = 'unavailable';
    if (acc.presence.lastSeen) attrs.last = String(acc.presence.lastSeen);
  }
  return { tag: 'presence', attrs };
}

function chatstateChild(state: 'composing' | 'recording' | 'paused'): BinaryNode {
  return state === 'recording' ? { tag: 'composing', attrs: { media: 'audio' } } : { tag: state, attrs: {} };
}

export interface ContactPresenceOptions {
  state: PresenceState;
  /** 1:1 recipient (an account with linked devices), or a group jid for chat states. Optional for available/unavailable: all subscribers. */
  to?: Account | Group;
  /** Seconds; for unavailable (default now). */
  lastSeen?: number;
  /** Address the contact by LID rather than phone number (1:1 chat states). */
  viaLid?: boolean;
}

/** A contact's phone types / records / pauses in a chat, or goes online / offline. Returns the devices that got it. */
export function contactPresence(net: SimnetContext, from: Account, opts: ContactPresenceOptions): number {
  let delivered = 0;
  const { state, to } = opts;
  if (state === 'available' || state === 'unavailable') {
    from.presence = state === 'available' ? { available: true, lastSeen: null } : { available: false, lastSeen: opts.lastSeen ?? Math.floor(net.now() / 1000) };
    const targets = to && 'phone' in to ? [to] : [...net.registry.all()];
    for (const acc of targets) {
      for (const d of acc.activeCompanions()) {
        const jid = d.presenceSubs.get(from.phone);
        if (jid && sendLive(d, presenceNode(jid, from))) delivered++;
      }
    }
    net.counters.inc(`presence.${state}`);
    return delivered;
  }
  if (!to) return 0;
  if ('jid' in to) {
    const node: BinaryNode = { tag: 'chatstate', attrs: { from: to.jid, participant: lidJid(from.lid) }, content: [chatstateChild(state)] };
    for (const m of to.members()) {
      const acc = net.registry.byNumber(m.phone);
      if (!acc || acc === from) continue;
      for (const d of acc.activeCompanions()) if (sendLive(d, node)) delivered++;
    }
  } else {
    const node: BinaryNode = { tag: 'chatstate', attrs: { from: opts.viaLid ? lidJid(from.lid) : pnJid(from.phone) }, content: [chatstateChild(state)] };
    for (const d of to.activeCompanions()) if (sendLive(d, node)) delivered++;
  }
  net.counters.inc(`chatstate.${state}`);
  return delivered;
}

/** `<presence>` from a linked device: its own availability, or a subscription to a contact's presence. */
export function handleClientPresence(net: SimnetContext, conn: ClientConnection, node: BinaryNode): void {
  const dev = conn.device;
  if (!dev) return;
  const type = node.attrs.type;
  if ((type === 'subscribe' || type === 'unsubscribe') && node.attrs.to) {
    const p = parseJid(node.attrs.to);
    const acc = p ? net.registry.byUser(p.user, p.server) : undefined;
    if (!p || !acc) return;
    net.counters.inc(`client.presence.${type}`);
    if (type === 'unsubscribe') return void dev.presenceSubs.delete(acc.phone);
    const jid = p.server === 'lid' ? lidJid(acc.lid) : pnJid(acc.phone);
    dev.presenceSubs.set(acc.phone, jid);
    // The server answers a subscription with the contact's current presence.
    sendLive(dev, presenceNode(jid, acc));
    return;
  }
  if (type === 'available' || type === 'unavailable') {
    dev.lastPresence = type;
    net.counters.inc(`client.presence.${type}`);
  }
}

/** `<chatstate to=..>` from a linked device: the contact's phone notes it; other linked devices of the recipient see it live. */
export function handleClientChatstate(net: SimnetContext, conn: ClientConnection, node: BinaryNode): void {
  const dev = conn.device;
  const first = childNodes(node)[0];
  if (!dev || !first || !node.attrs.to) return;
  const state = first.tag === 'composing' ? (first.attrs.media === 'audio' ? 'recording' : 'composing') : first.tag === 'paused' ? 'paused' : null;
  if (!state) return;
  net.counters.inc(`client.chatstate.${state}`);
  const me = dev.account;
  const to = node.attrs.to;
  const recipients: Account[] = [];
  let groupId: string | undefined;
  if (isGroupJid(to)) {
    const g = net.groups.get(to);
    if (!g || !g.participants.has(me.phone)) return;
    groupId = g.jid;
    for (const m of g.members()) {
      const acc = net.registry.byNumber(m.phone);
      if (acc && acc !== me) recipients.push(acc);
    }
  } else {
    const p = parseJid(to);
    const acc = p ? net.registry.byUser(p.user, p.server) : undefined;
    if (acc) recipients.push(acc);
  }
  const viaLid = parseJid(to)?.server === 'lid';
  for (const acc of recipients) {
    pushBounded(acc.chatstatesReceived, { from: me.phone, deviceId: dev.id, state, groupId, t: net.now() }, 1000);
    const attrs: Record<string, string> = groupId ? { from: groupId, participant: lidJid(me.lid) } : { from: viaLid ? lidJid(me.lid) : pnJid(me.phone) };
    for (const d of acc.activeCompanions()) sendLive(d, { tag: 'chatstate', attrs, content: [first] });
  }
}
