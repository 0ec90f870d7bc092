// 025: the media store in PostgreSQL (media/database-store.ts), for a cluster without an S3 bucket:
// every node serves received media (and reads what another node downloaded) from the shared database.
// A file is cut into chunks of at most 1 MiB (`media_blob_chunks`), written in one transaction with
// its `media_blobs` row, so a file is either whole or absent, and read back one chunk at a time, so
// no file is ever held whole in memory. Like 019, PostgreSQL only: SQLite runs one node, whose
// files stay in its data dir (config.ts refuses ZAPGATE_MEDIA_STORE=postgres without PostgreSQL).
import { sql, type Kysely } from 'kysely';
import type { Migration } from './migration.js';

export const migration025SharedMedia: Migration = {
  name: '025-shared-media',
  async up(db: Kysely<unknown>, caps) {
    if (caps.name !== 'postgres') return;
    await sql`create table media_blobs (sha256 text primary key, size bigint not null, chunks integer not null, stored_at bigint not null)`.execute(db);
    await sql`create table media_blob_chunks (sha256 text not null, seq integer not null, bytes bytea not null, primary key (sha256, seq))`.execute(db);
    // Chunks are bytes already compressed or encrypted more often than not: no point compressing them again.
    await sql`alter table media_blob_chunks alter column bytes set storage external`.execute(db);
  },
};
