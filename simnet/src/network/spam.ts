// Network policy: a spam detector (first messages to strangers per window; identical content to many
// recipients) → 463 nacks, optionally a temporary restriction of new chats, then a ban.
import { createHash } from 'node:crypto';
import type { ResolvedConfig } from '../config.js';
import type { SimClock } from '../clock.js';
import type { Counters } from './counters.js';
import type { Account } from './accounts.js';

interface Window {
  start: number;
  newChats: number;
  /** content hash → recipients that got it in this window */
  contents: Map<string, Set<string>>;
}

export type SpamVerdict = 'ok' | 'restricted' | 'banned';

export class SpamDetector {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly config: Pick<ResolvedConfig, 'spam'>,
    private readonly clock: Pick<SimClock, 'now'>,
    private readonly counters: Counters,
  ) {}

  /** Judges one 1:1 send; records it when allowed. */
  check(sender: Account, recipientPhone: string, contentKey: Uint8Array | null): SpamVerdict {
    const cfg = this.config.spam;
    if (sender.banned) return 'banned';
    if (!cfg.enabled) {
      sender.knownPeers.add(recipientPhone);
      return 'ok';
    }
    const now = this.clock.now();
    let w = this.windows.get(sender.phone);
    if (!w || now - w.start > cfg.windowMs) {
      w = { start: now, newChats: 0, contents: new Map() };
      this.windows.set(sender.phone, w);
    }
    const isNew = !sender.knownPeers.has(recipientPhone);
    // While restricted, every new chat attempted is refused and held against the account.
    let violation = isNew && (w.newChats >= cfg.maxNewChatsPerWindow || now < sender.newChatsRestrictedUntil);
    let hash: string | null = null;
    if (contentKey && contentKey.length) {
      hash = createHash('sha256').update(contentKey).digest('base64');
      const rec = w.contents.get(hash);
      if (rec && !rec.has(recipientPhone) && rec.size >= cfg.maxIdenticalRecipients) violation = true;
    }
    if (violation) {
      sender.violations++;
      this.counters.inc('spam.restricted');
      if (cfg.restrictNewChatsMs > 0) sender.newChatsRestrictedUntil = now + cfg.restrictNewChatsMs;
      if (sender.violations >= cfg.banAfterViolations) {
        sender.banned = true;
        this.counters.inc('spam.banned');
        return 'banned';
      }
      return 'restricted';
    }
    if (isNew) w.newChats++;
    sender.knownPeers.add(recipientPhone);
    if (hash) {
      let rec = w.contents.get(hash);
      if (!rec) w.contents.set(hash, (rec = new Set()));
      rec.add(recipientPhone);
    }
    return 'ok';
  }
}
