// What one instance remembers of its recent messages (in the store's wa_messages): enough to quote
// them, answer retry requests, decrypt votes on its polls and build exact keys for deletions.
import { proto, type WAMessage } from 'baileys';
import type { WaMessagesRepo } from '../../store/wa-messages-repo.js';
import type { WaMessageRow } from '../../store/schema.js';
import type { StoredList } from '../inbound/incoming.js';
import { parseMeta, type ListMeta } from '../outbound/lists.js';

/** Messages older than this are forgotten (quotes and deletions of older ones fall back to defaults). */
export const MESSAGE_RETENTION_MS = 14 * 24 * 60 * 60_000;

/** Stores a row in another writer's batch (the queue's state moves: see `hold`). */
export type RowWriter = (row: WaMessageRow) => Promise<void>;

export class MessageMemory {
  /** Rows held until their commit (`hold`): read from here until then. */
  private readonly held = new Map<string, WaMessageRow>();

  constructor(
    private readonly repo: WaMessagesRepo,
    private readonly instanceId: string,
    private readonly now: () => number,
    private readonly heldWriter: RowWriter = (row) => repo.put(row),
  ) {}

  async remember(msg: WAMessage, meta?: ListMeta): Promise<void> {
    const row = this.rowOf(msg, meta);
    if (row) await this.repo.put(row);
  }

  /**
   * Remembers a message being sent at once in memory, and on disk only at `commit()`: called once
   * the network acked it, its row then shares the commit of the ack's status advance (one fsync per
   * sent message less, docs/benchmarks.md). Until then reads (a retry receipt's resend, a quote)
   * find it here. Held rows are not on disk: a crash before the commit leaves the message in
   * flight, and its resend after the restart remembers it again.
   */
  hold(msg: WAMessage, meta?: ListMeta): { commit(): Promise<void> } {
    const row = this.rowOf(msg, meta);
    if (!row) return { commit: () => Promise.resolve() };
    this.held.set(row.message_id, row);
    let written: Promise<void> | null = null;
    const write = async (): Promise<void> => {
      try {
        await this.heldWriter(row);
      } finally {
        if (this.held.get(row.message_id) === row) this.held.delete(row.message_id);
      }
    };
    // Once, whoever asks first (the send's own path, or its failure path after a timeout).
    return { commit: () => (written ??= write()) };
  }

  /** Stores a row made by rowOf(); resolves after the commit. */
  put(row: WaMessageRow): Promise<void> {
    return this.repo.put(row);
  }

  /** The row remember() would store (null for what has nothing to remember), for a caller's own commit. */
  rowOf(msg: WAMessage, meta?: ListMeta): WaMessageRow | null {
    const { key, message } = msg;
    if (!key.id || !key.remoteJid || !message) return null;
    return {
      instance_id: this.instanceId,
      message_id: key.id,
      remote_jid: key.remoteJid,
      from_me: key.fromMe ? 1 : 0,
      participant: key.participant ?? null,
      message: Buffer.from(proto.Message.encode(message).finish()).toString('base64'),
      meta: meta ? JSON.stringify(meta) : null,
      created_at: this.now(),
    };
  }

  row(messageId: string): Promise<WaMessageRow | undefined> {
    const held = this.held.get(messageId);
    if (held) return Promise.resolve(held);
    return this.repo.find(this.instanceId, messageId);
  }

  async message(messageId: string): Promise<proto.IMessage | undefined> {
    const row = await this.row(messageId);
    return row ? decode(row) : undefined;
  }

  /** The stored message as Baileys' `quoted` option wants it. */
  async quoted(messageId: string): Promise<WAMessage | undefined> {
    const row = await this.row(messageId);
    if (!row) return undefined;
    return {
      key: { remoteJid: row.remote_jid, fromMe: row.from_me === 1, id: row.message_id, ...(row.participant ? { participant: row.participant } : {}) },
      message: decode(row),
    };
  }

  async listById(messageId: string): Promise<StoredList | undefined> {
    return toList(await this.row(messageId));
  }

  async latestList(chatJid: string): Promise<StoredList | undefined> {
    return toList(await this.repo.latestWithMeta(this.instanceId, chatJid));
  }
}

function decode(row: WaMessageRow): proto.IMessage {
  return proto.Message.decode(Buffer.from(row.message, 'base64'));
}

function toList(row: WaMessageRow | undefined): StoredList | undefined {
  const meta = parseMeta(row?.meta);
  if (!row || !meta) return undefined;
  const secret = decode(row).messageContextInfo?.messageSecret ?? undefined;
  return { messageId: row.message_id, meta, ...(secret ? { secret } : {}) };
}
