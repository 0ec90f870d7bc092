// SQLite with the better-sqlite3 connection in a worker thread (sqlite-worker-thread.mjs): the same
// semantics as Kysely's SqliteDriver (one connection, one transaction at a time behind a mutex),
// but a commit's fsync runs beside the event loop instead of blocking it (bench/enqueue).
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import {
  CompiledQuery,
  IdentifierNode,
  RawNode,
  SelectQueryNode,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  createQueryId,
  type DatabaseConnection,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
} from 'kysely';
import { systemClock, type Clock } from '../../clock.js';

/** A worker thread closes in real time whatever the protocol clock does: its grace is a guard. */
const REAL_TIME: Pick<Clock, 'setGuard'> = systemClock();
const WORKER_URL = new URL('./sqlite-worker-thread.mjs', import.meta.url);
/** How long close() waits for the worker to close the database before terminating it. */
const CLOSE_GRACE_MS = 5_000;

interface ErrorShape {
  name: string;
  message: string;
  code: string | undefined;
}

type Reply =
  | { id: number; rows: Record<string, unknown>[] }
  | { id: number; batchRows: Record<string, unknown>[][] }
  | { id: number; changes: number; lastInsertRowid: number | bigint }
  | { id: number; error: ErrorShape };

type Startup = { ready: true } | { openError: ErrorShape };

interface Pending {
  resolve(result: QueryResult<unknown> | unknown[][]): void;
  reject(err: unknown): void;
}

/**
 * An error from the worker, rebuilt on this side: SQLite's own errors come back as
 * better-sqlite3's SqliteError with the same code (SQLITE_CONSTRAINT_UNIQUE, …), as in-thread.
 */
function rebuild(shape: ErrorShape): Error {
  if (shape.name === 'SqliteError' && shape.code) return new Database.SqliteError(shape.message, shape.code);
  const err = new Error(shape.message);
  err.name = shape.name;
  if (shape.code) Object.assign(err, { code: shape.code });
  return err;
}

/** Blob columns arrive as plain Uint8Arrays after the structured clone; the store expects Buffers. */
function toBuffers(rows: Record<string, unknown>[]): Record<string, unknown>[] {
  for (const row of rows) {
    for (const key in row) {
      const v = row[key];
      if (v instanceof Uint8Array && !Buffer.isBuffer(v)) row[key] = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
    }
  }
  return rows;
}

/** A Buffer from Node's pool is a view on a shared 8 KiB slab; clone only its own bytes. */
function ownBytes(parameters: readonly unknown[]): unknown[] {
  return parameters.map((p) => (p instanceof Uint8Array && p.byteLength !== p.buffer.byteLength ? new Uint8Array(p) : p));
}

/** The worker and its requests in flight; a crash fails every one of them and every later request. */
class WorkerClient {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private dead: Error | null = null;
  private readonly exited: Promise<void>;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (reply: Reply) => this.settle(reply));
    worker.on('error', (err) => this.fail(new Error(`SQLite worker crashed: ${err.message}`, { cause: err })));
    worker.on('messageerror', (err) => this.fail(new Error('SQLite worker sent an unreadable message', { cause: err })));
    this.exited = new Promise((resolve) => {
      worker.once('exit', (code) => {
        this.fail(new Error(`SQLite worker exited (code ${code})`));
        resolve();
      });
    });
    // Idle, the worker must not keep the process alive (an in-thread connection would not).
    worker.unref();
  }

  static async start(file: string, url: URL): Promise<WorkerClient> {
    // No execArgv: the worker is plain JavaScript and needs no loader (faster to start).
    const worker = new Worker(url, { workerData: { file }, execArgv: [] });
    const startup = await new Promise<Startup>((resolve, reject) => {
      const onExit = (code: number): void => reject(new Error(`SQLite worker exited during start (code ${code})`));
      worker.once('error', reject);
      worker.once('exit', onExit);
      worker.once('message', (m: Startup) => {
        worker.off('error', reject);
        worker.off('exit', onExit);
        resolve(m);
      });
    });
    if ('openError' in startup) {
      await worker.terminate();
      throw rebuild(startup.openError);
    }
    return new WorkerClient(worker);
  }

  /** Runs one statement; with `begin`, opens a transaction just before it (in the same message). */
  execute(sql: string, parameters: readonly unknown[], begin: boolean): Promise<QueryResult<unknown>> {
    return this.request((id) => (begin ? { id, sql, parameters: ownBytes(parameters), begin } : { id, sql, parameters: ownBytes(parameters) })) as Promise<
      QueryResult<unknown>
    >;
  }

  private request(message: (id: number) => object): Promise<QueryResult<unknown> | unknown[][]> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) this.worker.ref();
      try {
        this.worker.postMessage(message(id));
      } catch (err) {
        // Not cloneable (a function, a symbol…): the request never left.
        this.forget(id);
        reject(err);
      }
    });
  }

  /** Runs `sql` once per parameter list in one transaction, in the worker, in one message each way. */
  executeBatch(sql: string, lists: readonly (readonly unknown[])[]): Promise<unknown[][]> {
    return this.request((id) => ({ id, sql, batch: lists.map(ownBytes) })) as Promise<unknown[][]>;
  }

  async close(): Promise<void> {
    if (!this.dead) {
      this.dead = new Error('SQLite database closed');
      this.worker.postMessage({ close: true });
      this.worker.ref();
      const cancel = REAL_TIME.setGuard(CLOSE_GRACE_MS, () => void this.worker.terminate());
      await this.exited;
      cancel();
    }
  }

  private settle(reply: Reply): void {
    const p = this.forget(reply.id);
    if (!p) return;
    if ('error' in reply) p.reject(rebuild(reply.error));
    else if ('rows' in reply) p.resolve({ rows: toBuffers(reply.rows) });
    else if ('batchRows' in reply) p.resolve(reply.batchRows.map(toBuffers));
    else p.resolve({ numAffectedRows: BigInt(reply.changes), insertId: BigInt(reply.lastInsertRowid), rows: [] });
  }

  private forget(id: number): Pending | undefined {
    const p = this.pending.get(id);
    if (!p) return undefined;
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker.unref();
    return p;
  }

  private fail(err: Error): void {
    this.dead ??= err;
    const waiting = [...this.pending.values()];
    this.pending.clear();
    this.worker.unref();
    for (const p of waiting) p.reject(err);
  }
}

