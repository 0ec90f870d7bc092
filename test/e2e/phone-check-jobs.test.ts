// phone-exists-batch at scale, end to end (HTTP → services → Baileys → simnet): a batch whose
// unchecked numbers would hold the request for minutes answers 202 with a job; the job checks them
// at the network's pace, survives a gateway restart, and its answer is the batch answer (input
// order, Z-API's fields, LIDs as `<digits>@lid`). Small or cached batches still answer at once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness, type Instance } from '../helpers/engine-harness.js';

const OWNER = '5511999990401';
const KNOWN = ['5511988880402', '5511988880403', '5511988880404'];
const SYNC_MAX = 5;
/** The pause between chunk queries (protocol time): jumped while a test watches a job. */
const CHUNK_GAP_MS = 4_000;

type Check = { exists: boolean; inputPhone: string; outputPhone: string; lid: string | null };
type Job = { jobId: string; status: string; total: number; done: number; results?: Check[]; error?: string };

/** `n` numbers nobody has (simnet registers only the users made here), plus the known ones spread in. */
function batch(n: number, seed: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(`55113${String(seed).padStart(2, '0')}${String(i).padStart(5, '0')}`);
  KNOWN.forEach((k, i) => out.splice(Math.min(out.length, (i + 1) * 7), 0, k));
  return out;
}

