import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../helpers/databases.js';
import { createStore } from '../../src/store/index.js';

for (const d of dialects) {
  test(`${d.name}: migrate and round-trip an account`, async () => {
    const t = await d.open();
    try {
      const store = createStore(t.database);
      await store.accounts.create({ id: 'a1', name: 'x', token_hash: 'h', created_at: Date.now() });
      assert.equal(await store.accounts.count(), 1);
      assert.equal((await store.accounts.findByTokenHash('h'))?.id, 'a1');
    } finally {
      await t.dispose();
    }
  });
}
