// xmlns=w:sync:app:state: keeps each account's uploaded patches per collection and replays those newer than the client's version.
import type { BinaryNode } from 'baileys';
import type { ClientConnection } from '../server/connection.js';
import type { SimnetContext } from '../server/context.js';
import { bytesOf, child, childNodes, iqResult } from '../server/stanza.js';
import { applyOwnPatch } from './push-name.js';
import { applyChatPatch } from './chat-state.js';
import { applyContactPatch } from './address-book.js';
import { applyLabelPatch } from './labels.js';
import { applyNotePatch } from './chat-notes.js';
import { proto } from 'baileys';

/** Patches kept per collection; older ones are dropped (clients beyond that get a fresh start). */
const MAX_PATCHES = 1000;

export function handleAppStateIq(net: SimnetContext, conn: ClientConnection, node: BinaryNode): void {
  const acc = conn.device?.account;
  const out: BinaryNode[] = [];
  for (const col of childNodes(child(node, 'sync'))) {
    if (col.tag !== 'collection') continue;
    const name = col.attrs.name ?? '';
    const clientVersion = Number(col.attrs.version ?? 0);
    let state = acc?.appState.get(name);
    if (!state && acc) acc.appState.set(name, (state = { version: 0, patches: [] }));
    const uploads = childNodes(col).filter((c) => c.tag === 'patch');
    if (uploads.length && state) {
      for (const p of uploads) {
        const data = bytesOf(p);
        if (!data) continue;
        state.patches.push(data);
        state.version++;
        // The phone reads what concerns it (the push name); a patch it cannot read stays opaque.
        if (acc) void applyOwnPatch(net, acc, name, data).catch(() => net.counters.inc('appstate.unreadable'));
        if (acc) void applyChatPatch(net, acc, name, data).catch(() => net.counters.inc('appstate.unreadable'));
        if (acc) void applyContactPatch(net, acc, name, data).catch(() => net.counters.inc('appstate.unreadable'));
        if (acc) void applyLabelPatch(net, acc, name, data).catch(() => net.counters.inc('appstate.unreadable'));
        if (acc) void applyNotePatch(net, acc, name, data).catch(() => net.counters.inc('appstate.unreadable'));
        if (state.patches.length > MAX_PATCHES) state.patches.shift();
        net.counters.inc(`appstate.patch.${name}`);
      }
      out.push({ tag: 'collection', attrs: { name, version: String(state.version) } });
      continue;
    }
    const version = state?.version ?? 0;
    const first = version - (state?.patches.length ?? 0);
    // Patch i has version first + i + 1; the client wants those above its version.
    const newer = (state?.patches ?? []).map((data, i) => ({ data, v: first + i + 1 })).filter((p) => p.v > clientVersion);
    const content: BinaryNode[] = newer.length
      ? [{ tag: 'patches', attrs: {}, content: newer.map((p) => ({ tag: 'patch', attrs: {}, content: withVersion(p.data, p.v) })) }]
      : [];
    out.push({ tag: 'collection', attrs: { name, version: String(Math.max(version, clientVersion)) }, content });
  }
  conn.sendNode(iqResult(node, [{ tag: 'sync', attrs: {}, content: out }]));
}

/**
 * Patches carry their version, as the server sends them: without it a client takes the
 * collection's version + 1 for every patch of the answer and asks from one past the last.
 */
function withVersion(data: Uint8Array, version: number): Uint8Array {
  const patch = proto.SyncdPatch.decode(data);
  if (patch.version?.version) return data;
  patch.version = { version };
  return proto.SyncdPatch.encode(patch).finish();
}
