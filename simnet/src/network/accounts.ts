// Virtual accounts (phone number, LID, push name), their phones and their linked (companion) devices.
import { randomInt } from 'node:crypto';
import type { BinaryNode } from 'baileys';
import type { ReceiptPolicy } from '../config.js';
import { SignalDevice } from '../contacts/signal-device.js';
import { PreKeyPool } from './prekey-pool.js';
import type { ReceivedMessage } from '../contacts/content.js';
import type { KeyPair } from '../cert.js';
import type { IdentityKeyPair } from '../identity-key.js';
import { RecentSent, type RetryRecord } from './recent-sent.js';

export interface ChatstateRecord {
  /** Phone whose linked device sent it. */
  from: string;
  deviceId: number;
  state: 'composing' | 'recording' | 'paused';
  /** Group jid when the device typed in a group. */
  groupId?: string;
  t: number;
}

/** What a linked device needs from its live connection; implemented by server/connection.ts. */
export interface DeviceLink {
  sendNode(node: BinaryNode): void;
  readonly isOnline: boolean;
}

/**
 * What a contact remembers of polls and events it received or sent, to vote or answer later and
 * to read the votes, answers and edits others send (each is encrypted with the original's secret).
 */
export interface PollMemory {
  secret: Buffer;
  creatorJid: string;
  /** The creator's LID jid: LID-addressed chats sign with it. */
  creatorLid?: string;
  /** A poll's options (none for an event). */
  options: string[];
}

/** A Baileys client that was paired to an account (device id ≥ 1). */
export class LinkedDevice {
  /** One-time pre-keys the device uploaded and nobody has been handed yet. */
  readonly preKeys = new PreKeyPool();
  signedPreKey: { id: number; pub: Buffer; sig: Buffer } | null = null;
  link: DeviceLink | null = null;
  /** Stanzas held while the device is offline (or delivered but not yet acked), in order. */
  offline: BinaryNode[] = [];
  removed = false;
  /** The phone shares the app-state key and a history notice after the first login following pairing. */
  needsBootstrap = true;
  pushName: string;
  /** Presence subscriptions of the current session (`<presence type="subscribe">`): contact phone → jid subscribed to. Reset at login, as on the real server. */
  readonly presenceSubs = new Map<string, string>();
  /** What the device last announced about itself (`<presence type="available|unavailable">`). */
  lastPresence: 'available' | 'unavailable' | null = null;
  /** Fault: the server loses this device's acks and receipts, so everything it was sent stays held. */
  dropAcks = false;
  /**
   * The most connections logged in as this device at the same moment over the run (a login while
   * an older connection is still open counts both, before the older one is told it was replaced),
   * and how many logins replaced a connection still open. A gateway that never drives one device
   * from two places keeps these at 1 and 0.
   */
  maxSockets = 0;
  replacedSockets = 0;

  constructor(
    readonly account: Account,
    readonly id: number,
    readonly keyIndex: number,
    readonly noiseKey: Buffer,
    readonly identityKey: Buffer,
    public registrationId: number,
    readonly platform: string,
  ) {
    this.pushName = account.pushName;
  }

  get online(): boolean {
    return !!this.link?.isOnline;
  }
}

export interface ReceiptRecord {
  messageId: string;
  /** Phone that sent the receipt. */
  from: string;
  /** Phone whose message it acknowledges. */
  to: string;
  type: 'delivered' | 'read' | 'played';
  t: number;
  groupId?: string;
}

export interface AppStateCollection {
  version: number;
  patches: Uint8Array[];
}

