// The instance cache on the authentication path: after rotate-token the old token is refused at
// once, even when a lookup that started before the rotation finishes after it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { systemClock } from '../../src/clock.js';
import { DomainError } from '../../src/errors.js';
import { InstancesService } from '../../src/services/instances-service.js';
import { offlineSessions } from '../../src/sessions/offline-sessions.js';
import { createStore } from '../../src/store/index.js';
import { sqliteFactory } from '../helpers/databases.js';
import { accountRow } from '../helpers/store-fixtures.js';

test('a lookup racing rotate-token does not put the old token back in the cache', async () => {
  const t = await sqliteFactory.open();
  try {
    const store = createStore(t.database);
    const account = accountRow();
    await store.accounts.create(account);
    const service = new InstancesService({ store, sessions: offlineSessions(), clock: systemClock() });
    const { instanceId, instanceToken: oldToken } = await service.create(account.id, 'x');

    // The next read sees the row as it is now, but its answer arrives only when released.
    const realFind = store.instances.findById.bind(store.instances);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    store.instances.findById = async (id) => {
      const row = await realFind(id);
      await gate;
      return row;
    };
    const inFlight = service.resolve(account.id, instanceId, oldToken);
    store.instances.findById = realFind;

    const newToken = await service.rotateToken(instanceId);
    release();
    // The request that arrived before the rotation is served with the token valid at the time.
    assert.equal((await inFlight).id, instanceId);
    // Every later one with the old token is refused.
    await assert.rejects(service.resolve(account.id, instanceId, oldToken), (e: unknown) => e instanceof DomainError && e.code === 'unauthorized_instance');
    assert.equal((await service.resolve(account.id, instanceId, newToken)).id, instanceId);
  } finally {
    await t.dispose();
  }
});
