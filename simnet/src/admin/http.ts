// The admin HTTP API (JSON over loopback): maps routes onto AdminApi and pairing operations.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AdminContext } from '../server/context.js';
import { HttpError } from '../http-error.js';
import { AdminApi } from './api.js';
import { NewsletterAdmin } from './newsletters.js';
import { catalogAdminRoute } from './catalog.js';
import type { PhoneChatChange } from '../handlers/chat-state.js';
import type { PhoneLabelEdit } from '../handlers/labels.js';
import type { FaultRequest, MediaFault, SendAsContactRequest, SimnetInfo } from './types.js';
import type { ReceiptKind } from '../handlers/receipts.js';
import type { CallRequest, CommunityActionRequest, GroupActionRequest, HistorySeedRequest, NewsletterActionRequest, OwnerReadRequest, PresenceRequest } from './types.js';
import { community, communityAction } from './communities.js';

const MAX_BODY = 64 * 1024 * 1024;

type Json = Record<string, unknown>;

async function readJson(req: IncomingMessage): Promise<Json> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw new HttpError(413, 'body too large');
    chunks.push(c as Buffer);
  }
  if (!size) return {};
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
  } catch {
    throw new HttpError(400, 'invalid JSON');
  }
}

const flag = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);

const str = (v: unknown, name: string): string => {
  if (typeof v !== 'string' || !v) throw new HttpError(400, `${name} required`);
  return v;
};

