// Where media bytes live (received files, and data URIs of queued sends): a port with two
// operations that matter (adopt a finished file under its content address, open one), and the
// default implementation, a directory under the data dir (one node). The backends every node of a
// cluster shares (an S3 bucket, PostgreSQL) implement the same port: media/s3-store.ts,
// media/database-store.ts, chosen by media/select.ts (docs/cluster.md). Content-addressed, so a file received twice (a forwarded meme) is stored once; written to a
// temp file in the same directory tree and renamed, so a crash never leaves half a file under a
// real address. Files 0600 and directories 0700 whatever the umask: received media is private.
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { chmod, mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';

export interface MediaStore {
  /** A path for a new temp file on the local filesystem (adopt() moves it into the store). */
  tempPath(): Promise<string>;
  /** Moves a complete temp file under its content address (sha256, hex), the temp file gone after; an existing copy wins. */
  adopt(tempPath: string, sha256: string): Promise<void>;
  /**
   * Stores bytes under their content address (computed unless given) and returns it. `durable`
   * syncs the file and its directory before resolving (for files a 200 has promised to keep).
   */
  put(bytes: Buffer, options?: { sha256?: string; durable?: boolean }): Promise<string>;
  /** The stored bytes, or null when the file is not stored. */
  read(sha256: string): Promise<Buffer | null>;
  /** The file (streamed, never read whole) and its size, or null when it is not stored. */
  open(sha256: string): Promise<{ stream: Readable; size: number } | null>;
  remove(sha256: string): Promise<void>;
  /** Every stored content address (for the sweep of files no row references). */
  list(): Promise<string[]>;
}

/** A content address: sha256, lowercase hex. */
export const SHA = /^[0-9a-f]{64}$/;

export class DirectoryMediaStore implements MediaStore {
  private ready: Promise<void> | null = null;

  constructor(private readonly root: string) {}

  private init(): Promise<void> {
    this.ready ??= (async () => {
      await mkdir(join(this.root, 'tmp'), { recursive: true, mode: 0o700 });
      // mkdir's mode is filtered by the umask, and an existing directory keeps its own: set it.
      await chmod(this.root, 0o700);
      await chmod(join(this.root, 'tmp'), 0o700);
      // Temp files of downloads a crash interrupted are garbage.
      for (const f of await readdir(join(this.root, 'tmp'))) await rm(join(this.root, 'tmp', f), { force: true });
    })();
    return this.ready;
  }

  private pathOf(sha256: string): string {
    if (!SHA.test(sha256)) throw new Error(`not a content address: ${sha256}`);
    return join(this.root, sha256.slice(0, 2), sha256);
  }

  async tempPath(): Promise<string> {
    await this.init();
    return join(this.root, 'tmp', randomBytes(12).toString('hex'));
  }

  async adopt(tempPath: string, sha256: string): Promise<void> {
    await this.init();
    const target = this.pathOf(sha256);
    await mkdir(join(this.root, sha256.slice(0, 2)), { recursive: true, mode: 0o700 });
    await chmod(tempPath, 0o600);
    await rename(tempPath, target);
  }

  async put(bytes: Buffer, options: { sha256?: string; durable?: boolean } = {}): Promise<string> {
    const sha256 = options.sha256 ?? createHash('sha256').update(bytes).digest('hex');
    const temp = await this.tempPath();
    const fh = await open(temp, 'w', 0o600);
    try {
      await fh.writeFile(bytes);
      if (options.durable) await fh.sync();
    } finally {
      await fh.close();
    }
    await this.adopt(temp, sha256);
    if (options.durable) {
      // The rename itself is durable only once the directory is synced.
      const dh = await open(join(this.root, sha256.slice(0, 2)), 'r');
      try {
        await dh.sync();
      } finally {
        await dh.close();
      }
    }
    return sha256;
  }

  async read(sha256: string): Promise<Buffer | null> {
    try {
      return await readFile(this.pathOf(sha256));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  /** The stored file's size, or null when it is not stored. */
  async size(sha256: string): Promise<number | null> {
    return (await stat(this.pathOf(sha256)).catch(() => null))?.size ?? null;
  }

  async open(sha256: string): Promise<{ stream: Readable; size: number } | null> {
    const path = this.pathOf(sha256);
    try {
      const st = await stat(path);
      return { stream: createReadStream(path), size: st.size };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async remove(sha256: string): Promise<void> {
    await rm(this.pathOf(sha256), { force: true });
  }

  async list(): Promise<string[]> {
    await this.init();
    const out: string[] = [];
    for (const dir of await readdir(this.root)) {
      if (!/^[0-9a-f]{2}$/.test(dir)) continue;
      for (const f of await readdir(join(this.root, dir))) if (SHA.test(f)) out.push(f);
    }
    return out;
  }
}