describe('phone-exists-batch jobs (gateway + Baileys + simnet)', () => {
  let h: Harness;
  let inst: Instance;
  let other: Instance;
  const lids = new Map<string, string>();

  before(async () => {
    // Chunks of 10 with a pause between them: a job of ~100 numbers takes a while on the clock,
    // long enough to restart in (the gateway is stopped while no one moves the clock on).
    h = await startHarness({ simnet: { autoUserPattern: null }, env: { ZAPGATE_PHONE_CHECK_SYNC_MAX: String(SYNC_MAX) }, engine: { phoneChecks: { chunkSize: 10, chunkGapMs: CHUNK_GAP_MS } }, phoneCheckJobs: { sliceSize: 10 } });
    await h.admin.createUser({ phone: OWNER, pushName: 'Owner' });
    for (const k of KNOWN) lids.set(k, (await h.admin.createUser({ phone: k, pushName: k })).lid);
    inst = await h.pairNew(OWNER, 'checks');
    other = await h.createInstance('other');
  });
  after(async () => {
    await h?.close();
  });

  /** Reads the job until `until` holds, jumping the clock through the gaps between its chunks. */
  async function poll(prefix: string, jobId: string, until: (j: Job) => boolean, timeoutMs = 60_000): Promise<Job> {
    const read = async (): Promise<Job> => {
      const r = await h.call('GET', `${prefix}/phone-exists-batch/${jobId}`);
      assert.equal(r.status, 200, r.body.toString());
      return r.json as unknown as Job;
    };
    return h.driveUntil(`job ${jobId}`, read, until, { withinMs: CHUNK_GAP_MS, timeoutMs });
  }

  function assertAnswer(phones: readonly string[], results: readonly Check[]): void {
    assert.deepEqual(results.map((r) => r.inputPhone), phones, 'answers in input order, with the caller spelling');
    for (const r of results) {
      const known = lids.get(r.inputPhone);
      assert.equal(r.exists, known !== undefined, `${r.inputPhone} exists?`);
      assert.equal(r.lid, known ? `${known.split('@')[0]}@lid` : null, `${r.inputPhone}: the LID as an address`);
    }
  }

  test('a batch within the limit answers at once, LIDs as <digits>@lid', async () => {
    const phones = [KNOWN[0]!, '5511300000001', '5511300000002'];
    const r = await h.call('POST', `${inst.prefix}/phone-exists-batch`, { phones });
    assert.equal(r.status, 200, r.body.toString());
    assertAnswer(phones, JSON.parse(r.body.toString()) as Check[]);
    const one = await h.call('GET', `${inst.prefix}/phone-exists/${KNOWN[0]}`);
    assert.deepEqual(one.json, { exists: true, phone: KNOWN[0], lid: `${lids.get(KNOWN[0]!)!.split('@')[0]}@lid` });
  });

  test('a larger batch is a job: 202 with its location, progress, then the same answer; cached, the batch answers at once', async () => {
    const phones = batch(40, 1);
    const r = await h.call('POST', `${inst.prefix}/phone-exists-batch`, { phones });
    assert.equal(r.status, 202, r.body.toString());
    const job = r.json as unknown as Job;
    assert.equal(job.status, 'running');
    assert.equal(job.total, phones.length);
    assert.equal(r.headers.location, `/instances/${inst.instanceId}/token/${inst.instanceToken}/phone-exists-batch/${job.jobId}`);
    const partway = await poll(inst.prefix, job.jobId, (j) => j.done > 0 || j.status !== 'running');
    assert.ok(partway.status === 'done' || partway.done < partway.total, 'progress is reported while it runs');
    const done = await poll(inst.prefix, job.jobId, (j) => j.status !== 'running');
    assert.equal(done.status, 'done', done.error);
    assert.equal(done.done, phones.length);
    assertAnswer(phones, done.results ?? []);
    const again = await h.call('POST', `${inst.prefix}/phone-exists-batch`, { phones });
    assert.equal(again.status, 200, 'every number is cached now: no job');
    assert.deepEqual(JSON.parse(again.body.toString()), done.results);
  });

  test('?async=true or Prefer: respond-async make a job of any batch; a job is its instance\'s only', async () => {
    const a = await h.call('POST', `${inst.prefix}/phone-exists-batch?async=true`, { phones: [KNOWN[1]!] });
    assert.equal(a.status, 202, a.body.toString());
    const b = await h.call('POST', `${inst.prefix}/phone-exists-batch`, { phones: [KNOWN[2]!] }, { prefer: 'respond-async' });
    assert.equal(b.status, 202, b.body.toString());
    const done = await poll(inst.prefix, String(b.json.jobId), (j) => j.status !== 'running');
    assert.equal(done.status, 'done', done.error);
    assertAnswer([KNOWN[2]!], done.results ?? []);
    const foreign = await h.call('GET', `${other.prefix}/phone-exists-batch/${String(a.json.jobId)}`);
    assert.equal(foreign.status, 404, "another instance's job is not found");
    const unknown = await h.call('GET', `${inst.prefix}/phone-exists-batch/nope`);
    assert.equal(unknown.status, 404);
  });

  test('a job survives a gateway restart and asks the network only for what was not checked yet', async () => {
    const phones = batch(90, 2);
    const r = await h.call('POST', `${inst.prefix}/phone-exists-batch`, { phones });
    assert.equal(r.status, 202, r.body.toString());
    const jobId = String(r.json.jobId);
    const before = await poll(inst.prefix, jobId, (j) => j.done >= 20 || j.status !== 'running');
    assert.equal(before.status, 'running', 'still running when the gateway stops');
    await h.stopGateway();
    const checkedBefore = (await h.call('GET', `${inst.prefix}/phone-exists-batch/${jobId}`).catch(() => null), before.done);
    const queriesAtStop = (await h.admin.counters()).counters.usync ?? 0;
    await h.startGateway();
    await h.waitForStatus(inst, 'connected');
    const done = await poll(inst.prefix, jobId, (j) => j.status !== 'running', 90_000);
    assert.equal(done.status, 'done', done.error);
    assertAnswer(phones, done.results ?? []);
    // Each network query checks a chunk of 10; what was checked before the stop comes from the cache.
    const queries = ((await h.admin.counters()).counters.usync ?? 0) - queriesAtStop;
    const chunksLeft = Math.ceil((phones.length - checkedBefore) / 10);
    assert.ok(queries <= chunksLeft + 3, `${queries} network queries after the restart for ${phones.length - checkedBefore} numbers left (${chunksLeft} chunks, + a few of the login's own)`);
  });

  test('bad input: a malformed number fails the whole call with 400 naming it, and starts nothing', async () => {
    const r = await h.call('POST', `${inst.prefix}/phone-exists-batch?async=true`, { phones: ['5511300000009', 'not-a-phone'] });
    assert.equal(r.status, 400);
    assert.match(String(r.json.message), /phones\[1\]/);
  });
});
