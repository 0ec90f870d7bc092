// The write-ahead gate in isolation: frames written while a received message is unrecorded are held
// in order, Signal state is committed before they go, nothing overtakes them, and a failed commit
// drops them (the network will deliver again) instead of letting them out. The fake socket has the
// parts of Baileys' socket the gate wraps: the frame writer, the retry cache, the message mutex and
// the signal repository's decrypting calls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReceiptGate } from '../../src/sessions/link/receipt-gate.js';
import type { WASocket } from '../../src/sessions/link/socket-config.js';
import { VirtualClock } from '../helpers/virtual-clock.js';

// Time moves only when a test moves it: no hold limit runs out behind a test's back.
const clock = new VirtualClock({ mode: 'frozen' });

function fakeSocket() {
  const wire: string[] = [];
  const cached: string[] = [];
  const listeners = new Map<string, ((node: { attrs: { id?: string } }) => void)[]>();
  const sock = {
    ws: {
      socket: { send: (data: string, cb?: (err?: Error) => void) => { wire.push(data); cb?.(); } },
      on: (event: string, fn: (node: { attrs: { id?: string } }) => void) => listeners.set(event, [...(listeners.get(event) ?? []), fn]),
    },
    messageRetryManager: { addRecentMessage: (_to: string, id: string) => void cached.push(id) },
    // One task at a time, like Baileys' mutex.
    messageMutex: { tail: Promise.resolve() as Promise<unknown>, mutex(task: () => Promise<unknown>) { const run = this.tail.then(task); this.tail = run.catch(() => undefined); return run; } },
    duringDecryption: (): void => undefined,
    signalRepository: {
      decryptMessage: async () => {
        sock.duringDecryption();
        return Buffer.alloc(0);
      },
      decryptGroupMessage: async () => Buffer.alloc(0),
      processSenderKeyDistributionMessage: async () => undefined,
    },
  };
  const raw = sock.ws.socket as unknown as { send(data: string, cb?: (err?: Error) => void): void };
  return {
    sock: sock as unknown as WASocket,
    wire,
    cached,
    arrive: (id: string) => listeners.get('CB:message')?.forEach((fn) => fn({ attrs: { id } })),
    decrypted: (id: string) => sock.messageRetryManager.addRecentMessage('chat', id),
    /** What runs inside the next decryptions (where Baileys' decryption commits its key writes). */
    inDecryption: (fn: () => void) => {
      sock.duringDecryption = fn;
    },
    /** Runs `body` as Baileys' message task does, with a decryption first; resolves when the task ends. */
    task: (body: () => Promise<void>) =>
      sock.messageMutex.mutex(async () => {
        await sock.signalRepository.decryptMessage();
        await body();
      }),
    send: (data: string) => new Promise<void>((resolve) => raw.send(data, () => resolve())),
  };
}

const tick = () => new Promise((r) => setImmediate(r));

test('frames wait for the message to be recorded and for the Signal state, then go in order', async () => {
  const steps: string[] = [];
  const f = fakeSocket();
  // The flush records how many frames had gone by then: none of the held ones may precede it.
  const gate = new ReceiptGate(clock, 10_000, { flushState: async () => void steps.push(`flush after ${f.wire.length}`), failed: () => steps.push('failed'), heldTooLong: () => steps.push('late') });
  gate.install(f.sock);
  await f.send('before');
  f.arrive('M1');
  f.decrypted('M1');
  assert.equal(gate.active(), true, 'key writes wait while M1 is unrecorded');
  await f.send('receipt M1'); // Baileys is told it was written: it goes on to emit the message
  await f.send('ping');
  assert.deepEqual(f.wire, ['before']);
  gate.settle('M1');
  await tick();
  assert.equal(steps[0], 'flush after 1', 'the Signal state is committed before the held frames go');
  assert.ok(!steps.includes('failed') && !steps.includes('late'), steps.join());
  assert.deepEqual(f.wire, ['before', 'receipt M1', 'ping']);
  assert.equal(gate.active(), false);
  await f.send('after');
  assert.deepEqual(f.wire.at(-1), 'after', 'an open gate writes at once');
});

test('the device\'s own sends are not held; a second message keeps the first one\'s frames waiting', async () => {
  const f = fakeSocket();
  const gate = new ReceiptGate(clock, 10_000, { flushState: async () => {}, failed: () => {}, heldTooLong: () => {} });
  gate.install(f.sock);
  f.decrypted('OWN'); // our own send, recorded by Baileys the same way, never arrived from the network
  await f.send('own message');
  assert.deepEqual(f.wire, ['own message']);
  for (const id of ['A', 'B']) {
    f.arrive(id);
    f.decrypted(id);
  }
  await f.send('receipt A');
  await f.send('receipt B');
  gate.settle('A');
  await tick();
  assert.deepEqual(f.wire, ['own message'], 'B is still unrecorded: nothing goes');
  gate.settle('B');
  await tick();
  assert.deepEqual(f.wire, ['own message', 'receipt A', 'receipt B']);
});

