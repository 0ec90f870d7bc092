// Media files received messages carry: one row per (instance, message, part), the network's
// reference to the encrypted file, and where the decrypted bytes are once downloaded.
import type { Kysely } from 'kysely';
import type { DB, MediaFileRow } from './schema.js';

export interface NewMediaFile {
  id: string;
  instanceId: string;
  messageId: string;
  kind: string;
  mimetype: string;
  fileName: string | null;
  /** Already-known bytes (an inline thumbnail): stored at once. */
  stored?: { sha256: string; size: number };
  source: string;
  createdAt: number;
  expiresAt: number;
}

export class MediaRepo {
  constructor(private readonly db: Kysely<DB>) {}

  /** Records the files; a file already recorded (a redelivered message) keeps its row. */
  async add(files: readonly NewMediaFile[]): Promise<void> {
    if (files.length === 0) return;
    await this.db
      .insertInto('media_files')
      .values(
        files.map((f) => ({
          id: f.id,
          instance_id: f.instanceId,
          message_id: f.messageId,
          kind: f.kind,
          mimetype: f.mimetype,
          file_name: f.fileName,
          status: f.stored ? ('stored' as const) : ('pending' as const),
          sha256: f.stored?.sha256 ?? null,
          size: f.stored?.size ?? null,
          error: null,
          attempts: 0,
          source: f.source,
          created_at: f.createdAt,
          expires_at: f.expiresAt,
        })),
      )
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }

  find(id: string): Promise<MediaFileRow | undefined> {
    return this.db.selectFrom('media_files').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The rows of these ids that exist (stored messages' files: links for a page of them). */
  async findMany(ids: readonly string[]): Promise<MediaFileRow[]> {
    if (ids.length === 0) return [];
    return this.db.selectFrom('media_files').selectAll().where('id', 'in', [...ids]).execute();
  }

  async stored(id: string, sha256: string, size: number, source?: string): Promise<void> {
    await this.db
      .updateTable('media_files')
      .set({ status: 'stored', sha256, size, error: null, ...(source ? { source } : {}) })
      .where('id', '=', id)
      .execute();
  }

  async failed(id: string, error: string): Promise<void> {
    await this.db
      .updateTable('media_files')
      .set((eb) => ({ status: 'failed', error, attempts: eb('attempts', '+', 1) }))
      .where('id', '=', id)
      .execute();
  }

  /** Files whose retention ended, oldest first. */
  expired(now: number, limit: number): Promise<Pick<MediaFileRow, 'id' | 'sha256'>[]> {
    return this.db.selectFrom('media_files').select(['id', 'sha256']).where('expires_at', '<=', now).orderBy('expires_at').limit(limit).execute();
  }

  async remove(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.deleteFrom('media_files').where('id', 'in', ids).execute();
  }

  /** Whether any row still references these bytes (the same file received twice is stored once). */
  async referenced(sha256: string): Promise<boolean> {
    const row = await this.db.selectFrom('media_files').select('id').where('sha256', '=', sha256).limit(1).executeTakeFirst();
    return row !== undefined;
  }

  /** Every content address rows reference (the sweep of orphaned files after a crash). */
  async addresses(): Promise<Set<string>> {
    const rows = await this.db.selectFrom('media_files').select('sha256').where('sha256', 'is not', null).distinct().execute();
    return new Set(rows.map((r) => r.sha256!));
  }
}

/** The gateway's own secrets: made once (by whichever node comes first), then read by all. */
export class GatewaySecretsRepo {
  constructor(private readonly db: Kysely<DB>) {}

  async getOrCreate(name: string, make: () => string, now: number): Promise<string> {
    await this.db.insertInto('gateway_secrets').values({ name, value: make(), created_at: now }).onConflict((oc) => oc.column('name').doNothing()).execute();
    const row = await this.db.selectFrom('gateway_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
    return row.value;
  }
}
