// Imports flow one way: http → services → engine (sessions, sender, outbox, cluster) → store and the
// leaf modules. This reads the import statements of every file under src/ and fails when a lower
// layer imports an upper one, so a shortcut that would tie the engine to a use case is caught here.
// One rule more for the top: http/ does not import store/ or sessions/ at all, so routes see domain
// objects and services, never rows or engine internals.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

const SRC = resolve(import.meta.dirname, '../../src');

/**
 * The rank of each top-level module of src/ (a folder, or a file at the root). A file may import
 * from its own rank or below, never above. The ranks are the ones the tree follows:
 * - the composition roots wire everything;
 * - http calls services; services use the engine and the store;
 * - sender drives sessions (a lane sends through a session), so it sits just above them;
 * - media files are kept in the store's tables (media → store), conversion reads domain limits.
 */
const RANK: Record<string, number> = {
  'main.ts': 9,
  'cli.ts': 9,
  cli: 9,
  'demo.ts': 9,
  http: 7,
  services: 6,
  sender: 5,
  sessions: 4,
  outbox: 4,
  cluster: 4,
  media: 3,
  convert: 3,
  net: 3,
  store: 2,
  domain: 1,
  events: 1,
  'errors.ts': 0,
  'start-errors.ts': 0,
  'config.ts': 0,
  'logger.ts': 0,
  'metrics.ts': 0,
  'clock.ts': 0,
  'ids.ts': 0,
};

/** Imports that cross the rule on purpose, as `from-module -> to-module`, each with its reason. */
const EXCEPTIONS = new Map<string, string>([
  // Type only: the settings carry MediaLimits, declared next to the code that enforces each bound.
  ['config.ts -> convert', 'MediaLimits type'],
]);

/**
 * http/ talks to services only: rows and engine internals stay below it. Besides the rank rule,
 * http/ may not import these at all (not even a type); what it shows comes from domain/, events/
 * and the services.
 */
const HTTP_MAY_NOT_IMPORT = new Set(['store', 'sessions']);

/** Root files that may import from outside src/: the commands that start the simulator. */
const MAY_IMPORT_SIMNET = new Set(['cli.ts', 'demo.ts']);

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(path, out);
    else if (entry.name.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** The top-level module of a path under src/: its first folder, or the file itself at the root. */
function moduleOf(path: string): string {
  const first = relative(SRC, path).split(/[\\/]/)[0];
  return first ?? path;
}

/** What is wrong with the imports of one file under src/ (empty when it keeps to its layer). */
function violationsOf(file: string, source: string): string[] {
  const from = moduleOf(file);
  const out: string[] = [];
  // preProcessFile sees static imports, re-exports, `import type` and dynamic import() alike.
  for (const { fileName: spec } of ts.preProcessFile(source, true, true).importedFiles) {
    if (!spec.startsWith('.')) continue; // packages and node: builtins
    const target = resolve(dirname(file), spec);
    if (relative(SRC, target).startsWith('..')) {
      const simnet = relative(SRC, target).startsWith(`..${sep}simnet${sep}`);
      if (!(simnet && MAY_IMPORT_SIMNET.has(from))) out.push(`${relative(SRC, file)} imports ${spec}, outside src/`);
      continue;
    }
    const to = moduleOf(target.replace(/\.js$/, '.ts')); // ESM specifiers name the compiled file
    const fromRank = RANK[from];
    const toRank = RANK[to];
    if (from === to || fromRank === undefined || toRank === undefined) continue; // unranked: the first test
    if (toRank > fromRank && !EXCEPTIONS.has(`${from} -> ${to}`)) out.push(`${relative(SRC, file)} (${from}) imports ${spec} (${to})`);
    const name = relative(SRC, file).split(sep).join('/');
    if (from === 'http' && HTTP_MAY_NOT_IMPORT.has(to)) {
      out.push(`${name} (http) imports ${spec} (${to}): http/ reaches rows and the engine only through domain/ and services`);
    }
  }
  return out;
}

test('every top-level module under src/ has a layer', () => {
  const unranked = [...new Set(sourceFiles(SRC).map(moduleOf))].filter((m) => !(m in RANK));
  assert.deepEqual(unranked, [], 'a new folder or root file needs a rank in layering.test.ts');
});

test('no module under src/ imports one of a higher layer', () => {
  const violations = sourceFiles(SRC).flatMap((file) => violationsOf(file, readFileSync(file, 'utf8')));
  assert.deepEqual(violations, [], 'a lower layer imports an upper one');
});

test('the check finds an HTTP file that reaches into the store or the engine, type imports included', () => {
  const file = join(SRC, 'http', 'routes', 'example.ts');
  const source = [
    "import type { InstanceRow } from '../../store/schema.js';",
    "import { HISTORY_MAX_DAYS } from '../../sessions/history-import.js';",
    "import type { Instance } from '../../domain/instance.js';",
    "import type { MessagesService } from '../../services/messages-service.js';",
    "import { instanceOf } from '../auth.js';",
  ].join('\n');
  assert.deepEqual(
    violationsOf(file, source),
    [
      'http/routes/example.ts (http) imports ../../store/schema.js (store): http/ reaches rows and the engine only through domain/ and services',
      'http/routes/example.ts (http) imports ../../sessions/history-import.js (sessions): http/ reaches rows and the engine only through domain/ and services',
    ],
    'store/ and sessions/ are refused to http/; domain/, services and http/ itself pass',
  );
});

test('the check finds an engine file that imports a service or the HTTP layer', () => {
  const file = join(SRC, 'sessions', 'example.ts');
  const source = [
    "import type { GroupsService } from '../services/groups-service.js';",
    "export { x } from '../http/server.js';",
    "const m = await import('../services/messages-service.js');",
    "import { createStore } from '../store/index.js';",
    "import './manager.js';",
    "import { ZapgateError } from '../errors.js';",
    "import { cli } from '../cli.js';",
  ].join('\n');
  assert.deepEqual(
    violationsOf(file, source),
    [
      'sessions/example.ts (sessions) imports ../services/groups-service.js (services)',
      'sessions/example.ts (sessions) imports ../http/server.js (http)',
      'sessions/example.ts (sessions) imports ../services/messages-service.js (services)',
      'sessions/example.ts (sessions) imports ../cli.js (cli.ts)',
    ],
    'type imports, re-exports and dynamic imports upward are all found; downward and sibling ones pass',
  );
});
