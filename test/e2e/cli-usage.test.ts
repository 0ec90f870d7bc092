// A mistake on the command line is one line and the usage on stderr, exit 2 — never a stack
// trace (`zapgate accounts create --name x` used to die with parseArgs' TypeError and its stack).
// Every command answers --help with its usage, exit 0, and without opening anything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, cliEnv, freePort } from '../helpers/process-gateway.js';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function zapgate(dataDir: string, args: string[], extra: Record<string, string> = {}): Promise<Run> {
  const env = cliEnv({ ZAPGATE_DATA_DIR: dataDir, ...extra });
  return new Promise((resolve) => {
    execFile(process.execPath, [join(REPO_ROOT, 'bin/zapgate.js'), ...args], { cwd: dataDir, env, timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

const BAD: [string[], RegExp][] = [
  [['accounts', 'create', '--name', 'x'], /unknown option --name/],
  [['accounts', 'create', '--bogus'], /unknown option --bogus/],
  [['accounts', 'create'], /accounts create needs a name/],
  [['accounts', 'rotate'], /accounts rotate needs an account id/],
  [['accounts', 'delete'], /accounts delete needs an account id/],
  [['accounts'], /accounts needs a subcommand/],
  [['accounts', 'frobnicate'], /unknown accounts subcommand: frobnicate/],
  [['accounts', 'list', 'extra'], /too many arguments/],
  [['frobnicate'], /unknown command: frobnicate/],
  [['demo', '--bogus'], /unknown option --bogus/],
  [['demo', '--port', 'abc'], /--port must be a port number/],
  [['demo', '--port'], /option --port needs a value/],
  [['serve', '--bogus'], /unknown option --bogus/],
  [['serve', 'extra'], /unexpected argument extra/],
  [['migrate', '--bogus'], /unknown option --bogus/],
  [['cluster'], /cluster needs a subcommand/],
  [['cluster', 'frobnicate'], /unknown cluster subcommand: frobnicate/],
  [['cluster', 'status', '--bogus'], /unknown option --bogus/],
  [['cluster', 'status', 'extra'], /too many arguments for cluster status/],
  [['simnet', '--bogus'], /unknown option --bogus/],
  [['simnet', '--port', '-3'], /--port must be a port number \(0-65535\), got "-3"/],
  [['simnet', '--port=70000'], /--port must be a port number \(0-65535\), got "70000"/],
  [['simnet', '--media-port', 'x'], /--media-port must be a port number/],
  [['demo', '--port', '-3'], /option --port needs a value \(for one starting with a dash write --port=…\)/],
  [['demo', '--media-port', 'x'], /--media-port must be a port number/],
  [['--bogus'], /unknown option --bogus/],
];

const HELP: [string[], RegExp][] = [
  [['--help'], /Usage: zapgate <command>/],
  [['help'], /Usage: zapgate <command>/],
  [['serve', '--help'], /Usage: zapgate serve/],
  [['accounts', '--help'], /Usage: zapgate accounts/],
  [['accounts', 'create', '--help'], /Usage: zapgate accounts/],
  [['migrate', '--help'], /Usage: zapgate migrate/],
  [['cluster', '--help'], /Usage: zapgate cluster status/],
  [['simnet', '--help'], /Usage: zapgate simnet/],
  [['demo', '--help'], /Usage: zapgate demo/],
  [['demo', '-h'], /Usage: zapgate demo/],
  [['demo', '--help'], /--media-port N +the port of simnet's media host[\s\S]*default: a temporary directory removed on exit;\s+never ZAPGATE_DATA_DIR/],
];

test('--help on every command: its usage on stdout, exit 0, nothing created', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'zapgate-cli-'));
  try {
    for (let i = 0; i < HELP.length; i += 2) {
      const batch = HELP.slice(i, i + 2);
      const runs = await Promise.all(batch.map(([args]) => zapgate(dataDir, args)));
      runs.forEach((r, j) => {
        const [args, expected] = batch[j]!;
        const what = `zapgate ${args.join(' ')} → ${r.code}\n${r.stdout}\n${r.stderr}`;
        assert.equal(r.code, 0, what);
        assert.match(r.stdout, expected, what);
        assert.equal(r.stderr, '', what);
      });
    }
    // No database was opened for a help text.
    assert.deepEqual(readdirSync(dataDir), [], 'help opened no database');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('bad options and missing arguments: exit 2, one line and the usage, no stack trace', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'zapgate-cli-'));
  try {
    // Two at a time: each run loads the TypeScript sources.
    for (let i = 0; i < BAD.length; i += 2) {
      const batch = BAD.slice(i, i + 2);
      const runs = await Promise.all(batch.map(([args]) => zapgate(dataDir, args)));
      runs.forEach((r, j) => {
        const [args, expected] = batch[j]!;
        const what = `zapgate ${args.join(' ')} → ${r.code}\n${r.stderr}`;
        assert.equal(r.code, 2, what);
        const lines = r.stderr.split('\n');
        assert.match(lines[0] ?? '', /^zapgate: /, what);
        assert.match(lines[0] ?? '', expected, what);
        assert.equal(lines[1], '', `one line, then the usage: ${what}`);
        assert.match(r.stderr, /Usage: zapgate /, what);
        assert.doesNotMatch(r.stderr, /\n\s+at |TypeError|ERR_PARSE_ARGS|node:internal/, `no stack trace: ${what}`);
        assert.equal(r.stdout, '', what);
      });
    }
    // The right form still works.
    const ok = await zapgate(dataDir, ['accounts', 'create', 'x']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal((JSON.parse(ok.stdout) as { name: string }).name, 'x');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a failure at start is one line naming the setting to change, exit 1, no stack trace', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'zapgate-cli-'));
  const busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  const busyPort = (busy.address() as AddressInfo).port;
  try {
    writeFileSync(join(dataDir, 'a-file'), '');
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['serve'], { ZAPGATE_HOST: '127.0.0.1', ZAPGATE_PORT: String(busyPort) }, new RegExp(`port ${busyPort} is already in use.*ZAPGATE_PORT`)],
      [['accounts', 'list'], { ZAPGATE_DATA_DIR: join(dataDir, 'a-file', 'data') }, /cannot write the data dir .*ZAPGATE_DATA_DIR/],
      [['migrate'], { ZAPGATE_DATABASE_URL: `postgres://someone:hunter2@127.0.0.1:${await freePort()}/x` }, /cannot use the PostgreSQL database at 127\.0\.0\.1:\d+\/x: .*ZAPGATE_DATABASE_URL/],
      [['serve'], { ZAPGATE_PORT: 'eighty' }, /invalid configuration: ZAPGATE_PORT/],
    ];
    for (const [args, env, expected] of cases) {
      const r = await zapgate(dataDir, args, env);
      const what = `zapgate ${args.join(' ')} ${JSON.stringify(env)} → ${r.code}\n${r.stdout}\n${r.stderr}`;
      assert.equal(r.code, /invalid configuration/.test(expected.source) ? 2 : 1, what);
      assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${what}`);
      assert.match(r.stderr, expected, what);
      assert.doesNotMatch(r.stderr, /hunter2/, `the database password is never echoed: ${what}`);
      assert.doesNotMatch(r.stderr, /\n\s+at /, `no stack trace: ${what}`);
      assert.doesNotMatch(r.stdout, /Client-Token/, `no account was made (and its token shown) before failing: ${what}`);
    }
  } finally {
    busy.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
