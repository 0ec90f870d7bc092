// The promise-free authentication path (bench/enqueue) answers only from the caches and refuses a
// rotated or deleted credential at once, exactly as the async path does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { systemClock } from '../../src/clock.js';
import { DomainError } from '../../src/errors.js';
import { AccountsService } from '../../src/services/accounts-service.js';
import { InstancesService } from '../../src/services/instances-service.js';
import { offlineSessions } from '../../src/sessions/offline-sessions.js';
import { createStore } from '../../src/store/index.js';
import { sqliteFactory } from '../helpers/databases.js';

const is = (code: string) => (e: unknown) => e instanceof DomainError && e.code === code;

test('cached authentication: hits after a first lookup, refuses wrong tokens, forgets rotated and deleted credentials', async () => {
  const t = await sqliteFactory.open();
  try {
    const store = createStore(t.database);
    const accounts = new AccountsService(store, systemClock());
    const instances = new InstancesService({ store, sessions: offlineSessions(), clock: systemClock() });
    const { id: accountId, clientToken } = await accounts.create('a');
    const { id: otherAccountId } = await accounts.create('b');
    const { instanceId, instanceToken } = await instances.create(accountId, 'x');

    assert.throws(() => accounts.authenticateCached(undefined), is('unauthorized_client'));
    assert.equal(accounts.authenticateCached(clientToken), undefined, 'nothing cached before the first lookup');
    await accounts.authenticate(clientToken);
    assert.equal(accounts.authenticateCached(clientToken)?.id, accountId);
    assert.equal(accounts.authenticateCached('not-a-token'), undefined);

    assert.equal(instances.resolveCached(accountId, instanceId, instanceToken), undefined);
    await instances.resolve(accountId, instanceId, instanceToken);
    assert.equal(instances.resolveCached(accountId, instanceId, instanceToken)?.id, instanceId);
    assert.throws(() => instances.resolveCached(accountId, instanceId, 'wrong'), is('unauthorized_instance'));
    assert.throws(() => instances.resolveCached(otherAccountId, instanceId, instanceToken), is('instance_not_found'));

    const rotated = await instances.rotateToken(instanceId);
    assert.equal(instances.resolveCached(accountId, instanceId, instanceToken), undefined);
    await assert.rejects(instances.resolve(accountId, instanceId, instanceToken), is('unauthorized_instance'));
    assert.equal((await instances.resolve(accountId, instanceId, rotated)).id, instanceId);

    const { clientToken: newClientToken } = await accounts.rotate(accountId);
    assert.equal(accounts.authenticateCached(clientToken), undefined);
    await assert.rejects(accounts.authenticate(clientToken), is('unauthorized_client'));
    assert.equal((await accounts.authenticate(newClientToken)).id, accountId);
  } finally {
    await t.dispose();
  }
});
