// The compiled build, as `npm install` makes it (tsconfig.build.json → dist/) and bin/zapgate.js runs
// it: every other process test runs the sources (no stale dist/ can pass or fail them), so this one
// compiles the current sources afresh, beside the repository's node_modules, and runs the result —
// help, accounts, serve (with the SQLite worker thread, a plain .mjs loaded by URL) and the demo
// (simnet compiled too) — with no tsx anywhere. Then a rebuild killed mid-way (SIGKILL, as a
// timeout or a closed terminal would) leaves that build whole and runnable, and the next build, run
// to the end, takes its place.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT, cliEnv, freePort, spawnGateway } from '../helpers/process-gateway.js';
import { settle, waitFor, within } from '../helpers/wait.js';

const run = promisify(execFile);

/** Resolve hook: names each of the heavy packages (engine, media, HTTP) as it is loaded. */
const HOOKS = `export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  const m = /node_modules\\/(baileys|sharp|fastify)\\//.exec(r.url);
  if (m) process.stderr.write('LOADED ' + m[1] + '\\n');
  return r;
}
`;

/** The parent's environment for a compiled CLI: no ZAPGATE_* setting, and not from the sources. */
function distEnv(extra: Record<string, string>): Record<string, string> {
  const env = cliEnv(extra);
  delete env.ZAPGATE_FROM_SOURCE;
  // Nothing may reach for tsx: neither a loader flag inherited from the test runner.
  delete env.NODE_OPTIONS;
  return env;
}

const BUILD = join(REPO_ROOT, 'scripts/build.mjs');
let root = '';

before(async () => {
  // Inside the repository, so the build resolves the repository's node_modules like dist/ does.
  root = mkdtempSync(join(REPO_ROOT, '.test-dist-'));
  // The build script itself (what `npm run build` runs), into this test's own directory.
  await run(process.execPath, [BUILD, '--out-dir', join(root, 'dist')], { cwd: REPO_ROOT, timeout: 240_000 });
  mkdirSync(join(root, 'bin'));
  copyFileSync(join(REPO_ROOT, 'bin/zapgate.js'), join(root, 'bin/zapgate.js'));
});

