// Received media files in PostgreSQL (migration 025): a file is its `media_blobs` row and its chunks,
// written in one transaction (whole or absent) and read one chunk at a time (media/database-store.ts).
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';

const DB_NOW = sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint`;

export class MediaBlobsRepo {
  constructor(private readonly db: Kysely<DB>) {}

  async size(sha256: string): Promise<number | null> {
    const r = await this.db.selectFrom('media_blobs').select('size').where('sha256', '=', sha256).executeTakeFirst();
    return r ? Number(r.size) : null;
  }

  /**
   * Stores a file from its chunks, in one transaction; a copy already stored (or being stored by
   * another node: the second waits on the first's keys) wins, and this one's chunks are dropped.
   */
  async write(sha256: string, chunks: AsyncIterable<Buffer>): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      let seq = 0;
      let size = 0;
      for await (const bytes of chunks) {
        await trx.insertInto('media_blob_chunks').values({ sha256, seq, bytes }).onConflict((oc) => oc.columns(['sha256', 'seq']).doNothing()).execute();
        seq++;
        size += bytes.length;
      }
      await trx
        .insertInto('media_blobs')
        .values({ sha256, size, chunks: seq, stored_at: DB_NOW as unknown as number })
        .onConflict((oc) => oc.column('sha256').doNothing())
        .execute();
    });
  }

  /** One chunk's bytes, or null when the file (or that chunk) is gone. */
  async chunk(sha256: string, seq: number): Promise<Buffer | null> {
    const r = await this.db.selectFrom('media_blob_chunks').select('bytes').where('sha256', '=', sha256).where('seq', '=', seq).executeTakeFirst();
    return r ? Buffer.from(r.bytes) : null;
  }

  /** The file's size and number of chunks, or null when it is not stored. */
  async find(sha256: string): Promise<{ size: number; chunks: number } | null> {
    const r = await this.db.selectFrom('media_blobs').select(['size', 'chunks']).where('sha256', '=', sha256).executeTakeFirst();
    return r ? { size: Number(r.size), chunks: r.chunks } : null;
  }

  async remove(sha256: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('media_blobs').where('sha256', '=', sha256).execute();
      await trx.deleteFrom('media_blob_chunks').where('sha256', '=', sha256).execute();
    });
  }

  async list(): Promise<string[]> {
    return (await this.db.selectFrom('media_blobs').select('sha256').execute()).map((r) => r.sha256);
  }
}
