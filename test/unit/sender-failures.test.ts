// The lane never jams (issue: "a failed send jams the instance for good"): every failure is
// classified, transient ones are retried under a budget that survives restarts, and the message
// behind a failed one is sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errors } from '../../src/errors.js';
import { sendFailures } from '../../src/domain/send-failure.js';
import { classifyFailure, retryDelayMs } from '../../src/sender/failures.js';
import { ScriptedTransport, senderFixture } from '../helpers/sender-fixture.js';

test('classification: permanent, transient, disconnected and restricted failures', () => {
  const up = { connected: true, restricted: false };
  assert.deepEqual(classifyFailure(sendFailures.invalidMedia('not an image'), up), { kind: 'permanent', reason: 'not an image', code: 'MEDIA_INVALID' });
  assert.equal(classifyFailure(sendFailures.uploadFailed('media host refused'), up).kind, 'transient');
  assert.equal(classifyFailure(errors.commandTimeout(), up).kind, 'transient');
  // Baileys reports a failed media upload as a link-like 500: while the session is up it counts.
  assert.equal(classifyFailure(errors.notConnected(), up).kind, 'transient');
  assert.equal(classifyFailure(errors.notConnected(), { connected: false, restricted: false }).kind, 'disconnected');
  assert.equal(classifyFailure(errors.networkRefused('rate-overlimit'), { connected: true, restricted: true }).kind, 'restricted');
  assert.deepEqual(classifyFailure(errors.networkRefused('recipient not on WhatsApp'), up), {
    kind: 'permanent',
    reason: 'recipient not on WhatsApp',
    code: 'NOT_ON_WHATSAPP',
  });
  assert.equal(classifyFailure(new Error('boom'), up).kind, 'transient');
  const d = retryDelayMs(3, 1000, () => 0.5);
  assert.equal(d, 4000);
});

test('a send that keeps failing while the link is up (the upload-500 jam) fails after the cap; the text behind it goes', async () => {
  const f = await senderFixture({ timeScale: 0.001 });
  try {
    await f.sender.start();
    const inst = await f.createInstance();
    f.transport.script = (m) => (m.message.content.type === 'text' && m.message.content.message === 'jam' ? { error: errors.notConnected() } : undefined);
    const jam = await f.sendText(inst, '5511987650000', 'jam');
    const next = await f.sendText(inst, '5511987650000', 'next');
    await f.transport.until(() => f.transport.sent.length === 1, 10_000, 'the message behind');
    await f.sender.idle();
    const row = await f.store.messages.findByZaapId(inst.id, jam.zaapId);
    assert.equal(row?.state, 'failed');
    assert.equal(row?.attempts, 5, 'attempts never pass the cap');
    assert.equal(row?.error_code, 'TIMEOUT');
    assert.equal(f.transport.calls.filter((c) => c.zaapId === jam.zaapId).length, 5);
    assert.equal((await f.store.messages.findByZaapId(inst.id, next.zaapId))?.state, 'sent');
    const events = (await f.store.events.listForInstance(inst.id)).map((e) => JSON.parse(e.payload));
    const failed = events.find((e) => e.zaapId === jam.zaapId);
    assert.match(String(failed?.error), /gave up after 5 attempts/);
    assert.equal(failed?.errorCode, 'TIMEOUT');
  } finally {
    await f.close();
  }
});

test('a permanent failure fails at once with its code; a disconnection does not spend the budget', async () => {
  const f = await senderFixture({ timeScale: 0.001 });
  try {
    await f.sender.start();
    const inst = await f.createInstance();
    let drops = 3;
    f.transport.script = (m) => {
      if (m.message.content.type !== 'text') return undefined;
      if (m.message.content.message === 'bad') return { error: sendFailures.invalidMedia('image: the payload is a PDF, not an image') };
      if (m.message.content.message === 'flaky' && drops > 0) {
        drops--;
        // The link drops for real during the send, then comes back: well after the lane has looked
        // at it (on a loaded machine a 20 ms return beat the lane's look, and the drop counted).
        f.transport.setConnected(inst.id, false);
        setTimeout(() => f.transport.setConnected(inst.id, true), 300);
        return { error: errors.notConnected() };
      }
      return undefined;
    };
    const bad = await f.sendText(inst, '5511987650000', 'bad');
    const flaky = await f.sendText(inst, '5511987650000', 'flaky');
    await f.transport.until(() => f.transport.sent.length === 1, 10_000, 'the flaky message');
    await f.sender.idle();
    const badRow = await f.store.messages.findByZaapId(inst.id, bad.zaapId);
    assert.equal(badRow?.state, 'failed');
    assert.equal(badRow?.attempts, 1);
    assert.equal(badRow?.error_code, 'MEDIA_INVALID');
    const flakyRow = await f.store.messages.findByZaapId(inst.id, flaky.zaapId);
    assert.equal(flakyRow?.state, 'sent');
    assert.equal(flakyRow?.attempts, 1, 'three disconnections refunded their attempts');
  } finally {
    await f.close();
  }
});

