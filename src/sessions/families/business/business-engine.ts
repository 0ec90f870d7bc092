// BusinessPort over the Baileys engine. Profiles are w:biz queries written here rather than
// Baileys' getBusinessProfile / updateBussinesProfile: those read only the first website and
// category and cannot clear the websites or set categories. Labels go through Baileys' app-state
// patches (addLabel, addChatLabel, removeChatLabel); the patch's own event feeds the store
// (label-sync.ts), and the call resolves once that is stored, so a read right after sees it. A chat
// note is a `note_edit` mutation of regular_low, which Baileys has no helper for.
import { proto, type BinaryNode } from 'baileys';
import { createHash } from 'node:crypto';
import { errors } from '../../../errors.js';
import type { BusinessCategory, BusinessHours, BusinessPort, BusinessProfile, BusinessProfileChange, DayOfWeek, HoursMode, LabelEdit } from './business-port.js';
import { groupJid, phoneJid } from '../../jids.js';
import type { LabelSync } from './label-sync.js';
import { sessionCommands, type SessionCommands, type CommandLimit } from '../../engine-call.js';
import type { LiveSession } from '../../live-session.js';
import type { WASocket } from '../../link/socket-config.js';

const S_WHATSAPP_NET = 's.whatsapp.net';

interface BusinessEngineDeps extends CommandLimit {
  sessionOf(instanceId: string): LiveSession | undefined;
  labels: Pick<LabelSync, 'settled'>;
}

const DAYS: readonly [string, DayOfWeek][] = [
  ['sun', 'SUNDAY'],
  ['mon', 'MONDAY'],
  ['tue', 'TUESDAY'],
  ['wed', 'WEDNESDAY'],
  ['thu', 'THURSDAY'],
  ['fri', 'FRIDAY'],
  ['sat', 'SATURDAY'],
];
const MODES: readonly [string, HoursMode][] = [
  ['specific_hours', 'specificHours'],
  ['open_24h', 'open24h'],
  ['appointment_only', 'appointmentOnly'],
];

export class BusinessEngine implements BusinessPort {
  private readonly commands: SessionCommands;

  constructor(private readonly deps: BusinessEngineDeps) {
    this.commands = sessionCommands(deps);
  }

  isBusiness(instanceId: string): boolean {
    const session = this.commands.open(instanceId);
    // WhatsApp Business phones pair as smba (Android) or smbi (iPhone).
    return (session.creds?.platform ?? '').startsWith('smb');
  }

  /**
   * Fetches the labels' collection (`regular`) past the version this device has, on a business
   * account. Baileys syncs every collection at pairing only with history sync on, and afterwards
   * only when the network announces a change: without this, labels the phone had before pairing
   * (or changed while a server_sync was lost) would never reach the store.
   */
  async syncLabels(instanceId: string): Promise<void> {
    const session = this.deps.sessionOf(instanceId);
    if (!session?.open || !this.isBusiness(instanceId)) return;
    await this.commands.run(instanceId, (sock) => sock.resyncAppState(['regular'], false));
    await this.deps.labels.settled(instanceId);
  }

  profile(instanceId: string, phone: string | null): Promise<BusinessProfile | null> {
    return this.commands.run(instanceId, async (sock, session) => {
      const jid = phone ? phoneJid(phone) : session.me?.pn;
      if (!jid) throw errors.notConnected();
      const answer = await sock.query({
        tag: 'iq',
        attrs: { to: S_WHATSAPP_NET, xmlns: 'w:biz', type: 'get' },
        content: [{ tag: 'business_profile', attrs: { v: '244' }, content: [{ tag: 'profile', attrs: { jid } }] }],
      });
      const node = children(children(answer).find((n) => n.tag === 'business_profile')).find((n) => n.tag === 'profile');
      if (!node) return null;
      const ids = children(children(node).find((n) => n.tag === 'categories')).filter((n) => n.tag === 'category');
      // The profile names its categories by id and display name; the directory has their labels.
      const directory = ids.length ? await directoryQuery(sock, '') : [];
      return {
        description: textOf(node, 'description'),
        address: textOf(node, 'address'),
        email: textOf(node, 'email'),
        websites: children(node).filter((n) => n.tag === 'website').map(text).filter((w) => w),
        categories: ids.map((c) => {
          const id = c.attrs.id ?? '';
          return { id, label: directory.find((d) => d.id === id)?.label ?? '', displayName: text(c) };
        }),
        businessHours: hoursOf(children(node).find((n) => n.tag === 'business_hours')),
        hasCoverPhoto: children(node).some((n) => n.tag === 'cover_photo'),
      };
    });
  }

  updateProfile(instanceId: string, change: BusinessProfileChange): Promise<void> {
    return this.commands.run(instanceId, async (sock) => {
      await sock.query({
        tag: 'iq',
        attrs: { to: S_WHATSAPP_NET, xmlns: 'w:biz', type: 'set' },
        content: [{ tag: 'business_profile', attrs: { v: '3', mutation_type: 'delta' }, content: deltaOf(change) }],
      });
    });
  }

  categories(instanceId: string, query: string): Promise<BusinessCategory[]> {
    return this.commands.run(instanceId, (sock) => directoryQuery(sock, query));
  }

  async editLabel(instanceId: string, label: LabelEdit): Promise<void> {
    await this.commands.run(instanceId, (sock) => sock.addLabel('', { id: label.id, name: label.name, color: label.color, deleted: label.deleted }));
    await this.deps.labels.settled(instanceId);
  }

