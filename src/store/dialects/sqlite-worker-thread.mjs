// The thread behind the sqlite-worker dialect: owns the one better-sqlite3 connection and runs each
// statement posted by sqlite-worker.ts, so a commit's fsync blocks this thread, not the event loop
// that answers HTTP (bench/enqueue). Plain JavaScript on purpose: it must start the same way under
// `node --import tsx` (tests) and bin/zapgate.js (tsx registered in the main thread only), with no
// loader in the worker. Protocol (structured clone; see sqlite-worker.ts for the typed side):
//   in:  { id, sql, parameters, begin? }    out: { id, rows } | { id, changes, lastInsertRowid }
//                                                | { id, error: { name, message, code } }
//   in:  { id, sql, batch: parameters[] }  out: { id, batchRows: rows[] } | { id, error }
//        (the statement once per parameter list, all in one transaction; rows are [] for writes)
//   in:  { close: true }                    (closes the database, then the thread ends)
//   out once at start: { ready: true } | { openError: { name, message, code } }
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/** @type {{ file: string }} */
const { file } = workerData;
const port = parentPort;
if (!port) throw new Error('sqlite-worker-thread.mjs must run in a worker thread');

/** Prepared statements by SQL text: the hot queries repeat, so each is compiled once (bench/enqueue). */
const STATEMENT_CACHE_SIZE = 256;
/** @type {Map<string, import('better-sqlite3').Statement>} */
const statements = new Map();

/** @param {unknown} err */
function describe(err) {
  if (err instanceof Error) {
    const code = /** @type {{ code?: unknown }} */ (err).code;
    return { name: err.name, message: err.message, code: typeof code === 'string' ? code : undefined };
  }
  return { name: 'Error', message: String(err), code: undefined };
}

/** @type {import('better-sqlite3').Database} */
let db;
try {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
} catch (err) {
  port.postMessage({ openError: describe(err) });
  process.exit(1);
}

/** @param {string} sql */
function prepare(sql) {
  let stmt = statements.get(sql);
  if (stmt) {
    // Refresh its place, so the cache evicts the least recently used statement.
    statements.delete(sql);
    statements.set(sql, stmt);
    return stmt;
  }
  stmt = db.prepare(sql);
  if (statements.size >= STATEMENT_CACHE_SIZE) {
    const oldest = statements.keys().next().value;
    if (oldest !== undefined) statements.delete(oldest);
  }
  statements.set(sql, stmt);
  return stmt;
}

/** One transaction, one commit (one fsync) for the whole batch. */
const runBatch = db.transaction((/** @type {string} */ sql, /** @type {unknown[][]} */ lists) => {
  const stmt = prepare(sql);
  return lists.map((parameters) => (stmt.reader ? stmt.all(parameters) : (stmt.run(parameters), [])));
});

port.on('message', (/** @type {{ id: number, sql: string, parameters: unknown[], begin?: true } | { id: number, sql: string, batch: unknown[][] } | { close: true }} */ msg) => {
  if ('close' in msg) {
    statements.clear();
    db.close();
    port.close();
    return;
  }
  if ('batch' in msg) {
    try {
      port.postMessage({ id: msg.id, batchRows: runBatch(msg.sql, msg.batch) });
    } catch (err) {
      port.postMessage({ id: msg.id, error: describe(err) });
    }
    return;
  }
  const { id, sql, parameters } = msg;
  try {
    // A transaction's `begin` rides with its first statement: one round trip less (bench/enqueue).
    if (msg.begin) prepare('begin').run();
    const stmt = prepare(sql);
    if (stmt.reader) {
      port.postMessage({ id, rows: stmt.all(parameters) });
    } else {
      const { changes, lastInsertRowid } = stmt.run(parameters);
      port.postMessage({ id, changes, lastInsertRowid });
    }
  } catch (err) {
    port.postMessage({ id, error: describe(err) });
  }
});

port.postMessage({ ready: true });
