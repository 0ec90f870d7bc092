// The received-media store's backends against the port's promises (media/store.ts): the data dir,
// an S3 bucket (a real S3-protocol server on loopback, test/helpers/s3-server.ts) and PostgreSQL
// (the test database). Each is given the same files and must give back the same bytes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { DirectoryMediaStore, type MediaStore } from '../../src/media/store.js';
import { S3MediaStore } from '../../src/media/s3-store.js';
import { DatabaseMediaStore } from '../../src/media/database-store.js';
import { MediaBlobsRepo } from '../../src/store/media-blobs-repo.js';
import { postgresFactory, type TestDatabase } from '../helpers/databases.js';
import { startS3, type TestS3 } from '../helpers/s3-server.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'zapgate-media-'));
  dirs.push(d);
  return d;
}

let s3: TestS3;
let pg: TestDatabase;
/** Chunk reads made by the PostgreSQL store (to see it streams). */
let chunkReads = 0;

before(async () => {
  s3 = await startS3();
  pg = await postgresFactory.open();
});
after(async () => {
  await s3.close();
  await pg.dispose();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const backends: { name: string; make(): MediaStore }[] = [
  { name: 'directory', make: () => new DirectoryMediaStore(join(tempDir(), 'media')) },
  { name: 's3', make: () => new S3MediaStore(s3.settings(`t-${randomBytes(4).toString('hex')}/`), tempDir()) },
  {
    name: 'postgres',
    make: () => {
      const repo = new MediaBlobsRepo(pg.database.db);
      const chunk = repo.chunk.bind(repo);
      repo.chunk = (s, seq) => {
        chunkReads++;
        return chunk(s, seq);
      };
      return new DatabaseMediaStore(repo, tempDir());
    },
  },
];

async function drain(stream: Readable): Promise<{ bytes: Buffer; largestChunk: number; chunks: number }> {
  const parts: Buffer[] = [];
  let largestChunk = 0;
  for await (const c of stream) {
    parts.push(c as Buffer);
    largestChunk = Math.max(largestChunk, (c as Buffer).length);
  }
  return { bytes: Buffer.concat(parts), largestChunk, chunks: parts.length };
}

async function adoptBytes(store: MediaStore, bytes: Buffer): Promise<{ sha256: string; temp: string }> {
  const temp = await store.tempPath();
  writeFileSync(temp, bytes);
  const sha256 = sha(bytes);
  await store.adopt(temp, sha256);
  return { sha256, temp };
}

for (const b of backends) {
  test(`${b.name}: put then read and open give the same bytes, and list names the file`, async () => {
    const store = b.make();
    const bytes = randomBytes(70_000);
    const address = await store.put(bytes, { durable: true });
    assert.equal(address, sha(bytes));
    assert.deepEqual(await store.read(address), bytes);
    const file = await store.open(address);
    assert.ok(file);
    assert.equal(file.size, bytes.length);
    assert.deepEqual((await drain(file.stream)).bytes, bytes);
    assert.ok((await store.list()).includes(address));
  });

  test(`${b.name}: adopt moves a downloaded temp file in; adopting the same content again keeps one copy`, async () => {
    const store = b.make();
    const bytes = randomBytes(5000);
    const { sha256, temp } = await adoptBytes(store, bytes);
    assert.equal(existsSync(temp), false, 'the temp file is gone once adopted');
    const again = await adoptBytes(store, bytes);
    assert.equal(existsSync(again.temp), false);
    assert.deepEqual(await store.read(sha256), bytes);
    assert.deepEqual((await store.list()).filter((s) => s === sha256), [sha256]);
  });

  test(`${b.name}: a large file (12 MB) is stored and served streamed, never as one piece`, async () => {
    const store = b.make();
    const bytes = randomBytes(12 * 1024 * 1024);
    const { sha256 } = await adoptBytes(store, bytes);
    chunkReads = 0;
    const file = await store.open(sha256);
    assert.ok(file);
    assert.equal(file.size, bytes.length);
    // Nothing is read ahead of the reader beyond a chunk or so.
    if (b.name === 'postgres') {
      await new Promise((r) => setTimeout(r, 100)); // the scenario: a reader slow to start
      assert.ok(chunkReads <= 2, `chunks read before the reader asked: ${chunkReads}`);
    }
    const got = await drain(file.stream);
    assert.equal(sha(got.bytes), sha256, 'the exact bytes');
    assert.ok(got.chunks > 1 && got.largestChunk <= 2 * 1024 * 1024, `streamed in pieces (largest ${got.largestChunk} bytes of ${bytes.length})`);
    if (b.name === 'postgres') assert.equal(chunkReads, 12);
  });

  test(`${b.name}: remove deletes the file; a missing file reads as null and removing it again is fine`, async () => {
    const store = b.make();
    const bytes = randomBytes(3000);
    const address = await store.put(bytes);
    await store.remove(address);
    assert.equal(await store.open(address), null);
    assert.equal(await store.read(address), null);
    assert.equal((await store.list()).includes(address), false);
    await store.remove(address);
    const unknown = sha(randomBytes(8));
    assert.equal(await store.open(unknown), null);
    assert.equal(await store.read(unknown), null);
  });
}

test('s3: an existing copy wins over a new upload of the same address, and objects outside the layout are not listed', async () => {
  const prefix = `own-${randomBytes(4).toString('hex')}/`;
  const store = new S3MediaStore(s3.settings(prefix), tempDir());
  const bytes = randomBytes(1000);
  const address = await store.put(bytes);
  const temp = await store.tempPath();
  writeFileSync(temp, Buffer.from('not the same bytes'));
  await store.adopt(temp, address);
  assert.deepEqual(await store.read(address), bytes);
  // Someone else's object under the prefix is neither listed nor swept.
  const foreign = new S3MediaStore({ ...s3.settings(`${prefix}other/`) }, tempDir());
  await foreign.put(randomBytes(10));
  assert.deepEqual(await store.list(), [address]);
});

test('postgres: an existing copy wins over a new upload of the same address', async () => {
  const store = new DatabaseMediaStore(new MediaBlobsRepo(pg.database.db), tempDir());
  const bytes = randomBytes(1000);
  const address = await store.put(bytes);
  const temp = await store.tempPath();
  writeFileSync(temp, Buffer.from('not the same bytes'));
  await store.adopt(temp, address);
  assert.deepEqual(await store.read(address), bytes);
  assert.equal(existsSync(temp), false);
});