  async labelChat(instanceId: string, labelId: string, chatId: string, labeled: boolean): Promise<void> {
    const jid = chatJid(chatId);
    await this.commands.run(instanceId, (sock) => (labeled ? sock.addChatLabel(jid, labelId) : sock.removeChatLabel(jid, labelId)));
    await this.deps.labels.settled(instanceId);
  }

  setChatNote(instanceId: string, chatId: string, text: string): Promise<void> {
    const jid = chatJid(chatId);
    // One note per chat: its id is derived from the chat, so a second call edits the same note.
    const noteId = createHash('sha256').update(`note:${jid}`).digest('hex').slice(0, 32).toUpperCase();
    const now = this.deps.clock.now();
    return this.commands.run(instanceId, (sock) =>
      sock.appPatch({
        type: 'regular_low',
        index: ['note_edit', noteId],
        syncAction: {
          timestamp: now,
          noteEditAction: { type: proto.SyncActionValue.NoteEditAction.NoteType.UNSTRUCTURED, chatJid: jid, createdAt: now, deleted: false, unstructuredContent: text },
        },
        apiVersion: 7,
        operation: proto.SyncdMutation.SyncdOperation.SET,
      }),
    );
  }
}

function chatJid(chatId: string): string {
  return chatId.endsWith('-group') ? groupJid(chatId) : chatId.endsWith('@lid') ? chatId : phoneJid(chatId);
}

async function directoryQuery(sock: WASocket, query: string): Promise<BusinessCategory[]> {
  const answer = await sock.query({
    tag: 'iq',
    attrs: { to: S_WHATSAPP_NET, xmlns: 'w:biz', type: 'get' },
    content: [{ tag: 'categories', attrs: { query } }],
  });
  const list = children(children(answer).find((n) => n.tag === 'categories')).filter((n) => n.tag === 'category');
  return list.map((c) => ({ id: c.attrs.id ?? '', label: c.attrs.label ?? '', displayName: text(c) }));
}

/** Only the fields given, as the network's delta mutation carries them (an empty value removes one). */
function deltaOf(change: BusinessProfileChange): BinaryNode[] {
  const out: BinaryNode[] = [];
  for (const key of ['description', 'address', 'email'] as const) {
    const value = change[key];
    if (value !== undefined) out.push({ tag: key, attrs: {}, content: value });
  }
  // One empty <website/> clears the list: a delta with no website node leaves it as it is.
  if (change.websites) out.push(...(change.websites.length ? change.websites : ['']).map((w) => ({ tag: 'website', attrs: {}, content: w })));
  if (change.categories) out.push({ tag: 'categories', attrs: {}, content: change.categories.map((id) => ({ tag: 'category', attrs: { id } })) });
  if (change.hours) out.push(hoursNode(change.hours));
  return out;
}

function hoursNode(hours: BusinessHours): BinaryNode {
  const mode = MODES.find(([, m]) => m === hours.mode)?.[0] ?? 'specific_hours';
  // No days listed with open24h / appointmentOnly: every day of the week.
  const days = hours.days.length || hours.mode === 'specificHours' ? hours.days : DAYS.map(([, day]) => ({ dayOfWeek: day }));
  return {
    tag: 'business_hours',
    attrs: { timezone: hours.timezone },
    content: days.map((d: { dayOfWeek: DayOfWeek; openTime?: string; closeTime?: string }) => {
      const day = DAYS.find(([, name]) => name === d.dayOfWeek)![0];
      const attrs: Record<string, string> = { day_of_week: day, mode };
      if (mode === 'specific_hours') {
        attrs.open_time = String(minutesOf(d.openTime ?? '00:00'));
        attrs.close_time = String(minutesOf(d.closeTime ?? '00:00'));
      }
      return { tag: 'business_hours_config', attrs };
    }),
  };
}

/** The network's per-day configs as Z-API's one mode for the days listed. */
function hoursOf(node: BinaryNode | undefined): BusinessHours | null {
  if (!node) return null;
  const configs = children(node).filter((n) => n.tag === 'business_hours_config');
  const modes = new Set(configs.map((c) => c.attrs.mode ?? ''));
  const only = modes.size === 1 ? MODES.find(([m]) => modes.has(m))?.[1] : undefined;
  return {
    timezone: node.attrs.timezone ?? '',
    mode: only ?? 'specificHours',
    days: configs.flatMap((c) => {
      const day = DAYS.find(([d]) => d === c.attrs.day_of_week)?.[1];
      if (!day) return [];
      if (c.attrs.mode !== 'specific_hours') return [{ dayOfWeek: day }];
      return [{ dayOfWeek: day, openTime: timeOf(Number(c.attrs.open_time ?? 0)), closeTime: timeOf(Number(c.attrs.close_time ?? 0)) }];
    }),
  };
}

function minutesOf(time: string): number {
  const [h, m] = time.split(':').map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
}

function timeOf(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

function children(node: BinaryNode | undefined): BinaryNode[] {
  return Array.isArray(node?.content) ? node.content : [];
}

function text(node: BinaryNode | undefined): string {
  const c = node?.content;
  if (typeof c === 'string') return c;
  if (c instanceof Uint8Array) return Buffer.from(c).toString('utf8');
  return '';
}

function textOf(node: BinaryNode, tag: string): string {
  return text(children(node).find((n) => n.tag === tag));
}
