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
import { IDEMPOTENCY_KEY_MS } from '../../src/store/messages-enqueue.js';
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
    const clock = new VirtualClock({ mode: 'frozen' });
    const sweeper = new MediaSweeper(store, files, clock, createLogger('silent'), createMetrics(false));
    sweeper.start();
    await clock.advance(0); // the start-up sweep is due at once
    while (sweeps === 0) await new Promise((r) => setImmediate(r));
    let stopped = false;
    const stopping = sweeper.stop().then(() => (stopped = true));
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    assert.equal(stopped, false, 'stop waits for the sweep under way');
    release();
    await stopping;
    assert.equal(finished, 1, 'the sweep ran to its end before stop resolved');
    assert.equal(clock.pending, 0, 'nothing scheduled after stop');
    await clock.advance(3 * 60 * 60_000); // three sweep periods
    assert.equal(sweeps, 1, 'no sweep started after stop');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a sweep at start, then one an hour on the clock; reported ids and Idempotency-Keys go by their age on it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'zapgate-sweep-'));
  try {
    const files = new DirectoryMediaStore(join(dir, 'media'));
    const onceKeysBefore: number[] = [];
    const idempotencyBefore: number[] = [];
    const store = {
      media: { expired: async () => [], remove: async () => undefined, referenced: async () => true, addresses: async () => new Set<string>() },
      deliveries: {
        pruneOnceKeys: async (before: number) => {
          onceKeysBefore.push(before);
          return 0;
        },
      },
      messages: {
        pruneIdempotencyKeys: async (before: number) => {
          idempotencyBefore.push(before);
          return 0;
        },
      },
    };
    const start = Date.UTC(2030, 0, 1);
    const clock = new VirtualClock({ mode: 'frozen', start });
    const sweeper = new MediaSweeper(store, files, clock, createLogger('silent'), createMetrics(false));
    const swept = async (n: number): Promise<void> => {
      while (idempotencyBefore.length < n) await new Promise((r) => setImmediate(r));
    };
    sweeper.start();
    await clock.advance(0);
    await swept(1);
    assert.deepEqual(onceKeysBefore, [start - 45 * 24 * 60 * 60_000], 'message ids older than 45 days');
    assert.deepEqual(idempotencyBefore, [start - IDEMPOTENCY_KEY_MS], 'keys older than their 24 hours');
    await clock.advance(60 * 60_000 - 1);
    assert.equal(idempotencyBefore.length, 1, 'not before the hour');
    await clock.advance(1);
    await swept(2);
    assert.equal(idempotencyBefore[1], start + 60 * 60_000 - IDEMPOTENCY_KEY_MS, 'the next sweep, an hour later on the clock');
    await sweeper.stop();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
