// Builds the received-media store the settings name (config.ts, docs/cluster.md): the data dir for
// one node, or a store every node of a cluster shares — an S3-compatible bucket or PostgreSQL.
// The remote stores receive downloads in a local temp directory first (media/staging.ts).
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { MediaStoreSettings } from '../config.js';
import type { DB } from '../store/schema.js';
import { MediaBlobsRepo } from '../store/media-blobs-repo.js';
import { DatabaseMediaStore } from './database-store.js';
import { S3MediaStore } from './s3-store.js';
import { DirectoryMediaStore, type MediaStore } from './store.js';

export function createMediaStore(settings: MediaStoreSettings, dataDir: string, db: Kysely<DB>): MediaStore & { close?(): void } {
  switch (settings.kind) {
    case 'directory':
      return new DirectoryMediaStore(join(dataDir, 'media'));
    case 'postgres':
      return new DatabaseMediaStore(new MediaBlobsRepo(db), join(dataDir, 'media-tmp'));
    case 's3':
      return new S3MediaStore(settings.s3, join(dataDir, 'media-tmp'));
  }
}
