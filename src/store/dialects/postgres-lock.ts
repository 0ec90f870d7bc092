// One gateway per PostgreSQL database and schema (until cluster mode): a session-level advisory lock
// held on a dedicated connection for the process's life. PostgreSQL releases it when that session
// ends, so a killed process's lock goes with its connection. If the connection fails (a database
// restart), the lock is taken again on a new connection as soon as the database lets us.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { systemClock, type Cancel, type Clock } from '../../clock.js';

/** How often a lost lock is tried again: a guard (the database's pace), never scaled. */
const RETRY_MS = 2_000;
const REAL_TIME: Pick<Clock, 'setGuard'> = systemClock();

interface HeldPgLock {
  /** Hears `false` when the lock's connection fails and `true` when the lock is held again. */
  onChange(listener: (held: boolean, err?: Error) => void): void;
  release(): Promise<void>;
}

interface Attempt {
  client: pg.Client;
  where: string;
  /** Who holds it, when not us (null: we hold it). */
  refused: { heldBy: string | null } | null;
}

async function attempt(connectionString: string, shared: boolean): Promise<Attempt> {
  const client = new pg.Client({ connectionString, keepAlive: true, application_name: `zapgate pid ${process.pid}` });
  client.on('error', () => undefined); // until the caller listens: a failing connection must not crash the process
  await client.connect();
  try {
    const row = (await client.query<{ db: string; path: string }>("select current_database() as db, current_setting('search_path') as path")).rows[0];
    if (!row) throw new Error('PostgreSQL answered no row for current_database()');
    const where = `database ${row.db}, schema ${row.path}`;
    // Advisory locks are per database already; the key tells the schemas (search_path) apart.
    const digest = createHash('sha256').update(`zapgate owner:${row.path}`).digest();
    // Cluster nodes share the lock; a gateway not in cluster mode holds it alone (each refuses the other).
    const fn = shared ? 'pg_try_advisory_lock_shared' : 'pg_try_advisory_lock';
    const got = (await client.query<{ ok: boolean }>(`select ${fn}($1::bigint) as ok`, [digest.readBigInt64BE(0).toString()])).rows[0]?.ok === true;
    if (got) return { client, where, refused: null };
    const holder = await client.query<{ app: string | null; addr: string | null }>(
      `select a.application_name as app, host(a.client_addr) as addr from pg_locks l join pg_stat_activity a on a.pid = l.pid
        where l.locktype = 'advisory' and l.granted and l.database = (select oid from pg_database where datname = current_database())
          and l.classid = $1::bigint::oid and l.objid = $2::bigint::oid and l.objsubid = 1 limit 1`,
      // A bigint key shows in pg_locks as its high and low 32 bits.
      [digest.readUInt32BE(0), digest.readUInt32BE(4)],
    );
    const h = holder.rows[0];
    await client.end();
    return { client, where, refused: { heldBy: h ? [h.app, h.addr].filter(Boolean).join(' at ') || null : null } };
  } catch (err) {
    await client.end().catch(() => undefined);
    throw err;
  }
}

/**
 * Takes the lock for the database and search_path of `connectionString`, or returns who holds it.
 * `shared`: cluster mode, where every node holds it at once.
 */
export async function lockPostgres(connectionString: string, shared = false, clock: Pick<Clock, 'setGuard'> = REAL_TIME): Promise<HeldPgLock | { heldBy: string | null; where: string }> {
  const first = await attempt(connectionString, shared);
  if (first.refused) return { heldBy: first.refused.heldBy, where: first.where };

  let client: pg.Client | null = first.client;
  let released = false;
  let retry: Cancel | null = null;
  const listeners: ((held: boolean, err?: Error) => void)[] = [];
  const tell = (held: boolean, err?: Error): void => listeners.forEach((l) => l(held, err));

  const watch = (c: pg.Client): void => {
    c.on('error', (err) => {
      if (released || client !== c) return;
      client = null;
      void c.end().catch(() => undefined);
      tell(false, err);
      retryLater();
    });
  };
  // One attempt at a time: the next is timed from the end of the last.
  const retryLater = (): void => {
    if (released || retry) return;
    retry = clock.setGuard(RETRY_MS, () => {
      retry = null;
      void regain();
    });
  };
  const regain = async (): Promise<void> => {
    if (released || client) return;
    try {
      const a = await attempt(connectionString, shared);
      if (a.refused || released) {
        if (!a.refused) await a.client.end();
        return;
      }
      client = a.client;
      watch(a.client);
      tell(true);
    } catch {
      // The database is still away: the next attempt tries again.
    } finally {
      if (!client) retryLater();
    }
  };
  watch(first.client);

  return {
    onChange(listener) {
      listeners.push(listener);
    },
    async release() {
      released = true;
      retry?.();
      retry = null;
      await client?.end();
    },
  };
}
