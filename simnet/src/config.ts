// simnet's options and their defaults; every protocol duration is multiplied by timeScale.
export interface ReceiptPolicy {
  /** 'auto': the contact's phone sends the receipt by itself after the delay; 'manual': only on an admin call; 'never'. */
  delivered: 'auto' | 'manual' | 'never';
  read: 'auto' | 'manual' | 'never';
  /** Unscaled milliseconds (multiplied by timeScale). */
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
   * After a violation the account may not start new chats for this long (protocol ms, scaled by
   * timeScale): WhatsApp's temporary restriction before a ban. Each attempt meanwhile is refused
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
  /** Multiplies every protocol duration (QR ref lifetimes, receipt delays, pairing timeouts). Tests use ~0.01. */
  timeScale?: number;
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
  timeScale: number;
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
    timeScale: o.timeScale ?? 1,
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
