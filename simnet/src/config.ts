// simnet's options and their defaults. Every duration is protocol ms on simnet's clock (clock.ts):
// a time scale compresses the clock, not the durations.
import { TimeLapseClock, type SimClock } from './clock.js';

export interface ReceiptPolicy {
  /** 'auto': the contact's phone sends the receipt by itself after the delay; 'manual': only on an admin call; 'never'. */
  delivered: 'auto' | 'manual' | 'never';
  read: 'auto' | 'manual' | 'never';
  /** Protocol ms from the message to the contact's receipt. */
  deliveredDelayMs: number;
  readDelayMs: number;
}

export interface SpamPolicy {
  enabled: boolean;
  /** New conversations (recipients never written to before) allowed per window before restriction nacks. */
  maxNewChatsPerWindow: number;
  /** Same content to more than this many distinct recipients in a window counts as a broadcast. */
  maxIdenticalRecipients: number;
  windowMs: number;
  /** After this many restriction nacks the account is banned (failure 403 on the live and every later login). */
  banAfterViolations: number;
  /**
   * After a violation the account may not start new chats for this long (protocol ms): WhatsApp's
   * temporary restriction before a ban. Each attempt meanwhile is refused
   * with 463 and counts as a further violation; known peers are unaffected. 0 = no such period.
   */
  restrictNewChatsMs: number;
}

export interface SimnetOptions {
  /** Port of the HTTP server carrying both the websocket (/ws/chat) and the admin API (/admin). 0 = any. */
  port?: number;
  /** Port of the HTTPS media host. 0 = any. */
  mediaPort?: number;
  host?: string;
  /**
   * The clock simnet keeps time by (clock.ts): a test's virtual clock, or the gateway's own, so both
   * sides of the wire agree on time. When given, timeScale and timeOrigin are not used.
   */
  clock?: SimClock;
  /**
   * Without `clock`: a time-lapse, 1 / timeScale times faster than real time from timeOrigin (QR ref
   * lifetimes, receipt delays, spam windows, calls all pass that much sooner). Default 1: the wall clock.
   */
  timeScale?: number;
  /**
   * Without `clock`: the instant (ms since the epoch) the time-lapse starts from. Give the gateway the
   * same (ZAPGATE_TIME_ORIGIN) so both clocks agree. Default: when simnet starts.
   */
  timeOrigin?: number;
  /** Phone numbers matching this pattern exist on demand. Default: /^(55|1)\d{8,12}$/ (Brazil and NANP). */
  autoUserPattern?: RegExp | string | null;
  /** Seed of the root certificate key (deterministic, so separate processes agree). Default 'simnet-root-v1'. */
  rootSeed?: string;
  receipts?: Partial<ReceiptPolicy>;
  spam?: Partial<SpamPolicy>;
  /** Number of QR refs sent per pairing attempt (real network: 6). */
  qrRefs?: number;
  /** Mark stanzas held for an offline device with offline="1" on delivery (the real network does). */
  markOffline?: boolean;
  /** Optional sink for diagnostics. */
  log?: (msg: string, data?: unknown) => void;
}

export interface ResolvedConfig {
  port: number;
  mediaPort: number;
  host: string;
  clock: SimClock;
  autoUserPattern: RegExp | null;
  rootSeed: string;
  receipts: ReceiptPolicy;
  spam: SpamPolicy;
  qrRefs: number;
  markOffline: boolean;
  log: (msg: string, data?: unknown) => void;
}

export const DEFAULT_AUTO_USER_PATTERN = /^(55|1)\d{8,12}$/;

export function resolveConfig(o: SimnetOptions = {}): ResolvedConfig {
  const pat = o.autoUserPattern === undefined ? DEFAULT_AUTO_USER_PATTERN : o.autoUserPattern;
  return {
    port: o.port ?? 0,
    mediaPort: o.mediaPort ?? 0,
    host: o.host ?? '127.0.0.1',
    clock: o.clock ?? new TimeLapseClock(o.timeScale ?? 1, o.timeOrigin),
    autoUserPattern: pat === null ? null : typeof pat === 'string' ? new RegExp(pat) : pat,
    rootSeed: o.rootSeed ?? 'simnet-root-v1',
    receipts: { delivered: 'auto', read: 'manual', deliveredDelayMs: 500, readDelayMs: 2000, ...o.receipts },
    spam: {
      enabled: false,
      maxNewChatsPerWindow: 20,
      maxIdenticalRecipients: 10,
      windowMs: 60 * 60 * 1000,
      banAfterViolations: 5,
      restrictNewChatsMs: 0,
      ...o.spam,
    },
    qrRefs: o.qrRefs ?? 6,
    markOffline: o.markOffline ?? true,
    log: o.log ?? (() => {}),
  };
}
