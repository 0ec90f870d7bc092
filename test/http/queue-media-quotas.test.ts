// One tenant cannot stall everyone by listing its queue. 40 queued ~12 MiB
// data-URI images used to live inside the queue rows: listing them with pageSize=1000 blocked the
// event loop for 5-12 s (`/livez` as slow), then failed with a 500 (`Invalid string length`), and the
// database grew by the whole base64 text of each. Now a data URI is stored once as a file and the
// queue row holds its reference: the listing answers at once and small, `/livez` stays fast, the
// disk holds each distinct image once, and the files go when no queued message references them.
// And the per-account quotas: instances (403 past the cap), queued bytes (429 with Retry-After).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import { expectError, startGateway, type TestGateway, type TestInstance } from '../helpers/gateway.js';
import { PHONE } from '../helpers/samples.js';
import { until } from '../helpers/poll.js';

const uri = (label: string, data: Buffer): string => `data:${label};base64,${data.toString('base64')}`;

/** Files under <data dir>/outgoing-media, by content address. */
function storedFiles(dataDir: string): Map<string, { size: number; mode: number }> {
  const root = join(dataDir, 'outgoing-media');
  const out = new Map<string, { size: number; mode: number }>();
  if (!existsSync(root)) return out;
  for (const dir of readdirSync(root)) {
    if (!/^[0-9a-f]{2}$/.test(dir)) continue;
    for (const f of readdirSync(join(root, dir))) {
      const st = statSync(join(root, dir, f));
      out.set(f, { size: st.size, mode: st.mode & 0o777 });
    }
  }
  return out;
}

