// Account changes made by another process (the CLI) reach a running server through its watcher
// (services/accounts-service.ts), one poll per interval on the server's clock: a rotated token is
// refused and a deleted account's instances are closed after one interval, not before; unwatch()
// leaves nothing scheduled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AccountsService } from '../../src/services/accounts-service.js';
import { InstancesService } from '../../src/services/instances-service.js';
import { offlineSessions } from '../../src/sessions/offline-sessions.js';
import { createStore } from '../../src/store/index.js';
import { sqliteFactory } from '../helpers/databases.js';
import { VirtualClock } from '../helpers/virtual-clock.js';

/** Lets the poll a timer started run to its end (a few database reads), however long that takes. */
const until = async (done: () => boolean): Promise<void> => {
  while (!done()) await new Promise((r) => setImmediate(r));
};

test('a token rotated and an account deleted by another process take effect at the next poll on the clock', async () => {
  const t = await sqliteFactory.open();
  try {
    const store = createStore(t.database);
    const clock = new VirtualClock({ mode: 'frozen' });
    const server = new AccountsService(store, clock);
    const cli = new AccountsService(store, new VirtualClock({ mode: 'frozen' }));
    const { id: accountId, clientToken } = await server.create('a');
    const { instanceId } = await new InstancesService({ store, sessions: offlineSessions(), clock }).create(accountId, 'x');
    await server.authenticate(clientToken);
    const deleted: string[][] = [];
    await server.watch(async (ids) => void deleted.push(ids), 100);

    await cli.rotate(accountId);
    assert.equal(server.authenticateCached(clientToken)?.id, accountId, 'cached until the server polls');
    await clock.advance(99);
    assert.equal(server.authenticateCached(clientToken)?.id, accountId, 'no poll before the interval');
    await clock.advance(1);
    await until(() => server.authenticateCached(clientToken) === undefined); // the rotated token is dropped at the poll

    await cli.delete(accountId);
    await clock.advance(100);
    await until(() => deleted.length > 0);
    assert.deepEqual(deleted, [[instanceId]], 'the deleted account\'s instances, once');

    await server.unwatch();
    assert.equal(clock.pending, 0, 'nothing scheduled after unwatch');
  } finally {
    await t.dispose();
  }
});
