// The data dir holds secrets (Signal keys, credentials, webhook secrets): the directory is 0700 and
// the database files 0600 whatever the umask, and an existing directory or file is tightened too.
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';

/** Creates `dir` (and its parents) if missing and makes it 0700. */
export function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // mkdir's mode passes through the umask, and an existing directory keeps its own: set it.
  chmodSync(dir, 0o700);
}

/**
 * Creates `file` empty if missing and makes it 0600. SQLite gives a database's -wal and -shm files
 * the database file's own mode when it creates them, so tightening the database first covers them.
 */
export function privateFile(file: string, create = true): void {
  if (create) closeSync(openSync(file, 'a', 0o600));
  try {
    chmodSync(file, 0o600);
  } catch (err) {
    if (create || (err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
