// Outgoing media in the shared database (cluster mode, migration 019): the same content-addressed
// operations as the data dir's files (media/store.ts), for media/outgoing-store.ts.
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';

const DB_NOW = sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint`;

export interface BlobBackend {
  size(sha256: string): Promise<number | null>;
  put(bytes: Buffer, options: { sha256: string; durable?: boolean }): Promise<string>;
  read(sha256: string): Promise<Buffer | null>;
  remove(sha256: string): Promise<void>;
  list(): Promise<string[]>;
  /** Marks a stored copy as just stored (a new reference is being made); false when none is stored. */
  touch?(sha256: string, size: number): Promise<boolean>;
}

export class OutgoingBlobsRepo implements BlobBackend {
  /**
   * @param graceMs a blob stored (or stored again) less than this long ago is never removed: another
   *   node may have written it for an enqueue that has not committed yet, which its sweep cannot see.
   */
  constructor(
    private readonly db: Kysely<DB>,
    private readonly graceMs = 10 * 60_000,
  ) {}

  async size(sha256: string): Promise<number | null> {
    const r = await this.db.selectFrom('outgoing_media_blobs').select('size').where('sha256', '=', sha256).executeTakeFirst();
    return r ? Number(r.size) : null;
  }

  /** Stores the bytes (committed when this resolves), or refreshes the time of the copy already stored. */
  async put(bytes: Buffer, options: { sha256: string }): Promise<string> {
    await this.db
      .insertInto('outgoing_media_blobs')
      .values({ sha256: options.sha256, bytes, size: bytes.length, stored_at: DB_NOW as unknown as number })
      .onConflict((oc) => oc.column('sha256').doUpdateSet({ stored_at: DB_NOW as unknown as number }))
      .execute();
    return options.sha256;
  }

  async touch(sha256: string, size: number): Promise<boolean> {
    const r = await this.db
      .updateTable('outgoing_media_blobs')
      .set({ stored_at: DB_NOW as unknown as number })
      .where('sha256', '=', sha256)
      .where('size', '=', size)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async read(sha256: string): Promise<Buffer | null> {
    const r = await this.db.selectFrom('outgoing_media_blobs').select('bytes').where('sha256', '=', sha256).executeTakeFirst();
    return r ? Buffer.from(r.bytes) : null;
  }

  async remove(sha256: string): Promise<void> {
    await this.db.deleteFrom('outgoing_media_blobs').where('sha256', '=', sha256).where('stored_at', '<', sql<number>`${DB_NOW} - ${this.graceMs}`).execute();
  }

  async list(): Promise<string[]> {
    return (await this.db.selectFrom('outgoing_media_blobs').select('sha256').execute()).map((r) => r.sha256);
  }
}