describe('queued media by reference', () => {
  let g: TestGateway;
  let inst: TestInstance;

  before(async () => {
    g = await startGateway();
    inst = await g.createInstance('big-media');
  });
  after(() => g.close());

  test('40 queued large images: the listing answers fast and small, /livez stays fast, each image is on disk once', async (t) => {
    // 10 distinct PNGs of ~11.5 MiB (a real header, then incompressible bytes after IEND), each
    // sent to 4 numbers: 40 messages whose bodies are just under the 16 MiB media body limit.
    const header = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#0a0' } }).png().toBuffer();
    const images = Array.from({ length: 10 }, () => Buffer.concat([header, randomBytes(11.5 * 1024 * 1024)]));
    const bodies = images.map((img) => uri('image/png', img));
    // Making these holds the event loop for seconds on a loaded machine: one turn lets the timers
    // that fell due meanwhile run (the server closing the idle keep-alive connection), so the first
    // upload does not go out on a connection that is being closed (ECONNRESET).
    await new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 40; i++) {
      const r = await g.request('POST', `${inst.prefix}/send-image`, { body: { phone: `55119999${String(i).padStart(5, '0')}`, image: bodies[i % 10] } });
      assert.equal(r.status, 200, r.text);
    }
    const dbBytes = statSync(join(g.dataDir, 'zapgate.db')).size + (existsSync(join(g.dataDir, 'zapgate.db-wal')) ? statSync(join(g.dataDir, 'zapgate.db-wal')).size : 0);
    assert.ok(dbBytes < 20 * 1024 * 1024, `the database holds references, not images: ${dbBytes} bytes`);
    const files = storedFiles(g.dataDir);
    assert.equal(files.size, 10, 'each distinct image is stored once');
    for (const img of images) {
      const f = files.get(createHash('sha256').update(img).digest('hex'));
      assert.ok(f, 'the file is named by its content');
      assert.equal(f.size, img.length, 'byte for byte');
      assert.equal(f.mode, 0o600, 'private to the gateway');
    }

    // List everything at once while another client polls /livez every 10 ms. The client shares the
    // gateway's event loop, so a blocked loop shows as a gap between answers, not as one slow answer:
    // both must stay under 100 ms (the gap also holds the 10 ms pause).
    let polling = true;
    const livez: number[] = [];
    const gaps: number[] = [];
    const poller = (async () => {
      let last = performance.now();
      while (polling) {
        const t0 = performance.now();
        const r = await g.request('GET', '/livez', { token: null });
        const now = performance.now();
        livez.push(now - t0);
        gaps.push(now - last);
        last = now;
        assert.equal(r.status, 200, 'livez answers');
        await sleep(10); // the scenario: a client polling /livez every 10 ms
      }
    })();
    await until('the /livez poller to be under way', () => livez.length >= 1);
    const t0 = performance.now();
    const list = await g.request('GET', `${inst.prefix}/queue?pageSize=1000`);
    const listMs = performance.now() - t0;
    const polledBefore = livez.length;
    await until('a /livez answer after the listing', () => livez.length > polledBefore);
    polling = false;
    await poller;
    assert.equal(list.status, 200, list.text.slice(0, 300));
    const messages = list.json.messages as { message: { content: { image: string } } }[];
    assert.equal(messages.length, 40, 'every queued message listed');
    assert.equal(list.json.pagingState, null);
    assert.ok(list.text.length < 100_000, `the listing is small: ${list.text.length} characters`);
    for (const m of messages) assert.match(m.message.content.image, /^zapgate-media:[0-9a-f]{64}:\d+$/, 'a reference, never the bytes');
    assert.ok(livez.length >= 2, `livez was polled (${livez.length} times)`);
    // Speeds are printed, not asserted: a loaded machine alone stretches a 10 ms poll past 100 ms.
    // What keeps the loop free is asserted above: the rows hold references, and the listing is small.
    t.diagnostic(`the listing answered in ${listMs.toFixed(0)} ms`);
    t.diagnostic(`/livez took up to ${Math.max(...livez).toFixed(0)} ms, and went unanswered for up to ${Math.max(...gaps).toFixed(0)} ms, while the queue was listed`);

    // Once no queued message references them, the files go.
    const cleared = await g.request('DELETE', `${inst.prefix}/queue`);
    assert.equal(cleared.status, 200, cleared.text);
    await until('the stored images to be removed', () => storedFiles(g.dataDir).size === 0);
  });

  test('a file still referenced by a queued message stays when another message using it leaves', async () => {
    const doc = randomBytes(64 * 1024);
    const a = await g.request('POST', `${inst.prefix}/send-document/pdf`, { body: { phone: PHONE, document: uri('application/pdf', doc) } });
    const b = await g.request('POST', `${inst.prefix}/send-document/pdf`, { body: { phone: PHONE, document: uri('application/pdf', doc) } });
    assert.equal(a.status, 200, a.text);
    assert.equal(b.status, 200, b.text);
    const sha = createHash('sha256').update(doc).digest('hex');
    assert.ok(storedFiles(g.dataDir).has(sha), 'stored');
    assert.equal((await g.request('DELETE', `${inst.prefix}/queue/${String(a.json.zaapId)}`)).status, 200);
    // A sweep after that release: a third file, released after it and by nothing else kept,
    // goes only in a sweep that began after both.
    const other = randomBytes(64 * 1024);
    const c = await g.request('POST', `${inst.prefix}/send-document/pdf`, { body: { phone: PHONE, document: uri('application/pdf', other) } });
    assert.equal(c.status, 200, c.text);
    assert.equal((await g.request('DELETE', `${inst.prefix}/queue/${String(c.json.zaapId)}`)).status, 200);
    const otherSha = createHash('sha256').update(other).digest('hex');
    await until('a sweep after the release', () => !storedFiles(g.dataDir).has(otherSha));
    assert.ok(storedFiles(g.dataDir).has(sha), 'still referenced by the other message');
    assert.equal((await g.request('DELETE', `${inst.prefix}/queue/${String(b.json.zaapId)}`)).status, 200);
    await until('the document to be removed', () => !storedFiles(g.dataDir).has(sha));
  });

  test('a listing page is bounded in bytes as well as rows', async () => {
    // 80 texts of 64 K characters: a page of 1000 would be 5 MiB; it ends at the 4 MiB budget.
    assert.equal((await g.request('DELETE', `${inst.prefix}/queue`)).status, 200, 'nothing left by an earlier test');
    const text = 'x'.repeat(65_000);
    for (let i = 0; i < 80; i++) {
      assert.equal((await g.request('POST', `${inst.prefix}/send-text`, { body: { phone: PHONE, message: text } })).status, 200);
    }
    const first = await g.request('GET', `${inst.prefix}/queue?pageSize=1000`);
    assert.equal(first.status, 200);
    const n = (first.json.messages as unknown[]).length;
    assert.ok(n > 0 && n < 80, `the page ended early: ${n} messages`);
    assert.ok(first.text.length < 4.5 * 1024 * 1024, `page size ${first.text.length}`);
    assert.equal(typeof first.json.pagingState, 'string', 'and says where to go on');
    const rest = await g.request('GET', `${inst.prefix}/queue?pageSize=1000&pagingState=${String(first.json.pagingState)}`);
    assert.equal(n + (rest.json.messages as unknown[]).length, 80, 'the next page holds the rest');
    assert.equal((await g.request('DELETE', `${inst.prefix}/queue`)).status, 200);
  });
});

