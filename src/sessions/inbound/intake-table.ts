// The one table of engine input (as whatsmeow's nodeHandlers): every way something reaches the
// gateway from a socket, one entry per event family, each with why it is taken that way. Four ways
// exist: `emit` takes an event as Baileys emits it, ahead of its event buffer; `frame` reads raw
// frames Baileys does not report (or reports too late); `batch` takes Baileys' buffered events,
// one batch at a time, entries handled in the order listed. Input from a socket the session has
// replaced is ignored (`current`).
import type { BaileysEventMap, BinaryNode, ConnectionState, WAMessage } from 'baileys';
import type { Clock } from '../../clock.js';
import type { StoredAuthState } from '../link/auth-state.js';
import type { ChatRecorder } from './chat-recorder.js';
import { COMMUNITY_FRAMES, communityChangeOf } from './community-notifications.js';
import type { HistoryImporter, HistorySet } from './history-import.js';
import type { Identity } from '../link/identity.js';
import type { LiveSession } from '../live-session.js';
import { newsletterParticipantNotification } from './newsletter-events.js';
import type { ReceiptGate } from '../link/receipt-gate.js';
import type { SessionCreds } from '../link/session-creds.js';
import type { SessionLabels } from '../session-hooks.js';
import type { SessionIntake } from './session-intake.js';
import { forgetGroup, rememberGroup, type SharedCaches, type WASocket } from '../link/socket-config.js';
import { userOf } from '../jids.js';

/** One socket, as the handlers see it. */
export interface Link {
  sock: WASocket;
  gate: ReceiptGate;
  auth: StoredAuthState;
}

/** The parts of a session the handlers hand input to. */
export interface IntakeTarget {
  session: LiveSession;
  clock: Clock;
  caches: SharedCaches;
  intake: SessionIntake;
  identity: Identity;
  creds: SessionCreds;
  chats: ChatRecorder;
  history: HistoryImporter;
  labels?: SessionLabels | undefined;
  /** The lifecycle's input: the link opened, closed, or issued a QR. */
  connectionUpdate(update: Partial<ConnectionState>): Promise<void>;
  /** The creds now carry the account (the device is paired). */
  accountKnown(): void;
}

type Batch = Partial<BaileysEventMap>;

type IntakeEntry =
  | { via: 'emit'; family: keyof BaileysEventMap; why: string; /** Baileys' own listeners get it too. */ passOn: boolean; take(t: IntakeTarget, link: Link, data: unknown): void }
  | { via: 'frame'; family: readonly string[]; why: string; take(t: IntakeTarget, link: Link, node: BinaryNode): void }
  | { via: 'batch'; family: readonly (keyof BaileysEventMap)[]; why: string; take(t: IntakeTarget, link: Link, events: Batch): Promise<void> | void };

