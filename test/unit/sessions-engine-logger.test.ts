// The engine's logger: one `component` key per line, the post-pairing restart (515) not reported as
// an error, other engine errors still errors, and the engine's info chatter kept out by default.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/logger.js';
import { engineLogger, isRoutineRestart } from '../../src/sessions/link/engine-logger.js';

function capture(level: string) {
  const lines: string[] = [];
  const out = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      cb();
    },
  });
  return { root: createLogger(level, out), lines };
}

const settle = () => new Promise((r) => setImmediate(r));

test('a line of the engine carries one component key, and the instance id', async () => {
  const { root, lines } = capture('info');
  engineLogger(root, { instanceId: 'I1' }).warn({ x: 1 }, 'something');
  await settle();
  assert.equal(lines.length, 1, 'one line written');
  assert.equal(lines[0]!.match(/"component"/g)?.length, 1, `one component key in ${lines[0]}`);
  const parsed = JSON.parse(lines[0]!) as { component: string; instanceId: string };
  assert.equal(parsed.component, 'baileys');
  assert.equal(parsed.instanceId, 'I1');
});

test('the restart after pairing (stream error 515) is info; any other stream error stays an error', async () => {
  const { root, lines } = capture('info');
  const log = engineLogger(root, {});
  log.level = 'info';
  log.error({ fullErrorNode: { tag: 'stream:error', attrs: { code: '515' } } }, 'stream errored out');
  log.error({ fullErrorNode: { tag: 'stream:error', attrs: { code: '503' } } }, 'stream errored out');
  log.child({ class: 'x' }).error({ fullErrorNode: { tag: 'stream:error', attrs: { code: '515' } } }, 'stream errored out');
  await settle();
  const levels = lines.map((l) => (JSON.parse(l) as { level: number }).level);
  assert.deepEqual(levels, [30, 50, 30], 'info, error, and info from a child');
  assert.equal(isRoutineRestart(null), false, 'null is not a restart');
});

test("the engine's info and debug lines stay out unless the gateway logs at trace", async () => {
  const quiet = capture('debug');
  engineLogger(quiet.root, {}).info({}, 'routine reconnect');
  const loud = capture('trace');
  engineLogger(loud.root, {}).debug({}, 'assertSessions call with jids');
  await settle();
  assert.equal(quiet.lines.length, 0, 'at debug the engine logs warn and above only');
  assert.equal(loud.lines.length, 1, 'at trace the engine logs everything');
});