export function makeAdminHandler(net: AdminContext, info: () => SimnetInfo): (req: IncomingMessage, res: ServerResponse) => void {
  const api = new AdminApi(net);
  const newsletters = new NewsletterAdmin(net);
  const route = async (method: string, parts: string[], body: Json, query: URLSearchParams): Promise<unknown> => {
    const [a, b, c] = parts;
    if (method === 'GET' && a === 'info') return info();
    if (method === 'GET' && a === 'counters') return net.counters.snapshot();
    if (method === 'GET' && a === 'stats') return api.stats();
    if (a === 'users' && method === 'POST' && !b) {
      const user = api.createUser(str(body.phone, 'phone'), body.pushName as string | undefined, body.business === true);
      if (body.business === true) await api.setUpBusiness(user.phone);
      return user;
    }
    if (a === 'users' && b) {
      if (method === 'GET' && !c) return api.user(b);
      if (method === 'GET' && c === 'received') {
        const since = Number(query.get('since') ?? 0);
        return api.account(b).received.slice(since);
      }
      if (method === 'GET' && c === 'sent-copies') return api.account(b).sentCopies;
      if (method === 'GET' && c === 'profile') return api.profile(b);
      // The phone's chat list: read it, or change a chat on the phone (linked devices sync it).
      if (method === 'GET' && c === 'chats' && parts[3]) return api.chatState(b, parts[3]);
      if (method === 'POST' && c === 'chats' && parts[3]) return api.changeChat(b, parts[3], body as PhoneChatChange);
      if (method === 'GET' && c === 'address-book') return api.addressBook(b);
      // A business account: its profile, and its phone's labels (the phone changes them as WhatsApp's app-state does).
      if (method === 'GET' && c === 'business-profile') return api.businessProfile(b);
      if (method === 'PUT' && c === 'business-profile') return api.setBusinessProfile(b, body);
      if (method === 'GET' && c === 'labels' && !parts[3]) return api.labels(b);
      if (method === 'GET' && c === 'notes') return api.chatNotes(b);
      if (method === 'POST' && c === 'labels' && !parts[3]) return api.editLabel(b, body as unknown as PhoneLabelEdit);
      if (method === 'POST' && c === 'labels' && parts[3] && parts[4] === 'chats') return api.labelChat(b, parts[3], str(body.chat, 'chat'), body.labeled !== false);
      if (method === 'GET' && c === 'profile-picture') return api.profilePicture(b);
      // What the phone holds before a device is linked: sent to it as history sync at pairing.
      if (method === 'PUT' && c === 'history') return api.seedHistory(b, body as unknown as HistorySeedRequest);
      if (method === 'GET' && c === 'history') return api.history(b);
      if (method === 'GET' && c === 'groups') return api.groupsOf(b);
      if (method === 'GET' && c === 'receipts') {
        const acc = api.account(b);
        return { sent: acc.receiptsSent, received: acc.receiptsReceived };
      }
      if (method === 'POST' && c === 'scan') return net.pairing.scanQr(b, str(body.qr, 'qr'));
      if (method === 'POST' && c === 'pairing-code') return net.pairing.enterPairingCode(b, str(body.code, 'code'));
      if (method === 'POST' && c === 'unlink') return api.unlinkDevice(b, body.deviceId as number | undefined);
      if (method === 'POST' && c === 'receipts') {
        const ids = body.messageIds;
        if (!Array.isArray(ids)) throw new HttpError(400, 'messageIds required');
        const device = typeof body.device === 'number' && Number.isInteger(body.device) && body.device >= 0 ? body.device : 0;
        return api.receipt(b, ids as string[], ((body.type as string) ?? 'read') as ReceiptKind, device);
      }
      if (method === 'PUT' && c === 'policy') return api.setPolicy(b, body);
      if (method === 'PUT' && c === 'privacy') return api.setGroupAddable(b, body.groupAddable !== false);
      if (method === 'PUT' && c === 'addressing') return api.setAddressing(b, { lidAddressing: flag(body.lidAddressing), hideNumber: flag(body.hideNumber) });
      if (method === 'POST' && c === 'fault') return api.injectFault(b, body as unknown as FaultRequest);
      // Media download faults of the contact's uploads ({fault: null} clears).
      if (method === 'PUT' && c === 'media-fault') return api.setMediaFault(b, (body.fault ?? null) as MediaFault | null);
    }
    if (method === 'POST' && a === 'send') return api.sendAsContact(body as unknown as SendAsContactRequest);
    if (method === 'POST' && a === 'groups' && !b) {
      return api.createGroup(str(body.creator, 'creator'), (body.subject as string) ?? '', (body.participants as string[]) ?? []);
    }
    if (method === 'GET' && a === 'groups' && b) return api.group(decodeURIComponent(b));
    // Communities (admin/communities.ts): read one; change one as another of its admins.
    if (method === 'GET' && a === 'communities' && b) return community(net, b);
    if (method === 'POST' && a === 'community-actions' && !b) return communityAction(net, body as unknown as CommunityActionRequest);
    // Channels: read one, those an account is in, create one for a contact, act on one as someone else.
    if (method === 'GET' && a === 'newsletters' && b) return newsletters.info(b);
    if (method === 'GET' && a === 'users' && b && c === 'newsletters') return newsletters.of(b);
    if (method === 'POST' && a === 'newsletters' && !b) return newsletters.create(str(body.owner, 'owner'), str(body.name, 'name'), (body.description as string) ?? '');
    if (method === 'POST' && a === 'newsletter-actions' && !b) return newsletters.act(body as unknown as NewsletterActionRequest);
    const catalog = catalogAdminRoute(net, method, parts, body);
    if (catalog !== undefined) return catalog;
    const netEvent = netEventRoute(api, method, parts, body);
    if (netEvent !== NO_ROUTE) return netEvent;
    throw new HttpError(404, `no route ${method} /admin/${parts.join('/')}`);
  };
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://simnet');
    const parts = url.pathname.replace(/^\/admin\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
    readJson(req)
      .then((body) => route(req.method ?? 'GET', parts, body, url.searchParams))
      .then((out) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(out ?? {}));
      })
      .catch((e: unknown) => {
        const status = e instanceof HttpError ? e.status : 500;
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: (e as Error).message }));
      });
  };
}

// Network and contact events towards linked devices: group changes by others, calls, presence, read-self, retries.
const NO_ROUTE = Symbol('no route');

function netEventRoute(api: AdminApi, method: string, parts: string[], body: Json): unknown {
  const [a, b, c] = parts;
  if (method === 'POST' && a === 'group-actions' && !b) return api.groupAction(body as unknown as GroupActionRequest);
  if (method === 'POST' && a === 'calls' && !b) return api.call(body as unknown as CallRequest);
  if (method === 'POST' && a === 'presence' && !b) return api.presence(body as unknown as PresenceRequest);
  if (method === 'POST' && a === 'owner-read' && !b) return api.ownerRead(body as unknown as OwnerReadRequest);
  if (a === 'users' && b) {
    if (method === 'GET' && c === 'calls') return api.calls(b);
    if (method === 'GET' && c === 'presence') return api.presenceInfo(b);
    if (method === 'GET' && c === 'retries') return api.retries(b);
    if (method === 'PUT' && c === 'ack-loss') return api.setAckLoss(b, body.enabled !== false);
  }
  return NO_ROUTE;
}
