// What a feature engine may touch of an instance's link: the live socket and what the session keeps
// beside it. Session implements it; engines (operations, account, chats, groups, communities,
// channels, business, catalog) and the session hooks take this interface, never the class, so the
// engine's surface is written down in one place and no engine file depends on the session's body.
import type { AuthenticationCreds } from 'baileys';
import type { Person } from '../domain/person.js';
import type { GatewayEvent } from '../events/types.js';
import type { Logger } from '../logger.js';
import type { MessageMemory } from './link/message-memory.js';
import type { SharedCaches, WASocket } from './link/socket-config.js';
import type { ChatRecorder } from './inbound/chat-recorder.js';
import type { StatusTracker } from './inbound/status-tracker.js';

/** The account's own addresses: phone jid and LID jid (without device), once known. */
export interface OwnAddress {
  pn: string;
  lid: string | null;
}

export interface LiveSession {
  readonly id: string;
  /** The current socket (null between links); usable only while `open`. */
  readonly sock: WASocket | null;
  readonly open: boolean;
  readonly me: OwnAddress | null;
  /** The credentials as Baileys keeps them (push name, platform, device), once loaded. */
  readonly creds: AuthenticationCreds | null;
  /** Caches shared by every socket of the process (group metadata, devices, retries). */
  readonly caches: SharedCaches;
  /** Messages this instance sent or received lately (quotes, retries, deletions, reads). */
  readonly memory: MessageMemory;
  /** Server acks and receipts of sent messages. */
  readonly tracker: StatusTracker;
  readonly log: Logger;
  /** A person's phone number (digits), the LID address when the network never told it. */
  phoneOf(jid: string | null | undefined, alt?: string | null, group?: string): Promise<string>;
  /** The person behind a jid: phone (or the LID address) and LID when known. */
  personOf(jid: string | null | undefined, alt?: string | null, group?: string): Promise<Person>;
  /** The stored copy's recorder: contacts/add and /remove announce their change (its echo is not the saved name). */
  readonly chats: Pick<ChatRecorder, 'expectOwnContactChange'>;
  /** Hands events to the outbox (a failure is logged, not thrown). */
  emit(events: readonly GatewayEvent[]): Promise<void>;
  /** Logs and counts a failure of background work. */
  failed(err: unknown, what: string): void;
}