export class Account {
  /** Device 0: the phone, a libsignal device. Created on first use to keep idle accounts small. */
  private phoneDevice: SignalDevice | null = null;
  readonly companions = new Map<number, LinkedDevice>();
  nextDeviceId = 1;
  nextKeyIndex = 1;
  /** Decrypted messages this account's phone received from others. */
  readonly received: ReceivedMessage[] = [];
  /** Device-sent copies: what this account's linked devices sent, as seen by its own phone. */
  readonly sentCopies: ReceivedMessage[] = [];
  /** Receipts this account's phone sent (as a contact) and received (for messages it sent). */
  readonly receiptsSent: ReceiptRecord[] = [];
  readonly receiptsReceived: ReceiptRecord[] = [];
  policy: ReceiptPolicy;
  /** App-state sync key the phone shares with its linked devices. */
  readonly appStateKey = { id: Buffer.from(randomInt(2 ** 30).toString(16).padStart(12, '0'), 'hex'), data: randomBytes32() };
  readonly appState = new Map<string, AppStateCollection>();
  /** Polls this account's phone received (by message id), so it can vote. Bounded. */
  readonly polls = new Map<string, PollMemory>();
  banned = false;
  /**
   * A WhatsApp Business account: its phone reports the business platform (`smba`) to the devices it
   * links, and the network answers business queries (profile, catalog, labels) for it.
   */
  business = false;
  /** Privacy "who can add me to groups": false makes group adds fail with 403 (an invite is due instead). */
  groupAddable = true;
  /**
   * How this account's phone addresses the people it writes to (docs: whatsapp-protocol, LIDs):
   * `lid` — its 1:1 messages arrive from its LID (with `sender_pn` beside it unless the number is
   * hidden); `hideNumber` — WhatsApp withholds its number: no `sender_pn`/`participant_pn`, no
   * `phone_number` in group metadata, so a linked device knows it by LID only.
   */
  addressing = { lid: false, hideNumber: false };
  violations = 0;
  /** Wall-clock ms until which the spam detector refuses this account's new chats (0 = not restricted). */
  newChatsRestrictedUntil = 0;
  /** Recipients this account has written to (for the spam detector's "new chat" rule). */
  readonly knownPeers = new Set<string>();
  /** The phone's own presence as its contacts' subscribed devices see it. */
  presence: { available: boolean; lastSeen: number | null } = { available: false, lastSeen: null };
  /** Chat states (typing, recording, paused) linked devices sent this account's phone. Bounded. */
  readonly chatstatesReceived: ChatstateRecord[] = [];
  /** Plaintext of what this phone sent recently, so it can re-encrypt on a retry receipt. */
  readonly recentSent = new RecentSent();
  /** Retry receipts this phone got from linked devices and what it did about them. Bounded. */
  readonly retryLog: RetryRecord[] = [];

  constructor(
    readonly phone: string,
    readonly lid: string,
    public pushName: string,
    policy: ReceiptPolicy,
  ) {
    this.policy = { ...policy };
  }

  get phoneSignal(): SignalDevice {
    this.phoneDevice ??= new SignalDevice();
    return this.phoneDevice;
  }

  /** Account signature key = the phone's identity key (what ADV accountSignatureKey carries). */
  get accountKey(): IdentityKeyPair | KeyPair {
    return this.phoneSignal.identity;
  }

  activeCompanions(): LinkedDevice[] {
    return [...this.companions.values()].filter((d) => !d.removed);
  }
}

function randomBytes32(): Buffer {
  const b = Buffer.alloc(32);
  for (let i = 0; i < 32; i++) b[i] = randomInt(256);
  return b;
}

/** All accounts, addressable by phone number or LID. */
export class Registry {
  private readonly byPhone = new Map<string, Account>();
  private readonly byLid = new Map<string, Account>();

  constructor(
    private readonly autoPattern: RegExp | null,
    private readonly defaultPolicy: ReceiptPolicy,
  ) {}

  create(phone: string, pushName?: string): Account {
    const existing = this.byPhone.get(phone);
    if (existing) {
      if (pushName) existing.pushName = pushName;
      return existing;
    }
    let lid: string;
    // LIDs are 15-digit numbers unrelated to the phone; retry on the (unlikely) collision.
    do lid = `${randomInt(1, 10)}${String(randomInt(0, 2 ** 47)).padStart(14, '0').slice(0, 14)}`;
    while (this.byLid.has(lid));
    const acc = new Account(phone, lid, pushName ?? `User ${phone.slice(-4)}`, this.defaultPolicy);
    this.byPhone.set(phone, acc);
    this.byLid.set(lid, acc);
    return acc;
  }

  /** Existing account, or one created on demand when the number matches the auto pattern. */
  byNumber(phone: string): Account | undefined {
    const acc = this.byPhone.get(phone);
    if (acc) return acc;
    if (this.autoPattern?.test(phone)) return this.create(phone);
    return undefined;
  }

  byLidUser(lid: string): Account | undefined {
    return this.byLid.get(lid);
  }

  /** Resolves the user part of a PN or LID jid. */
  byUser(user: string, server: string): Account | undefined {
    return server === 'lid' ? this.byLid.get(user) : this.byNumber(user);
  }

  all(): IterableIterator<Account> {
    return this.byPhone.values();
  }

  get size(): number {
    return this.byPhone.size;
  }
}
