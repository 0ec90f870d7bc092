// What Baileys throws becomes the domain's error: refusal (422), not connected (409) or timeout (504).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toDomainError, withTimeout } from '../../src/sessions/engine-call.js';
import { errors } from '../../src/errors.js';
import { VirtualClock } from '../helpers/virtual-clock.js';

/** Errors shaped like the @hapi/boom ones Baileys throws. */
function boom(message: string, opts: { statusCode?: number; data?: unknown }): Error {
  return Object.assign(new Error(message), { isBoom: true, output: { statusCode: opts.statusCode ?? 500 }, data: opts.data });
}

test('an <error code/> answer is a refusal carrying the network reason and code', () => {
  const e = toDomainError(boom('not-acceptable', { data: 406 }));
  assert.equal(e.code, 'network_refused');
  assert.equal(e.detail, 'not-acceptable (406)');
});

test('a closed or lost link is "not connected"; a query timeout is a command timeout', () => {
  assert.equal(toDomainError(boom('Connection Closed', { statusCode: 428 })).code, 'not_connected');
  assert.equal(toDomainError(boom('Connection was lost', { statusCode: 408 })).code, 'not_connected');
  assert.equal(toDomainError(boom('Timed Out', { statusCode: 408 })).code, 'command_timeout');
});

test('domain errors pass through; anything else is a refusal with its message', () => {
  const nc = errors.notConnected();
  assert.equal(toDomainError(nc), nc);
  const e = toDomainError(new Error('All encryptions failed'));
  assert.equal(e.code, 'network_refused');
  assert.equal(e.detail, 'All encryptions failed');
});

test('withTimeout gives up with "Worker command timeout" when the network stays silent', async () => {
  const clock = new VirtualClock({ mode: 'frozen' });
  let settled = false;
  const call = withTimeout({ clock, commandTimeoutMs: 20 }, () => new Promise(() => {}));
  void call.catch(() => undefined).finally(() => (settled = true));
  await clock.advance(19);
  assert.equal(settled, false, 'still waiting within the limit');
  await clock.advance(1);
  await assert.rejects(call, (e: Error) => e.message === 'Worker command timeout');
});