class WorkerConnection implements DatabaseConnection {
  /**
   * A `begin` not sent yet: it goes with the transaction's first statement, saving a round trip
   * between the threads per transaction (bench/enqueue). SQLite's `begin` (deferred) takes no lock
   * and reads nothing, so sending it later changes nothing the transaction can observe.
   */
  private beginPending = false;

  constructor(private readonly client: WorkerClient) {}

  begin(): void {
    if (this.beginPending) throw new Error('SQLite worker: a transaction is already being opened');
    this.beginPending = true;
  }

  /** Rolls back, or forgets a transaction that never reached the worker. */
  async rollback(): Promise<void> {
    if (this.beginPending) this.beginPending = false;
    else await this.executeQuery(CompiledQuery.raw('rollback'));
  }

  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const begin = this.beginPending;
    this.beginPending = false;
    return this.client.execute(compiledQuery.sql, compiledQuery.parameters, begin) as Promise<QueryResult<R>>;
  }

  async *streamQuery<R>(compiledQuery: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    // Like SqliteDriver: selects only, one row per chunk. The rows are read in one go (nothing in
    // zapgate streams; a cursor across the thread boundary is not worth its code yet).
    if (!SelectQueryNode.is(compiledQuery.query)) throw new Error('Sqlite driver only supports streaming of select queries');
    const { rows } = await this.executeQuery<R>(compiledQuery);
    for (const row of rows) yield { rows: [row] };
  }
}

/** One connection: a transaction holds it until commit or rollback (as Kysely's ConnectionMutex). */
class ConnectionMutex {
  private held: Promise<void> | undefined;
  private release: (() => void) | undefined;

  async lock(): Promise<void> {
    while (this.held) await this.held;
    this.held = new Promise((resolve) => (this.release = resolve));
  }

  unlock(): void {
    const release = this.release;
    this.held = undefined;
    this.release = undefined;
    release?.();
  }
}

function savepointCommand(command: string, name: string) {
  return RawNode.createWithChildren([RawNode.createWithSql(`${command} `), IdentifierNode.create(name)]);
}

class SqliteWorkerDriver implements Driver {
  private readonly mutex = new ConnectionMutex();
  private client: WorkerClient | undefined;
  private connection: WorkerConnection | undefined;

  constructor(
    private readonly file: string,
    private readonly workerUrl: URL,
  ) {}

  async init(): Promise<void> {
    this.client = await WorkerClient.start(this.file, this.workerUrl);
    this.connection = new WorkerConnection(this.client);
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.mutex.lock();
    if (!this.connection) throw new Error('SQLite worker driver used before init');
    return this.connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    (connection as WorkerConnection).begin();
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as WorkerConnection).rollback();
  }

  async savepoint(connection: DatabaseConnection, name: string, compileQuery: QueryCompiler['compileQuery']): Promise<void> {
    await connection.executeQuery(compileQuery(savepointCommand('savepoint', name), createQueryId()));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compileQuery: QueryCompiler['compileQuery']): Promise<void> {
    await connection.executeQuery(compileQuery(savepointCommand('rollback to', name), createQueryId()));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compileQuery: QueryCompiler['compileQuery']): Promise<void> {
    await connection.executeQuery(compileQuery(savepointCommand('release', name), createQueryId()));
  }

  async releaseConnection(): Promise<void> {
    this.mutex.unlock();
  }

  /** See SqliteWorkerDialect.runBatch. */
  runBatch(sql: string, lists: readonly (readonly unknown[])[]): Promise<unknown[][]> {
    if (!this.client) return Promise.reject(new Error('SQLite worker driver used before init'));
    return this.client.executeBatch(sql, lists);
  }

  async destroy(): Promise<void> {
    await this.client?.close();
  }
}

interface SqliteWorkerOptions {
  /** The worker script (tests substitute a failing one); defaults to sqlite-worker-thread.mjs. */
  readonly workerUrl?: URL;
}

/** Kysely's SQLite dialect with the driver swapped for the worker-thread one. */
export class SqliteWorkerDialect implements Dialect {
  private driver: SqliteWorkerDriver | undefined;

  constructor(
    private readonly file: string,
    private readonly options: SqliteWorkerOptions = {},
  ) {}

  createDriver(): Driver {
    this.driver = new SqliteWorkerDriver(this.file, this.options.workerUrl ?? WORKER_URL);
    return this.driver;
  }

  /**
   * Runs `sql` once per parameter list in one transaction, in the worker (BatchRunner). The caller
   * holds the connection (Database.runBatch), so no other statement runs in between.
   */
  runBatch(sql: string, lists: readonly (readonly unknown[])[]): Promise<unknown[][]> {
    if (!this.driver) return Promise.reject(new Error('SQLite worker dialect used before Kysely created its driver'));
    return this.driver.runBatch(sql, lists);
  }

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }

  createIntrospector(db: Kysely<unknown>) {
    return new SqliteIntrospector(db);
  }
}
