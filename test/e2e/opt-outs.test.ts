// Opt-outs end to end (gateway + Baileys + simnet): a contact who replies a keyword ("Parar!",
// accents and case aside) is put on the account's list and gets the confirmation once; a scheduled
// send to them is then skipped (DeliveryCallback errorCode OPTED_OUT, nothing reaches them); a
// direct send still goes unless the account is strict (403); the list exports as CSV; a
// contact taken off the list is messaged again.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, until, type Harness, type Instance } from '../helpers/engine-harness.js';
import { skipWaits } from '../helpers/protocol-time.js';

const OWNER = '5511999996101';
const QUITTER = '5511988886101';
const STAYER = '5511988886102';

describe('opt-outs (gateway + Baileys + simnet)', () => {
  let h: Harness;
  let inst: Instance;

  before(async () => {
    h = await startHarness();
    await h.admin.createUser({ phone: QUITTER, pushName: 'Quitter' });
    await h.admin.createUser({ phone: STAYER, pushName: 'Stayer' });
    inst = await h.pairNew(OWNER, 'optouts');
    const set = await h.call('PUT', '/opt-out-settings', { confirmation: 'Ok, no more messages from us.' });
    assert.equal(set.status, 200, JSON.stringify(set.json));
  });
  after(() => h.close());

  const texts = async (phone: string): Promise<string[]> => (await h.admin.received(phone)).map((m) => m.text ?? '');
  /** Waits until `phone` has received `text`; the sender's pacing gaps on the way are jumped. */
  const gets = (what: string, phone: string, text: string) => skipWaits(h.clock, until(what, () => texts(phone), (t) => t.includes(text)));

  test('a keyword reply opts the sender out, confirmed once; an ordinary message does not', async () => {
    await h.admin.sendAsContact({ from: STAYER, to: OWNER, type: 'text', text: 'parar de fumar é difícil' });
    await h.admin.sendAsContact({ from: QUITTER, to: OWNER, type: 'text', text: '  PARAR! ' });
    await gets('the confirmation', QUITTER, 'Ok, no more messages from us.');
    await h.admin.sendAsContact({ from: QUITTER, to: OWNER, type: 'text', text: 'Parar' });
    await until('the second keyword is received', async () => h.webhooks.hits.filter((x) => x.body.type === 'ReceivedCallback' && x.body.phone === QUITTER).length, (n) => n >= 2);
    // A second confirmation would have been queued when the keyword was recorded, which happens on
    // its commit, before its webhook: a message sent now queues behind it, and the queue is FIFO.
    const marker = await h.call('POST', `${inst.prefix}/send-text`, { phone: QUITTER, message: 'marker after the second keyword' });
    assert.equal(marker.status, 200, 'a direct send still goes while not strict');
    await gets('the marker', QUITTER, 'marker after the second keyword');
    assert.equal((await texts(QUITTER)).filter((t) => t === 'Ok, no more messages from us.').length, 1, 'confirmed once');
    const list = await h.call('GET', '/opt-outs');
    assert.deepEqual((list.json.optOuts as { phone: string; source: string; instanceId: string }[]).map((o) => [o.phone, o.source, o.instanceId]), [[QUITTER, 'keyword', inst.instanceId]]);
    const csv = await h.call('GET', '/opt-outs/export');
    assert.match(String(csv.headers['content-type']), /^text\/csv/);
    const lines = csv.body.toString('utf8').trim().split('\n');
    assert.equal(lines[0], 'phone,source,instanceId,keyword,created');
    assert.match(lines[1] ?? '', new RegExp(`^${QUITTER},keyword,${inst.instanceId},  PARAR! ,\\d{4}-`));
  });

  test('a scheduled send to an opted-out number is skipped; a direct one goes unless strict', async () => {
    const at = h.clock.now() + 1_500;
    const skipped = await h.call('POST', `${inst.prefix}/send-text`, { phone: QUITTER, message: 'scheduled promo', scheduledAt: at });
    const kept = await h.call('POST', `${inst.prefix}/send-text`, { phone: STAYER, message: 'scheduled promo', scheduledAt: at });
    assert.equal(skipped.status, 200);
    // The scheduled time and the pacing gaps are protocol time: jumped.
    const hit = await skipWaits(h.clock, h.webhooks.waitFor((x) => x.body.type === 'DeliveryCallback' && x.body.messageId === skipped.json.messageId, 15_000, 'the skipped DeliveryCallback'));
    assert.equal(hit.body.errorCode, 'OPTED_OUT');
    await gets('the other recipient gets it', STAYER, 'scheduled promo');
    assert.ok(!(await texts(QUITTER)).includes('scheduled promo'), 'nothing reached the opted-out number');
    assert.ok(kept.status === 200);

    const direct = await h.call('POST', `${inst.prefix}/send-text`, { phone: QUITTER, message: 'your order shipped' });
    assert.equal(direct.status, 200, 'direct sends go while not strict');
    await gets('the direct message', QUITTER, 'your order shipped');
    assert.equal((await h.call('PUT', '/opt-out-settings', { strict: true })).json.strict, true);
    const refused = await h.call('POST', `${inst.prefix}/send-text`, { phone: QUITTER, message: 'refused' });
    assert.equal(refused.status, 403);
    assert.equal(refused.json.code, 'RECIPIENT_OPTED_OUT');
    assert.equal((await h.call('POST', `${inst.prefix}/send-text`, { phone: STAYER, message: 'fine' })).status, 200);

    // Taken off the list: messaged again.
    assert.equal((await h.call('DELETE', `/opt-outs/${QUITTER}`)).status, 200);
    assert.equal((await h.call('DELETE', `/opt-outs/${QUITTER}`)).status, 404);
    assert.equal((await h.call('POST', `${inst.prefix}/send-text`, { phone: QUITTER, message: 'welcome back' })).status, 200);
    await gets('the message after opting back in', QUITTER, 'welcome back');
    assert.deepEqual((await h.call('POST', '/opt-outs', { phones: [QUITTER, `+${QUITTER}`] })).json, { added: 1 });
  });
});
