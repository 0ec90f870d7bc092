// What a failure at start means for the person who ran the command: one line that names the setting
// to change (a port in use, a data dir this user cannot write, a database that cannot be reached),
// instead of a bare `listen EADDRINUSE` or a stack trace. Never echoes ZAPGATE_DATABASE_URL itself:
// it may carry a password, so only its host and port are named.

/** The settings a start failure is explained against (a subset of Config). */
export interface StartSettings {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
}

const DATA_DIR_CODES = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EEXIST', 'ENOSPC', 'EISDIR', 'ENOENT', 'SQLITE_CANTOPEN', 'SQLITE_READONLY']);
/** node-postgres and the network: connection failures, then PostgreSQL's own SQLSTATEs for the login. */
const DATABASE_CODES = new Set([
  'ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH',
  '28P01', // invalid password
  '28000', // invalid authorization (no pg_hba entry, …)
  '3D000', // database does not exist
  '3F000', // schema does not exist
  '42501', // insufficient privilege (cannot create the schema or the tables)
  '57P03', // the server is starting up or shutting down
  '53300', // too many connections
]);

interface SystemError {
  code?: unknown;
  syscall?: unknown;
  path?: unknown;
  message?: unknown;
}

function firstLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n')[0] ?? message;
}

/** Host and port of a PostgreSQL URL, without user or password. */
export function databaseWhere(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || 'localhost'}:${u.port || '5432'}${u.pathname && u.pathname !== '/' ? u.pathname : ''}`;
  } catch {
    return 'an unparsable URL';
  }
}

/** One line for the terminal: what failed and which setting to change. */
export function explainStartError(err: unknown, settings: StartSettings | undefined): string {
  const e = (typeof err === 'object' && err !== null ? err : {}) as SystemError;
  const code = typeof e.code === 'string' ? e.code : undefined;
  const syscall = typeof e.syscall === 'string' ? e.syscall : undefined;
  // A listen error on another port than the gateway's (the demo's simnet) names that port only.
  const errPort = typeof (e as { port?: unknown }).port === 'number' ? (e as { port: number }).port : undefined;
  if (syscall === 'listen' && code === 'EADDRINUSE' && errPort !== undefined && errPort !== settings?.port) {
    return `port ${errPort} is already in use: stop what listens there, or choose another port`;
  }
  if (settings && syscall === 'listen') {
    const where = `${settings.host}:${settings.port}`;
    if (code === 'EADDRINUSE') return `port ${settings.port} is already in use on ${settings.host}: stop what listens there, or set ZAPGATE_PORT to a free port`;
    if (code === 'EACCES') return `not allowed to listen on ${where}: ports below 1024 need privileges; set ZAPGATE_PORT to 1024 or above`;
    if (code === 'EADDRNOTAVAIL') return `cannot listen on ${where}: ${settings.host} is not an address of this machine; set ZAPGATE_HOST (0.0.0.0 for every interface)`;
  }
  if (settings?.databaseUrl && code && DATABASE_CODES.has(code)) {
    return `cannot use the PostgreSQL database at ${databaseWhere(settings.databaseUrl)}: ${firstLine(err)}; check ZAPGATE_DATABASE_URL (and that the server is running)`;
  }
  // A command that could not be run (spawn ENOENT) is a missing program, not a data dir problem.
  if (syscall?.startsWith('spawn') && code === 'ENOENT') {
    return `the command ${typeof e.path === 'string' ? e.path : 'it runs'} is not installed (${firstLine(err)}): install it, or report this (README.md names every command zapgate needs)`;
  }
  if (settings && code && DATA_DIR_CODES.has(code) && (typeof e.path === 'string' || code.startsWith('SQLITE_'))) {
    return `cannot write the data dir ${settings.dataDir} (${firstLine(err)}): set ZAPGATE_DATA_DIR to a directory this user can write, or fix its permissions`;
  }
  return firstLine(err);
}
