// 019: cluster mode keeps outgoing media (data URIs queued by reference, media/outgoing-store.ts) in
// the shared database instead of one node's data dir, so whichever node owns an instance when its
// message is sent can read it (a node that accepted a media message may be dead by then). Content
// addressed like the files; `stored_at` (database clock, ms) protects a blob another node has just
// written for an enqueue not yet committed from a concurrent sweep.
import { sql, type Kysely } from 'kysely';
import type { Migration } from './migration.js';

export const migration019SharedOutgoingMedia: Migration = {
  name: '019-shared-outgoing-media',
  async up(db: Kysely<unknown>, caps) {
    if (caps.name !== 'postgres') return; // SQLite runs one node: its files stay in the data dir
    await sql`create table outgoing_media_blobs (sha256 text primary key, bytes bytea not null, size integer not null, stored_at bigint not null)`.execute(db);
  },
};