export const INTAKE: readonly IntakeEntry[] = [
  {
    via: 'emit',
    family: 'creds.update',
    why: 'Baileys applies it as it emits (never buffered): the frames it leads to wait until the creds are on disk',
    passOn: true,
    take: (t, link) => t.creds.holdUntilSaved(link.auth, link.gate, link.sock),
  },
  {
    via: 'emit',
    family: 'messaging-history.set',
    why: 'taken chunk by chunk: the buffer would hold every chunk of a large history until the initial sync ends',
    passOn: false,
    take: (t, _link, data) => t.history.take(data as HistorySet),
  },
  {
    via: 'emit',
    family: 'messages.upsert',
    why: 'not after the buffer (100 ms, or a whole offline catch-up): receipts are held until the messages are committed',
    passOn: false,
    take: (t, link, data) => {
      const upsert = data as { messages: WAMessage[]; type: 'append' | 'notify' };
      t.intake.takeUpsert(upsert.messages, upsert.type, link.gate, link.sock);
    },
  },
  {
    via: 'frame',
    family: ['CB:ack,class:message'],
    why: "the server ack of a sent message, which Baileys does not report: a send resolves on it",
    take: (t, _link, node) => t.session.tracker.onAck(node),
  },
  {
    via: 'frame',
    family: COMMUNITY_FRAMES,
    why: 'community changes Baileys drops (link, unlink, deactivation): reported like any group change',
    take: (t, link, node) => {
      const change = communityChangeOf(node);
      if (!change) return;
      for (const jid of change.groups) forgetGroup(t.caches, t.session.id, jid);
      t.intake.takeUpsert([change.message], 'append', link.gate, link.sock);
    },
  },
  {
    via: 'batch',
    family: ['labels.edit', 'labels.association'],
    why: 'handed over before any await: the API waits for its own label change to be stored',
    take: (t, _link, events) => {
      void t.labels?.engineEvents(t.session, { edit: events['labels.edit'], association: events['labels.association'] });
    },
  },
  {
    via: 'batch',
    family: ['creds.update'],
    why: 'the creds carry the account from the pairing on: the session is registered',
    take: (t, link) => {
      if (link.auth.state.creds.account) t.accountKnown();
    },
  },
  { via: 'batch', family: ['connection.update'], why: 'the link opened, closed or issued a QR', take: (t, _link, events) => t.connectionUpdate(events['connection.update']!) },
  {
    via: 'batch',
    family: ['messages.update'],
    why: 'status changes of sent messages, and messages the phone read (READ_BY_ME)',
    take: async (t, _link, events) => {
      const updates = events['messages.update']!;
      t.session.tracker.onUpdates(updates);
      await t.intake.onReadByMe(updates);
    },
  },
  { via: 'batch', family: ['call'], why: 'calls: reported, and rejected when the instance asks', take: (t, _link, events) => t.intake.onCalls(events.call!) },
  {
    via: 'batch',
    family: ['newsletter-participants.update'],
    why: "a channel's admins changed",
    take: async (t, _link, events) => {
      const note = await newsletterParticipantNotification(events['newsletter-participants.update']!, t.identity.incomingContext(), t.clock.now());
      if (note) await t.session.emit([note]);
    },
  },
  { via: 'batch', family: ['presence.update'], why: 'a contact is online, typing or recording', take: (t, _link, events) => t.intake.onPresence(events['presence.update']!) },
  { via: 'batch', family: ['message-receipt.update'], why: 'receipts of sent messages in groups', take: (t, _link, events) => t.session.tracker.onReceipts(events['message-receipt.update']!) },
  {
    via: 'batch',
    family: ['groups.update', 'group-participants.update'],
    why: "a group changed: its cached metadata is outdated",
    take: (t, _link, events) => {
      for (const g of events['groups.update'] ?? []) if (g.id) forgetGroup(t.caches, t.session.id, g.id);
      const participants = events['group-participants.update'];
      if (participants) forgetGroup(t.caches, t.session.id, participants.id);
    },
  },
  {
    via: 'batch',
    family: ['groups.upsert'],
    why: 'a group joined or created: its metadata is known',
    take: (t, _link, events) => {
      for (const g of events['groups.upsert'] ?? []) rememberGroup(t.caches, t.session.id, g);
    },
  },
  {
    via: 'batch',
    family: ['lid-mapping.update'],
    why: "a LID's number became known (app-state, linked profiles): the copy's chat under the LID moves under it",
    take: (t, _link, events) => {
      const m = events['lid-mapping.update'];
      if (m) t.chats.personLearned(userOf(m.pn), `${userOf(m.lid)}@lid`);
    },
  },
  {
    via: 'batch',
    family: ['chats.upsert', 'chats.update', 'contacts.upsert', 'contacts.update'],
    why: 'the stored copy of chats and contacts',
    take: (t, _link, events) => t.chats.engineEvents(events),
  },
];

/** Routes one socket's input through the table; `current` says the socket is still the session's. */
export function installIntake(target: IntakeTarget, link: Link, current: () => boolean): void {
  const { sock } = link;
  const emitted = new Map<string, Extract<IntakeEntry, { via: 'emit' }>>();
  const batched: Extract<IntakeEntry, { via: 'batch' }>[] = [];
  for (const entry of INTAKE) {
    if (entry.via === 'emit') emitted.set(entry.family, entry);
    else if (entry.via === 'batch') batched.push(entry);
    else {
      for (const frame of entry.family) {
        sock.ws.on(frame, (node: BinaryNode) => {
          if (current()) entry.take(target, link, node);
        });
      }
    }
  }
  const emit = sock.ev.emit.bind(sock.ev);
  (sock.ev as { emit: (event: string, data: unknown) => boolean }).emit = (event, data) => {
    const entry = emitted.get(event);
    if (!entry || !current()) return emit(event as 'messages.upsert', data as never);
    const listened = entry.passOn ? emit(event as 'messages.upsert', data as never) : true;
    entry.take(target, link, data);
    return listened;
  };
  sock.ev.process(async (events) => {
    if (!current()) return;
    try {
      for (const entry of batched) {
        if (!entry.family.some((f) => events[f])) continue;
        const taken = entry.take(target, link, events);
        if (taken) await taken;
      }
    } catch (err) {
      target.session.failed(err, 'handle engine events');
    }
  });
}