after(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

test('the compiled build runs every command without tsx', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'zapgate-dist-'));
  try {
    assert.ok(existsSync(join(root, 'dist/src/store/dialects/sqlite-worker-thread.mjs')), 'the SQLite worker thread (.mjs) is in the build');
    const bin = join(root, 'bin/zapgate.js');
    const env = distEnv({ ZAPGATE_DATA_DIR: dataDir });

    const help = await run(process.execPath, [bin, '--help'], { cwd: dataDir, env, timeout: 30_000 });
    assert.match(help.stdout, /Usage: zapgate <command>/, 'help from the build');

    const created = await run(process.execPath, [bin, 'accounts', 'create', 'compiled'], { cwd: dataDir, env, timeout: 30_000 });
    const account = JSON.parse(created.stdout) as { id: string; clientToken: string };
    // A loader hook reports every heavy package a command loads: `accounts list` and `--help` load none.
    writeFileSync(join(root, 'hooks.mjs'), HOOKS);
    writeFileSync(join(root, 'trace.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(root, 'hooks.mjs')).href)});\n`);
    const traced = ['--import', pathToFileURL(join(root, 'trace.mjs')).href];
    const listed = await run(process.execPath, [...traced, bin, 'accounts', 'list'], { cwd: dataDir, env, timeout: 30_000 });
    assert.match(listed.stdout, new RegExp(account.id), 'accounts list shows the account made by the build');
    assert.doesNotMatch(listed.stderr, /LOADED/, `accounts list loads no engine, media or HTTP package: ${listed.stderr}`);
    const helped = await run(process.execPath, [...traced, bin, 'serve', '--help'], { cwd: dataDir, env, timeout: 30_000 });
    assert.doesNotMatch(helped.stderr, /LOADED/, `serve --help loads no engine, media or HTTP package: ${helped.stderr}`);

    // serve, with SQLite in its worker thread: the .mjs is found next to the compiled module.
    const gw = await spawnGateway({ dataDir, bin, env: { ZAPGATE_SQLITE_THREAD: 'worker' }, nodeArgs: traced });
    try {
      // The hook does see them where they are needed (so its silence above means something).
      assert.match(gw.stderr(), /LOADED baileys/, 'serve loads the engine');
      assert.match(gw.stderr(), /LOADED fastify/, 'serve loads the HTTP server');
      const res = await fetch(`${gw.url}/instances`, { headers: { 'client-token': account.clientToken } });
      const body = await res.text();
      assert.equal(res.status, 200, `the compiled gateway answers with its store: ${body}`);
    } finally {
      await gw.stop();
    }

    // The demo: simnet is compiled too.
    const port = await freePort();
    const demo = spawn(process.execPath, [bin, 'demo', '--port', String(port), '--simnet-port', '0'], { cwd: dataDir, env: distEnv({}), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    demo.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    demo.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    const exited = new Promise<number | null>((resolve) => demo.once('exit', (code) => resolve(code)));
    try {
      await settle(() => out.includes('Stop with Ctrl-C') || demo.exitCode !== null, (done) => done, { pollMs: 100 });
      assert.match(out, new RegExp(`zapgate demo: the gateway at http://127\\.0\\.0\\.1:${port}`), `the compiled demo starts:\n${out}`);
    } finally {
      demo.kill('SIGTERM');
      const code = await within('the demo to exit after SIGTERM', exited).catch(() => 'timeout' as const);
      if (code === 'timeout') demo.kill('SIGKILL');
      assert.equal(code, 0, `the demo stops cleanly on SIGTERM:\n${out}`);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

/** Kills a process and its children (tsc runs as the build's child): what a timeout or a closed terminal does. */
function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
}

test('a build killed mid-way leaves the previous build whole; the next one swaps in', async () => {
  const dist = join(root, 'dist');
  const bin = join(root, 'bin/zapgate.js');
  const env = distEnv({});
  // A mark in the current build: still there after the killed build, gone once a build completes.
  writeFileSync(join(dist, 'previous-build-mark'), '');
  const stampBefore = statSync(join(dist, '.build-complete')).mtimeMs;

  // Killed while tsc writes its output: the staging directory beside dist/ has files in it.
  const child = spawn(process.execPath, [BUILD, '--out-dir', dist], { cwd: REPO_ROOT, detached: true, stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const staging = join(root, `.dist.new-${child.pid}`);
  await waitFor(
    'the build to start writing beside dist/',
    () => {
      assert.equal(child.exitCode, null, 'the build is still running');
      return existsSync(join(staging, 'src')) && readdirSync(join(staging, 'src')).length > 0;
    },
    { timeoutMs: 180_000 },
  );
  killGroup(child);
  await exited;

  assert.ok(existsSync(join(dist, 'previous-build-mark')), 'dist/ is still the previous build');
  assert.equal(statSync(join(dist, '.build-complete')).mtimeMs, stampBefore, 'its completion stamp untouched');
  assert.ok(existsSync(join(dist, 'src/cli.js')), 'the entry point is there');
  const help = await run(process.execPath, [bin, '--help'], { cwd: root, env, timeout: 30_000 });
  assert.match(help.stdout, /Usage: zapgate <command>/, 'and runs');

  // The next build, to the end: the killed one's leftovers go, the new build takes dist/'s place.
  await run(process.execPath, [BUILD, '--out-dir', dist], { cwd: REPO_ROOT, timeout: 240_000 });
  assert.equal(existsSync(join(dist, 'previous-build-mark')), false, 'dist/ is the new build');
  assert.ok(statSync(join(dist, '.build-complete')).mtimeMs > stampBefore, 'with a newer completion stamp');
  assert.deepEqual(readdirSync(root).filter((e) => e.startsWith('.dist.')), [], 'no staging directory left beside dist/');
  const again = await run(process.execPath, [bin, '--help'], { cwd: root, env, timeout: 30_000 });
  assert.match(again.stdout, /Usage: zapgate <command>/, 'the new build runs');
});

test('a build killed between its two renames is restored by the next build before anything else', async () => {
  const dist = join(root, 'dist');
  // What the swap leaves when killed after moving the old build aside: no dist/, the old build
  // (complete, with its stamp) under the name of a process that is gone.
  const dead = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => dead.once('exit', resolve));
  const aside = join(root, `.dist.old-${dead.pid}`);
  writeFileSync(join(dist, 'aside-mark'), '');
  renameSync(dist, aside);
  const out = await run(process.execPath, [BUILD, '--out-dir', dist, '--if-stale'], { cwd: REPO_ROOT, timeout: 240_000 });
  assert.match(out.stdout, /restored/, out.stdout);
  assert.match(out.stdout, /up to date/, 'and, the sources unchanged since, not rebuilt');
  assert.ok(existsSync(join(dist, 'aside-mark')), 'dist/ is the build that was aside');
  assert.equal(existsSync(aside), false);
  const help = await run(process.execPath, [join(root, 'bin/zapgate.js'), '--help'], { cwd: root, env: distEnv({}), timeout: 30_000 });
  assert.match(help.stdout, /Usage: zapgate <command>/);
});
