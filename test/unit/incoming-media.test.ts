// Which received files are fetched: encrypted ones by their media key; a channel post's file (no
// key, not encrypted) only with the sender's hash to check it by.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sourceOf } from '../../src/sessions/inbound/incoming-media.js';

const hash = Buffer.alloc(32, 7);

describe('sourceOf', () => {
  test('an encrypted file carries its media key', () => {
    const s = sourceOf({ directPath: '/v/t62/a', mediaKey: Buffer.alloc(32, 1), fileSha256: hash, fileLength: 10 }, 'image');
    assert.deepEqual(s, { mediaType: 'image', directPath: '/v/t62/a', mediaKey: Buffer.alloc(32, 1).toString('base64'), fileSha256: hash.toString('base64'), fileLength: 10 });
  });

  test('a channel file has no key and is taken with its hash', () => {
    const s = sourceOf({ directPath: '/v/t62/b', fileSha256: hash }, 'image');
    assert.deepEqual(s, { mediaType: 'image', directPath: '/v/t62/b', fileSha256: hash.toString('base64') });
  });

  test('no path, or neither key nor hash: nothing to fetch', () => {
    assert.equal(sourceOf({ mediaKey: Buffer.alloc(32, 1) }, 'image'), null);
    assert.equal(sourceOf({ directPath: '/v/t62/c' }, 'image'), null);
    assert.equal(sourceOf({ directPath: '/v/t62/c', mediaKey: new Uint8Array(0) }, 'image'), null);
  });
});
