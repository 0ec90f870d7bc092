// Wire types of the admin API, shared by the HTTP server and the typed client.
import type { ReceivedMessage } from '../contacts/content.js';
import type { ReceiptRecord } from '../network/accounts.js';
import type { ContactSend } from '../contacts/compose.js';
import type { ReceiptPolicy } from '../config.js';

export type { ReceivedMessage, ReceiptRecord, ContactSend, ReceiptPolicy };

export interface SimnetInfo {
  wsUrl: string;
  adminUrl: string;
  /** Base64 of the 32-byte root public key: assign to Baileys' WA_CERT_DETAILS.PUBLIC_KEY. */
  rootPublicKey: string;
  /** PEM of the CA that signed the media host certificate. */
  mediaCaPem: string;
  /** host:port of the HTTPS media host. */
  mediaHost: string;
}

export interface UserInfo {
  phone: string;
  lid: string;
  pushName: string;
  banned: boolean;
  /** held: stanzas waiting for the device (offline, or delivered but not acked); heldMessages: ids of the held <message>s. */
  devices: { id: number; online: boolean; platform: string; held: number; heldMessages: string[]; preKeys: number }[];
}

export type SendAsContactRequest = ContactSend & { from: string; to: string };

export type FaultRequest =
  | { kind: 'stream-error'; code: 515 | 503 | 440 | 401 }
  | { kind: 'silence' }
  | { kind: 'close' }
  | { kind: 'nack'; code: number; count?: number }
  | { kind: 'ban' };

export interface GroupInfo {
  jid: string;
  subject: string;
  creator: string;
  participants: { phone: string; lid: string; role: string | null }[];
  announce: boolean;
  locked: boolean;
  memberAddMode: string;
  joinApproval: boolean;
  inviteCode: string;
}

export interface CountersSnapshot {
  counters: Record<string, number>;
  /** `${recipientPhone}:${messageId}` → deliveries, only where > 1. */
  duplicates: Record<string, number>;
  deliveries: Record<string, number>;
}

export interface SimnetStats {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  accounts: number;
  devices: number;
  online: number;
  connections: number;
  /** Event-loop delay since the previous stats() call (ms), and the process's CPU time so far (ms). */
  eventLoopDelayMs: { mean: number; p99: number; max: number };
  cpuMs: { user: number; system: number };
}
