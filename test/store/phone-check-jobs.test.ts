// phone-exists-batch jobs in the store, on every dialect: one instance's job is invisible to
// another, progress and the final answer are recorded, running jobs are listed for resuming, and
// finished ones are pruned after their keep time (running ones never).
import assert from 'node:assert/strict';
import { storeTest, storeTwoInstances } from '../helpers/store-fixtures.js';

storeTest('a job is created running, advanced, finished with its answer, and only its instance sees it', async (store) => {
  await storeTwoInstances(store);
  const jobs = store.phoneCheckJobs;
  await jobs.create({ id: 'j1', instance_id: 'i1', phones: ['5511999999999', '+55 11 98888-8888'], created_at: 100 });
  const fresh = await jobs.find('i1', 'j1');
  assert.equal(fresh?.status, 'running');
  assert.equal(fresh?.total, 2);
  assert.equal(fresh?.done, 0);
  assert.deepEqual(JSON.parse(fresh!.phones), ['5511999999999', '+55 11 98888-8888'], 'the caller spellings, in order');
  assert.equal(await jobs.find('i2', 'j1'), undefined, "another instance's job reads as absent");
  assert.equal(await jobs.countRunning('i1'), 1);
  assert.equal(await jobs.countRunning('i2'), 0);
  await jobs.progress('j1', 1);
  assert.equal((await jobs.find('i1', 'j1'))?.done, 1);
  await jobs.finish('j1', '[{"exists":true}]', 200);
  const done = await jobs.find('i1', 'j1');
  assert.equal(done?.status, 'done');
  assert.equal(done?.done, 2, 'a finished job has done them all');
  assert.equal(done?.results, '[{"exists":true}]');
  assert.equal(Number(done?.finished_at), 200);
  await jobs.progress('j1', 1);
  assert.equal((await jobs.find('i1', 'j1'))?.done, 2, 'a late progress write does not move a finished job back');
  assert.equal(await jobs.countRunning('i1'), 0);
});

storeTest('running jobs are listed oldest first; finished ones are pruned after their keep time, running ones never', async (store) => {
  await storeTwoInstances(store);
  const jobs = store.phoneCheckJobs;
  await jobs.create({ id: 'b', instance_id: 'i1', phones: ['5511999999991'], created_at: 20 });
  await jobs.create({ id: 'a', instance_id: 'i2', phones: ['5511999999992'], created_at: 10 });
  await jobs.create({ id: 'c', instance_id: 'i1', phones: ['5511999999993'], created_at: 30 });
  await jobs.fail('c', 'Instance not connected', 40);
  assert.deepEqual((await jobs.listRunning()).map((j) => j.id), ['a', 'b']);
  assert.equal((await jobs.find('i1', 'c'))?.error, 'Instance not connected');
  assert.equal(await jobs.pruneFinished(40), 0, 'not older than its finish');
  assert.equal(await jobs.pruneFinished(41), 1, 'the failed one goes');
  assert.equal(await jobs.find('i1', 'c'), undefined);
  assert.equal((await jobs.listRunning()).length, 2, 'running jobs stay');
});

storeTest('deleting an instance deletes its jobs', async (store) => {
  await storeTwoInstances(store);
  await store.phoneCheckJobs.create({ id: 'j', instance_id: 'i1', phones: ['5511999999999'], created_at: 1 });
  await store.instances.delete('i1');
  assert.deepEqual(await store.phoneCheckJobs.listRunning(), []);
});