test('the retry budget survives a restart: attempts and the next attempt time are on disk', async () => {
  const f = await senderFixture({ timeScale: 0.001 });
  try {
    await f.sender.start();
    const inst = await f.createInstance();
    f.transport.script = () => ({ error: sendFailures.uploadFailed('media upload failed') });
    const m = await f.sendText(inst, '5511987650000', 'retry me');
    await f.transport.until(() => f.transport.calls.length === 2, 5_000, 'two attempts');
    await f.sender.stop();
    // A new process over the same database: the budget continues where it was.
    const after = new ScriptedTransport(f.clock);
    after.setConnected(inst.id, true);
    after.script = () => ({ error: sendFailures.uploadFailed('media upload failed') });
    const restarted = f.restart(after);
    await restarted.start();
    // Five attempts in all, then the budget is spent: the lane gives up and goes idle.
    await after.until(() => f.transport.calls.length + after.calls.length >= 5, 5_000, 'the resumed attempts');
    await restarted.idle();
    await f.store.messages.drain();
    const row = await f.store.messages.findByZaapId(inst.id, m.zaapId);
    assert.equal(row?.state, 'failed');
    assert.equal(row?.attempts, 5);
    assert.equal(f.transport.calls.length + after.calls.length, 5, `attempts in total: ${f.transport.calls.length} + ${after.calls.length}`);
    assert.equal(row?.error_code, 'MEDIA_UPLOAD_FAILED');
  } finally {
    await f.close();
  }
});

test('a message whose sending kills the process every time stops after its budget (attempts counted at each claim)', async () => {
  const f = await senderFixture({ timeScale: 0.001 });
  try {
    const inst = await f.createInstance();
    const m = await f.sendText(inst, '5511987650000', 'crashes the process');
    // As after five crashes mid-send: the row was claimed five times and is still in flight.
    await f.database.db.updateTable('messages').set({ state: 'in_flight', attempts: 5, error: 'image: the conversion took too long', error_code: 'MEDIA_CONVERSION_FAILED' }).where('zaap_id', '=', m.zaapId).execute();
    const next = await f.sendText(inst, '5511987650000', 'next');
    await f.sender.start();
    await f.transport.until(() => f.transport.sent.length === 1, 5_000, 'the next message');
    await f.sender.idle();
    assert.equal(f.transport.calls.filter((c) => c.zaapId === m.zaapId).length, 0, 'not handed to the engine again');
    const row = await f.store.messages.findByZaapId(inst.id, m.zaapId);
    assert.equal(row?.state, 'failed');
    assert.match(row?.error ?? '', /conversion took too long \(gave up after 5 attempts\)/);
    assert.equal(row?.error_code, 'MEDIA_CONVERSION_FAILED');
    assert.equal((await f.store.messages.findByZaapId(inst.id, next.zaapId))?.state, 'sent');
  } finally {
    await f.close();
  }
});

test('a voice note with delayTyping shows "recording audio…", not "typing…"', async () => {
  const f = await senderFixture({ timeScale: 0.001 });
  try {
    await f.sender.start();
    const inst = await f.createInstance();
    await f.messages.send(inst, { phone: '5511987650000', delayTyping: 2 }, { type: 'audio', audio: 'https://media.example.com/a.mp3' });
    await f.sendText(inst, '5511987650000', 'typed', { delayTyping: 1 });
    await f.transport.until(() => f.transport.calls.length === 2, 5_000, 'both sends');
    assert.deepEqual(f.transport.presences.map((p) => p.state), ['recording', 'composing']);
  } finally {
    await f.close();
  }
});

test('large payloads (data URIs) are read only when sent, at most 4 at once across every lane', async () => {
  const f = await senderFixture({ timeScale: 0.001, pacing: false });
  try {
    await f.sender.start();
    const instances = await Promise.all(Array.from({ length: 12 }, () => f.createInstance()));
    let inFlight = 0;
    let peak = 0;
    f.transport.script = (m) => {
      if (m.message.content.type !== 'document') return undefined;
      inFlight++;
      peak = Math.max(peak, inFlight);
      // The scenario: each large send takes a while (40 ms), so sends of several lanes overlap.
      return { hang: new Promise<void>((r) => setTimeout(() => (inFlight--, r()), 40)) };
    };
    const big = `data:application/pdf;base64,${Buffer.alloc(300 * 1024, 7).toString('base64')}`;
    for (const inst of instances) {
      await f.messages.send(inst, { phone: '5511987650000' }, { type: 'document', document: big, extension: 'pdf' });
    }
    const text = await f.createInstance();
    await f.sendText(text, '5511987650000', 'small and quick');
    await f.transport.until(() => f.transport.sent.length === 13, 10_000, 'every message');
    assert.ok(peak <= 4, `${peak} large payloads in flight at once`);
    assert.ok(peak >= 2, 'lanes still send large payloads in parallel');
    const sent = f.transport.calls.filter((c) => c.message.content.type === 'document');
    assert.ok(sent.every((c) => c.message.content.type === 'document' && c.message.content.document === big), 'the payload read at send time is the queued one');
  } finally {
    await f.close();
  }
});
