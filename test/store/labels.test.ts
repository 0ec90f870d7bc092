// A business account's labels in the store, on every dialect: created, edited and listed in
// WhatsApp's id order; associations report whether they changed anything (a replayed sync is no
// change); deleting a label takes its associations with it; one instance never sees another's.
import assert from 'node:assert/strict';
import { storeTest, storeTwoInstances } from '../helpers/store-fixtures.js';

storeTest('labels are created, edited and listed by WhatsApp id; the next id follows the highest', async (store) => {
  await storeTwoInstances(store);
  const labels = store.labels;
  assert.equal(await labels.nextId('i1'), '1', 'an account with no labels starts at 1');
  await labels.upsert('i1', { id: '10', name: 'Paid', color: 3, predefinedId: null }, 100);
  await labels.upsert('i1', { id: '2', name: 'New order', color: 1, predefinedId: '2' }, 100);
  await labels.upsert('i1', { id: '2', name: 'Big order', color: 5, predefinedId: '2' }, 200);
  assert.deepEqual(await labels.list('i1'), [
    { id: '2', name: 'Big order', color: 5, predefinedId: '2' },
    { id: '10', name: 'Paid', color: 3, predefinedId: null },
  ]);
  assert.equal(await labels.nextId('i1'), '11');
  assert.deepEqual(await labels.list('i2'), [], "another instance's labels are not listed");
  assert.equal(await labels.find('i2', '2'), undefined, "another instance's label reads as absent");
  assert.equal((await labels.find('i1', '10'))?.name, 'Paid');
});

storeTest('associations change once; deleting a label removes its associations', async (store) => {
  await storeTwoInstances(store);
  const labels = store.labels;
  await labels.upsert('i1', { id: '1', name: 'New customer', color: 0, predefinedId: null }, 1);
  await labels.upsert('i1', { id: '2', name: 'Paid', color: 2, predefinedId: null }, 1);
  const ana = { chatId: '5511977776666', jid: '5511977776666@s.whatsapp.net' };
  const group = { chatId: '120363019502650977-group', jid: '120363019502650977@g.us' };
  assert.equal(await labels.associate('i1', '1', ana, true, 10), true, 'a new association is a change');
  assert.equal(await labels.associate('i1', '1', ana, true, 11), false, 'the same association again is none');
  assert.equal(await labels.associate('i1', '2', ana, true, 12), true);
  assert.equal(await labels.associate('i1', '1', group, true, 13), true);
  assert.deepEqual(await labels.labelsOf('i1', ana.chatId), ['1', '2']);
  assert.deepEqual(await labels.chatsOf('i1', '1'), [group.chatId, ana.chatId].sort());
  assert.deepEqual(await labels.labelsOf('i2', ana.chatId), [], "another instance's associations are not seen");
  assert.equal(await labels.associate('i1', '2', ana, false, 14), true, 'taking a label off is a change');
  assert.equal(await labels.associate('i1', '2', ana, false, 15), false, 'taking it off again is none');
  assert.equal(await labels.remove('i1', '1'), true);
  assert.equal(await labels.remove('i1', '1'), false, 'a label removed twice is reported absent');
  assert.deepEqual(await labels.labelsOf('i1', ana.chatId), [], 'the deleted label is off every chat');
  assert.deepEqual(await labels.chatsOf('i1', '1'), []);
  assert.deepEqual((await labels.list('i1')).map((l) => l.id), ['2']);
});
