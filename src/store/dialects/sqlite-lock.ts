// One gateway per SQLite data dir: an exclusive SQLite lock on `<data dir>/zapgate.lock`, held by an
// open connection for the process's life. It is a POSIX lock of this process, so the kernel drops it
// when the process ends however it ends (kill -9 included): a leftover file never blocks a restart.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { privateFile } from '../private-files.js';

interface HeldLock {
  release(): Promise<void>;
}

/** Takes the lock, or returns null (with the holder's pid when it left one) if another process holds it. */
export function lockSqliteDataDir(dataDir: string): HeldLock | { heldBy: string | null } {
  const file = join(dataDir, 'zapgate.lock');
  const pidFile = join(dataDir, 'zapgate.pid');
  privateFile(file);
  // timeout 0: a held lock answers SQLITE_BUSY at once instead of after better-sqlite3's 5 s wait.
  const db = new Database(file, { timeout: 0 });
  try {
    // Exclusive locking mode keeps the lock taken by `begin exclusive` until the connection closes;
    // the transaction stays open and writes nothing.
    // (No journal: nothing is ever written, and no zapgate.lock-journal file appears beside it.)
    db.pragma('journal_mode = OFF');
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('begin exclusive');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code !== 'SQLITE_BUSY') throw err;
    let heldBy: string | null = null;
    try {
      heldBy = readFileSync(pidFile, 'utf8').trim() || null;
    } catch {
      // No pid file (the holder is starting, or an older version): the message goes without it.
    }
    return { heldBy };
  }
  // For the message a second process prints; informative only, the lock is what decides.
  writeFileSync(pidFile, `${process.pid}\n`, { mode: 0o600 });
  return {
    async release() {
      if (db.open) db.close();
    },
  };
}
