// What a handler, a contact action or an admin module may use of the running network: its state, the
// clock, ids, and delivery to linked devices. The `Simnet` class implements it; everything else takes
// this interface, so no module needs the class (which imports the handlers) and none closes a circle
// through it. A leaf: it imports state and types, never a handler.
import type { BinaryNode } from 'baileys';
import type { IntervalHistogram } from 'node:perf_hooks';
import type { ResolvedConfig } from '../config.js';
import type { Cancel, SimClock } from '../clock.js';
import type { Registry, LinkedDevice } from '../network/accounts.js';
import type { Counters } from '../network/counters.js';
import type { GroupStore } from '../network/groups.js';
import type { NewsletterStore } from '../network/newsletters.js';
import type { CatalogStore } from '../network/catalogs.js';
import type { Faults } from '../network/faults.js';
import type { MessageIndex } from '../network/message-index.js';
import type { SpamDetector } from '../network/spam.js';
import type { MediaHost } from '../media/host.js';
import type { ReceivedMessage } from '../contacts/content.js';
import type { ClientConnection } from './connection.js';

/** A device linked by pairing: what the phone's side (scan, code) answers. */
export interface PairedDevice {
  jid: string;
  lid: string;
  deviceId: number;
}

/**
 * Companion pairing as the rest of the network reaches it: the phone scans a QR or types a code (admin
 * API), and the companion's md and pair-device-sign iqs. The server itself starts registrations.
 */
export interface Pairing {
  scanQr(phone: string, qr: string): PairedDevice;
  enterPairingCode(phone: string, codeText: string): Promise<PairedDevice>;
  handleLinkCode(conn: ClientConnection, node: BinaryNode, reg: BinaryNode): void;
  handlePairDeviceSign(conn: ClientConnection): void;
}

export interface SimnetContext {
  readonly config: ResolvedConfig;

  // The network's state.
  readonly registry: Registry;
  readonly groups: GroupStore;
  readonly newsletters: NewsletterStore;
  /** Business accounts' catalogs (products, collections, cart setting). */
  readonly catalogs: CatalogStore;
  readonly messages: MessageIndex;
  readonly faults: Faults;
  readonly spam: SpamDetector;
  readonly pairing: Pairing;
  /** The HTTPS media host, once started. */
  readonly media: MediaHost | null;
  readonly counters: Counters;

  // Time: protocol ms on the network's clock (clock.ts).
  readonly clock: SimClock;
  /** The network's time, ms since the epoch. */
  now(): number;
  /** The network's time in whole seconds, as stanzas' `t` carries it. */
  nowSec(): string;
  /** Runs `fn` once `ms` of protocol time have passed, unless simnet closed first. */
  after(ms: number, fn: () => void): Cancel;
  /** Runs `fn` after a guard of `ms` (clock.ts: something outside the network), unless simnet closed first. */
  guard(ms: number, fn: () => void): Cancel;
  /** Server-generated stanza / message id. */
  newId(): string;

  // Delivery to linked devices.
  /** Hands a stanza to a linked device now, or holds it until the device is online and active. */
  deliver(device: LinkedDevice, node: BinaryNode): void;
  /** Pushes everything held for a device (marked offline), then the end-of-queue marker. */
  flushOffline(conn: ClientConnection, device: LinkedDevice): void;
  /** The client acknowledged a stanza delivered to it: stop holding it (one copy, or every copy of a message). */
  acknowledged(device: LinkedDevice, tag: string, id: string, copies?: 'oldest' | 'all'): void;
  /** A contact decrypted something: tells in-process listeners. */
  emitReceived(m: ReceivedMessage): void;
}

/** The admin API also reports the server's own health (stats). */
export interface AdminContext extends SimnetContext {
  readonly connections: ReadonlySet<ClientConnection>;
  /** Event-loop delay while listening. */
  readonly loopDelay: IntervalHistogram;
}
