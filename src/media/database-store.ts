// The media store in the shared PostgreSQL database (store/media-blobs-repo.ts, migration 025): for a
// cluster without an S3 bucket, so that a received file's link works from every node and outlives
// the node that downloaded it (docs/cluster.md). Files go in 1 MiB chunks, streamed both ways: a
// download is read from its local temp file a chunk at a time, and a link is served a chunk at a time.
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { MediaBlobsRepo } from '../store/media-blobs-repo.js';
import type { MediaStore } from './store.js';
import { SHA } from './store.js';
import { Staging } from './staging.js';

/** Bytes per row: large enough that a file is few rows, small enough to hold one at a time. */
export const CHUNK_BYTES = 1024 * 1024;

export class DatabaseMediaStore implements MediaStore {
  private readonly staging: Staging;

  constructor(
    private readonly blobs: MediaBlobsRepo,
    /** Local directory for downloads being received (emptied at start). */
    tempDir: string,
    private readonly chunkBytes = CHUNK_BYTES,
  ) {
    this.staging = new Staging(tempDir);
  }

  private check(sha256: string): string {
    if (!SHA.test(sha256)) throw new Error(`not a content address: ${sha256}`);
    return sha256;
  }

  tempPath(): Promise<string> {
    return this.staging.path();
  }

  size(sha256: string): Promise<number | null> {
    return this.blobs.size(this.check(sha256));
  }

  async adopt(tempPath: string, sha256: string): Promise<void> {
    try {
      if ((await this.blobs.size(this.check(sha256))) !== null) return; // the same content is stored
      await this.blobs.write(sha256, createReadStream(tempPath, { highWaterMark: this.chunkBytes }));
    } finally {
      await rm(tempPath, { force: true });
    }
  }

  /** Committed when it resolves: `durable` needs nothing more. */
  async put(bytes: Buffer, options: { sha256?: string; durable?: boolean } = {}): Promise<string> {
    const sha256 = this.check(options.sha256 ?? createHash('sha256').update(bytes).digest('hex'));
    if ((await this.blobs.size(sha256)) !== null) return sha256;
    const chunkBytes = this.chunkBytes;
    await this.blobs.write(sha256, (async function* () {
      for (let at = 0; at < bytes.length; at += chunkBytes) yield bytes.subarray(at, at + chunkBytes);
    })());
    return sha256;
  }

  async read(sha256: string): Promise<Buffer | null> {
    const file = await this.open(sha256);
    if (!file) return null;
    const parts: Buffer[] = [];
    for await (const chunk of file.stream) parts.push(chunk as Buffer);
    return Buffer.concat(parts);
  }

  async open(sha256: string): Promise<{ stream: Readable; size: number } | null> {
    const file = await this.blobs.find(this.check(sha256));
    if (!file) return null;
    const blobs = this.blobs;
    async function* chunks(): AsyncGenerator<Buffer> {
      for (let seq = 0; seq < file!.chunks; seq++) {
        const bytes = await blobs.chunk(sha256, seq);
        // Removed while being read (its retention ended): the response is cut, not completed with garbage.
        if (!bytes) throw new Error(`media ${sha256} was removed while it was being read`);
        yield bytes;
      }
    }
    // One chunk at a time: the next is fetched only once the reader has taken the previous one.
    return { stream: Readable.from(chunks(), { objectMode: false, highWaterMark: 1 }), size: file.size };
  }

  async remove(sha256: string): Promise<void> {
    await this.blobs.remove(this.check(sha256));
  }

  list(): Promise<string[]> {
    return this.blobs.list();
  }
}
