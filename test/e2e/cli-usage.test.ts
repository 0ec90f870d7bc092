// A mistake on the command line is one line and the usage on stderr, exit 2 — never a stack
// trace (`zapgate accounts create --name x` used to die with parseArgs' TypeError and its stack).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/process-gateway.js';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function zapgate(dataDir: string, args: string[]): Promise<Run> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('ZAPGATE_')) env[k] = v;
  env.ZAPGATE_DATA_DIR = dataDir;
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
];

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
        assert.match(r.stderr, /Usage: zapgate <command>/, what);
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