test('a failed Signal-state commit drops the held frames and reports it', async () => {
  const f = fakeSocket();
  const failures: unknown[] = [];
  const gate = new ReceiptGate(clock, 10_000, {
    flushState: async () => {
      throw new Error('disk full');
    },
    failed: (err) => {
      failures.push(err);
      gate.close();
    },
    heldTooLong: () => {},
  });
  gate.install(f.sock);
  f.arrive('M');
  f.decrypted('M');
  await f.send('receipt M');
  gate.settle('M');
  await tick();
  assert.deepEqual(f.wire, [], 'the receipt never went');
  assert.equal(failures.length, 1);
});

test('a hold never outlasts its limit', async () => {
  const f = fakeSocket();
  let late = 0;
  const own = new VirtualClock({ mode: 'frozen' });
  const gate = new ReceiptGate(own, 30, { flushState: async () => {}, failed: () => {}, heldTooLong: () => late++ });
  gate.install(f.sock);
  f.arrive('SLOW');
  f.decrypted('SLOW');
  await f.send('receipt SLOW');
  await own.advance(29);
  assert.equal(late, 0);
  assert.deepEqual(f.wire, [], 'held within the limit');
  await own.advance(1);
  assert.equal(late, 1);
  assert.deepEqual(f.wire, ['receipt SLOW']);
});

test('our own sends stay in Baileys\' retry cache (a retry can come back before the store has them); received messages do not', () => {
  const f = fakeSocket();
  const gate = new ReceiptGate(clock, 10_000, { flushState: async () => undefined, failed: () => undefined, heldTooLong: () => undefined });
  gate.install(f.sock);
  f.arrive('IN1');
  f.decrypted('IN1');
  f.decrypted('OUT1'); // Baileys reports a send of ours: it never arrived from the network
  assert.deepEqual(f.cached, ['OUT1']);
  gate.settle('IN1');
});

test('a decryption\'s key writes wait for its message\'s event; its frames do not wait for the decryption', async () => {
  const f = fakeSocket();
  const flushes: number[] = [];
  const gate = new ReceiptGate(clock, 10_000, { flushState: async () => void flushes.push(f.wire.length), failed: () => {}, heldTooLong: () => {} });
  gate.install(f.sock);
  const seen: boolean[] = [];
  // Inside the decryption: key writes are deferred (the ratchet step must not reach the disk ahead
  // of the event), but a frame — a send's query the key store's lock is waiting for — still goes.
  f.inDecryption(() => {
    seen.push(gate.active());
    void f.send('query of a send');
  });
  f.arrive('M');
  await f.task(async () => {
    f.decrypted('M');
    await f.send('receipt M');
  });
  assert.deepEqual(seen, [true], 'key writes made inside the decryption are deferred');
  assert.deepEqual(f.wire, ['query of a send'], 'the decryption held no frame; the receipt waits for the event');
  assert.equal(gate.active(), true, 'after the task, M still holds: not recorded yet');
  assert.deepEqual(flushes, [], 'nothing committed before the event');
  gate.settle('M');
  await tick();
  assert.deepEqual(flushes.slice(0, 1), [1], 'keys committed before the held receipt went');
  assert.deepEqual(f.wire, ['query of a send', 'receipt M']);
});

test('a message task whose decryption gave no content flushes what it deferred when it ends', async () => {
  const f = fakeSocket();
  let flushed = 0;
  const gate = new ReceiptGate(clock, 10_000, { flushState: async () => void flushed++, failed: () => {}, heldTooLong: () => {} });
  gate.install(f.sock);
  f.arrive('EMPTY');
  await f.task(async () => {
    await f.send('retry receipt EMPTY');
  });
  await tick();
  assert.equal(flushed > 0, true, 'the deferred writes were committed at the task\'s end');
  assert.deepEqual(f.wire, ['retry receipt EMPTY'], 'nothing held');
  assert.equal(gate.active(), false);
});

test('a decryption outside a message task defers nothing (only the message tasks are Baileys\' receiving path)', async () => {
  const f = fakeSocket();
  const gate = new ReceiptGate(clock, 10_000, { flushState: async () => {}, failed: () => {}, heldTooLong: () => {} });
  gate.install(f.sock);
  let deferred: boolean | undefined;
  f.inDecryption(() => (deferred = gate.active()));
  await (f.sock as unknown as { signalRepository: { decryptMessage(): Promise<unknown> } }).signalRepository.decryptMessage();
  assert.equal(deferred, false, 'not deferred');
});
