// Local temp files for a media store kept elsewhere (a bucket, the database): a download is written
// here first (it is hashed and checked as it arrives), then adopted, i.e. streamed to the store and
// removed. The directory is private (0700) and emptied at start: what a crash left is garbage.
import { chmod, mkdir, readdir, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

export class Staging {
  private ready: Promise<void> | null = null;

  constructor(private readonly dir: string) {}

  /** A path for a new temp file. */
  async path(): Promise<string> {
    this.ready ??= (async () => {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      await chmod(this.dir, 0o700);
      for (const f of await readdir(this.dir)) await rm(join(this.dir, f), { force: true });
    })();
    await this.ready;
    return join(this.dir, randomBytes(12).toString('hex'));
  }
}
