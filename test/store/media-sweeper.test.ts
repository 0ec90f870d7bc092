// The received-media sweep (media/sweeper.ts) against a real store: files whose retention ended go
// with their rows; a file no row names is removed only when the previous sweep saw it unnamed too
// (with a shared store, another node may have just stored it, its row about to follow).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MediaSweeper } from '../../src/media/sweeper.js';
import { DirectoryMediaStore } from '../../src/media/store.js';
import { createLogger } from '../../src/logger.js';
import { createMetrics } from '../../src/metrics.js';
import { VirtualClock } from '../helpers/virtual-clock.js';

test('a file no row names survives one sweep and is removed by the next; a named one stays', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'zapgate-sweep-'));
  try {
    const files = new DirectoryMediaStore(join(dir, 'media'));
    const named = await files.put(randomBytes(100));
    const unnamed = await files.put(randomBytes(100));
    const store = {
      media: { expired: async () => [], remove: async () => undefined, referenced: async () => true, addresses: async () => new Set([named]) },
      deliveries: { pruneOnceKeys: async () => 0 },
      messages: { pruneIdempotencyKeys: async () => 0 },
    };
    const sweeper = new MediaSweeper(store, files, new VirtualClock(), createLogger('silent'), createMetrics(false));
    assert.equal((await sweeper.sweep()).files, 0, 'first seen unnamed: kept');
    assert.ok(await files.read(unnamed));
    // A file stored between the sweeps is new to the next one: kept again.
    const later = await files.put(randomBytes(100));
    assert.equal((await sweeper.sweep()).files, 1);
    assert.equal(await files.read(unnamed), null, 'unnamed at two sweeps: removed');
    assert.ok(await files.read(later));
    assert.ok(await files.read(named));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('stop() resolves only once the sweep under way has ended, and no other starts', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'zapgate-sweep-'));
  try {
    const files = new DirectoryMediaStore(join(dir, 'media'));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let sweeps = 0;
    let finished = 0;
    const store = {
      media: {
        expired: async () => {
          sweeps++;
          await held; // a slow read, under way when the gateway closes
          return [];
        },
        remove: async () => undefined,
        referenced: async () => true,
        addresses: async () => new Set<string>(),
      },
      deliveries: { pruneOnceKeys: async () => 0 },
      messages: {
        pruneIdempotencyKeys: async () => {
          finished++;
          return 0;
        },
      },
    };
    const clock = new VirtualClock();
    const sweeper = new MediaSweeper(store, files, clock, createLogger('silent'), createMetrics(false));
    sweeper.start();
    while (sweeps === 0) await new Promise((r) => setImmediate(r));
    let stopped = false;
    const stopping = sweeper.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(stopped, false, 'stop waits for the sweep under way');
    release();
    await stopping;
    assert.equal(finished, 1, 'the sweep ran to its end before stop resolved');
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(sweeps, 1, 'no sweep started after stop');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
