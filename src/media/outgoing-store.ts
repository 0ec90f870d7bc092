// Outgoing media by reference: a data URI accepted by a media endpoint is written once, under its
// content address, to <data dir>/outgoing-media (files 0600, directories 0700, written to a temp
// file, fsynced and renamed, so "accepted means on disk" holds for the file too), and the queued
// message holds `zapgate-media:<sha256>:<bytes>` instead of megabytes of base64. The sender reads the
// file at send time; the sweep removes files that no waiting message references any more.
import { createHash } from 'node:crypto';
import type { BlobBackend } from '../store/outgoing-blobs-repo.js';
import { DirectoryMediaStore } from './store.js';

/** How a queued message names a stored file (scheme, sha256 hex, size in bytes), anywhere in its payload (JSON). */
const MEDIA_REF_IN_TEXT = /zapgate-media:([0-9a-f]{64}):(\d{1,12})/g;

interface StoredMedia {
  sha256: string;
  bytes: number;
  ref: string;
}

/** A whole reference: what a queued message's media field holds when the gateway stored the file. */
const MEDIA_REF = /^zapgate-media:([0-9a-f]{64}):(\d+)$/;

export function mediaRef(sha256: string, bytes: number): string {
  return `zapgate-media:${sha256}:${bytes}`;
}

/** The stored file a media field names (`zapgate-media:<sha256>:<bytes>`), or null for a URL or data URI. */
export function parseMediaRef(ref: string): { sha256: string; bytes: number } | null {
  const m = MEDIA_REF.exec(ref);
  return m ? { sha256: m[1]!, bytes: Number(m[2]) } : null;
}

/** Every stored file a payload references, with its size. */
export function mediaRefsIn(payload: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of payload.matchAll(MEDIA_REF_IN_TEXT)) out.set(m[1]!, Number(m[2]));
  return out;
}

export class OutgoingMediaStore {
  /**
   * The files themselves: content-addressed, private, written atomically and durably; in cluster
   * mode, rows of the shared database instead (store/outgoing-blobs-repo.ts), so any node sends them.
   */
  private readonly files: BlobBackend;
  /** Files being stored for an enqueue that has not committed yet: the sweep leaves them alone. */
  private readonly pending = new Map<string, number>();
  /** Files stored (or found) since the running sweep read the references: it leaves them alone too. */
  private touched = new Set<string>();
  /** Removals in progress: a put of the same content waits for them, then writes the file again. */
  private readonly removing = new Map<string, Promise<void>>();

  constructor(where: string | BlobBackend) {
    this.files = typeof where === 'string' ? new DirectoryMediaStore(where) : where;
  }

  /**
   * Stores the bytes (once per content) and returns their reference. The file is pinned until
   * `release()` is called with the same sha256: call it once the enqueue has committed or failed.
   */
  async put(bytes: Buffer, knownSha256?: string): Promise<StoredMedia> {
    const sha256 = knownSha256 ?? createHash('sha256').update(bytes).digest('hex');
    this.pending.set(sha256, (this.pending.get(sha256) ?? 0) + 1);
    this.touched.add(sha256);
    try {
      await this.removing.get(sha256);
      // Shared by several nodes (cluster mode), a copy already stored is marked fresh so that no
      // node's sweep removes it before this enqueue's reference is committed.
      const present = this.files.touch ? await this.files.touch(sha256, bytes.length) : (await this.files.size(sha256)) === bytes.length;
      if (!present) await this.files.put(bytes, { sha256, durable: true });
    } catch (err) {
      this.release(sha256);
      throw err;
    }
    return { sha256, bytes: bytes.length, ref: mediaRef(sha256, bytes.length) };
  }

  release(sha256: string): void {
    // Released after the commit: a sweep whose reading of the references began before it may have
    // missed the new reference, so it must not remove the file.
    this.touched.add(sha256);
    const n = (this.pending.get(sha256) ?? 1) - 1;
    if (n <= 0) this.pending.delete(sha256);
    else this.pending.set(sha256, n);
  }

  /** The stored bytes, or null when the file is gone. */
  read(sha256: string): Promise<Buffer | null> {
    return this.files.read(sha256);
  }

  /** Every stored content address. */
  list(): Promise<string[]> {
    return this.files.list();
  }

  /**
   * Removes every stored file not in `referenced()` (the references of waiting messages, read from
   * the store), except files pinned by an enqueue in progress or stored or released since the sweep
   * began. One sweep at a time (the caller serialises them).
   * Returns how many were removed.
   */
  async sweep(referenced: () => Promise<Set<string>>): Promise<number> {
    this.touched = new Set();
    const keep = await referenced();
    let removed = 0;
    for (const sha256 of await this.list()) {
      if (keep.has(sha256) || this.pending.has(sha256) || this.touched.has(sha256)) continue;
      const done = this.files.remove(sha256);
      const entry = done.finally(() => {
        if (this.removing.get(sha256) === entry) this.removing.delete(sha256);
      });
      this.removing.set(sha256, entry);
      await entry;
      removed++;
    }
    return removed;
  }
}