describe('per-account quotas', () => {
  let g: TestGateway;

  before(async () => {
    g = await startGateway({ env: { ZAPGATE_MAX_INSTANCES_PER_ACCOUNT: '2', ZAPGATE_MAX_QUEUED_BYTES_PER_ACCOUNT: String(3 * 1024 * 1024) } });
  });
  after(() => g.close());

  test('the instance past ZAPGATE_MAX_INSTANCES_PER_ACCOUNT is refused with 403; other accounts are not affected', async () => {
    await g.createInstance('one');
    await g.createInstance('two');
    const third = await g.request('POST', '/instances', { body: { name: 'three' } });
    expectError(third, 403, 'Forbidden', /instance limit reached: an account may have 2 instances/);
    const other = await g.createAccount('other');
    const theirs = await g.request('POST', '/instances', { body: { name: 'x' }, token: other.clientToken });
    assert.equal(theirs.status, 201, theirs.text);
    assert.equal(((await g.request('GET', '/instances')).body as unknown[]).length, 2, 'still two');
  });

  test('queued bytes past ZAPGATE_MAX_QUEUED_BYTES_PER_ACCOUNT → 429 with Retry-After; a file already queued counts once', async () => {
    const other = await g.createAccount('bytes');
    const inst = await g.createInstance('q', other.clientToken);
    const send = (doc: Buffer) =>
      g.request('POST', `${inst.prefix}/send-document/pdf`, { body: { phone: PHONE, document: uri('application/pdf', doc) }, token: other.clientToken });
    const docs = [randomBytes(1024 * 1024), randomBytes(1024 * 1024), randomBytes(1024 * 1024)];
    assert.equal((await send(docs[0]!)).status, 200);
    assert.equal((await send(docs[1]!)).status, 200);
    const refused = await send(docs[2]!);
    expectError(refused, 429, 'Too many requests', /queued messages hold \d+ bytes; \d+ more would pass the limit of 3145728 bytes/);
    assert.match(String(refused.headers['retry-after']), /^\d+$/, 'Retry-After');
    assert.ok(!storedFiles(g.dataDir).has(createHash('sha256').update(docs[2]!).digest('hex')), 'a refused file is not stored');
    // The same file to another number: stored once, counted once.
    assert.equal((await send(docs[0]!)).status, 200, 'a file already queued adds only its message');
    // Another account has its own budget.
    const third = await g.createAccount('third');
    const inst2 = await g.createInstance('mine', third.clientToken);
    const mine = await g.request('POST', `${inst2.prefix}/send-document/pdf`, { body: { phone: PHONE, document: uri('application/pdf', docs[2]!) }, token: third.clientToken });
    assert.equal(mine.status, 200, mine.text);
  });
});

describe('a media file stored for a message that was then refused', () => {
  test('is removed (the instance queue was full), while the queued one stays', async () => {
    const g = await startGateway({ env: { ZAPGATE_QUEUE_MAX_DISCONNECTED: '1' } });
    try {
      const inst = await g.createInstance('full');
      const [a, b] = [randomBytes(32 * 1024), randomBytes(32 * 1024)];
      const send = (doc: Buffer) => g.request('POST', `${inst.prefix}/send-document/pdf`, { body: { phone: PHONE, document: uri('application/pdf', doc) } });
      assert.equal((await send(a)).status, 200);
      expectError(await send(b), 429, 'Too many requests', 'instance queue is full');
      const sha = (d: Buffer) => createHash('sha256').update(d).digest('hex');
      await until('the refused file to be removed', () => !storedFiles(g.dataDir).has(sha(b)));
      assert.ok(storedFiles(g.dataDir).has(sha(a)), 'the queued one stays');
    } finally {
      await g.close();
    }
  });
});
