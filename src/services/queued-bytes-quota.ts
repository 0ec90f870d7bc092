// The per-account cap on queued bytes (ZAPGATE_MAX_QUEUED_BYTES_PER_ACCOUNT): payloads of the
// messages waiting for the account's instances, plus each stored media file they reference counted
// once (a file sent to a hundred numbers is stored once, so it counts once). Checked on every send,
// so it must stay cheap: the total is read from the store (a scan of the account's waiting messages)
// at most once per `refreshMs` per account while the account is past half its cap, and once per
// `idleRefreshMs` below that, and kept up to date in between with what this process accepts, with
// no promise at all (bench/enqueue). Sent messages are noticed at the next refresh, so the check
// errs on the side of refusing, for at most `refreshMs` near the cap.
import type { Clock } from '../clock.js';
import { errors } from '../errors.js';
import { mediaRefsIn } from '../media/outgoing-store.js';
import type { MessagesRepo } from '../store/messages-repo.js';

interface Usage {
  bytes: number;
  /** Stored files already counted. */
  media: Set<string>;
  at: number;
}

interface QueuedMedia {
  sha256: string;
  bytes: number;
}

/** Seconds a refused client is told to wait: long enough for a paced queue to move. */
const RETRY_AFTER_SECONDS = 5;

/** What the quota needs of the store (the SQL store implements it): what waiting messages hold. */
interface QueuedBytesStore {
  readonly messages: Pick<MessagesRepo, 'waitingMediaPayloads' | 'waitingPayloadChars'>;
}

export class QueuedBytesQuota {
  private readonly usage = new Map<string, Usage>();
  private readonly refreshing = new Map<string, Promise<Usage>>();

  constructor(
    private readonly store: QueuedBytesStore,
    private readonly clock: Clock,
    /** 0: no cap. */
    private readonly limit: number,
    private readonly refreshMs = 1_000,
    private readonly idleRefreshMs = 30_000,
  ) {}

  /**
   * Counts the message against the account's cap, or throws 429 (queue_full) when it does not fit.
   * Answers synchronously (undefined) when the account's usage is fresh enough, as it nearly always is.
   */
  admit(accountId: string, payloadChars: number, media: readonly QueuedMedia[]): Promise<void> | undefined {
    if (this.limit <= 0) return undefined;
    const u = this.usage.get(accountId);
    if (u && this.clock.now() - u.at <= (u.bytes * 2 < this.limit ? this.idleRefreshMs : this.refreshMs)) {
      this.count(u, payloadChars, media);
      return undefined;
    }
    return this.refresh(accountId).then((fresh) => this.count(fresh, payloadChars, media));
  }

  private count(u: Usage, payloadChars: number, media: readonly QueuedMedia[]): void {
    let adding = payloadChars;
    for (const m of media) if (!u.media.has(m.sha256)) adding += m.bytes;
    if (u.bytes + adding > this.limit) throw errors.queuedBytesFull(u.bytes, adding, this.limit, RETRY_AFTER_SECONDS);
    u.bytes += adding;
    for (const m of media) u.media.add(m.sha256);
  }

  private refresh(accountId: string): Promise<Usage> {
    let p = this.refreshing.get(accountId);
    if (!p) {
      p = (async () => {
        const at = this.clock.now();
        const [chars, payloads] = await Promise.all([
          this.store.messages.waitingPayloadChars(accountId),
          this.store.messages.waitingMediaPayloads(accountId),
        ]);
        const media = new Map<string, number>();
        for (const payload of payloads) for (const [sha, bytes] of mediaRefsIn(payload)) media.set(sha, bytes);
        let bytes = chars;
        for (const b of media.values()) bytes += b;
        const u: Usage = { bytes, media: new Set(media.keys()), at };
        if (this.usage.size > 10_000) this.usage.clear();
        this.usage.set(accountId, u);
        return u;
      })().finally(() => this.refreshing.delete(accountId));
      this.refreshing.set(accountId, p);
    }
    return p;
  }
}
