// Issue "Messages at line rate": a burst of 2,000 incoming messages to one instance arrives
// complete and in per-chat order. The real gateway process (real Baileys) is paired to a simnet
// phone; 20 simnet contacts each write 100 numbered texts as fast as simnet takes them (the contacts
// in parallel, each one's texts one after another). Every message must reach the webhook as a
// ReceivedCallback exactly once (one POST per messageId: no loss, no duplicate), and each contact's
// texts must arrive in the order that contact sent them.
//
// Found when it was written: the first texts of a contact the instance had never heard from could
// be reported out of order (4-5 of the 20 contacts in every run). Baileys' handleMessage awaits the
// LID mapping before it queues its decryption, so a new contact's second stanza could overtake the
// first; src/sessions/link/arrival-order.ts now keeps each chat's stanzas in arrival order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '../helpers/engine-harness.js';
import { startProcessHarness } from '../helpers/process-harness.js';

const OWNER = '5511999997401';
const CONTACTS = Array.from({ length: 20 }, (_, i) => `55119888874${String(i).padStart(2, '0')}`);
const PER_CONTACT = 100;
const TOTAL = CONTACTS.length * PER_CONTACT;
/** How long the test waits before it reports what is missing: a guard against a hang, not a speed to meet (the time taken is printed). */
const ARRIVAL_GUARD_MS = 180_000;

test(`a burst of ${TOTAL} incoming messages arrives complete and in per-chat order`, async (t) => {
  const h = await startProcessHarness({ owner: OWNER, contacts: CONTACTS });
  try {
    // What each contact sent, in its order: messageId → [contact, number].
    const sent = new Map<string, { contact: string; n: number }>();
    const started = Date.now();
    await Promise.all(
      CONTACTS.map(async (contact) => {
        for (let n = 0; n < PER_CONTACT; n++) {
          const { messageId } = await h.admin.sendAsContact({ from: contact, to: OWNER, type: 'text', text: `${contact} #${n}` });
          sent.set(messageId, { contact, n });
        }
      }),
    );
    const allSent = Date.now();
    assert.equal(sent.size, TOTAL, 'simnet gave every message its own id');

    // The webhook's ReceivedCallbacks of the burst, read as they come (posts only grow).
    const posts = new Map<string, number>();
    const order = new Map<string, number[]>(CONTACTS.map((c) => [c, []]));
    let read = 0;
    const take = (): void => {
      for (; read < h.posts.length; read++) {
        const body = h.posts[read]!.body;
        if (body.type !== 'ReceivedCallback' || body.fromMe === true) continue;
        const id = String(body.messageId);
        const mine = sent.get(id);
        if (!mine) continue;
        posts.set(id, (posts.get(id) ?? 0) + 1);
        assert.equal(body.phone, mine.contact, `${id} is reported from its sender`);
        assert.equal((body.text as { message?: unknown } | undefined)?.message, `${mine.contact} #${mine.n}`, `${id} carries its text`);
        order.get(mine.contact)!.push(mine.n);
      }
    };
    await until(
      'every message at the webhook',
      async () => {
        take();
        return posts.size;
      },
      (n) => n >= TOTAL,
      Math.max(0, started + ARRIVAL_GUARD_MS - Date.now()),
    ).catch(() => undefined); // what is missing is reported below
    take();
    const arrived = Date.now();
    const line = `${posts.size} of ${TOTAL} arrived ${((arrived - started) / 1000).toFixed(1)} s after the first send (simnet took the ${TOTAL} sends in ${((allSent - started) / 1000).toFixed(1)} s)`;
    console.log(`# receive burst: ${line}`);
    t.diagnostic(line);
    // Late duplicates: each contact writes once more, and the gateway reports a chat's messages
    // in order on the one webhook URL, so anything reported again of the burst comes before these.
    const ends = await Promise.all(CONTACTS.map(async (contact) => (await h.admin.sendAsContact({ from: contact, to: OWNER, type: 'text', text: `${contact} end` })).messageId));
    await until('each contact\'s last message', async () => new Set(h.posts.map((p) => String(p.body.messageId))), (ids) => ends.every((id) => ids.has(id)), 60_000);
    take();

    const missing = [...sent.keys()].filter((id) => !posts.has(id));
    assert.deepEqual(missing.slice(0, 10), [], `${missing.length} of ${TOTAL} messages never reached the webhook within ${ARRIVAL_GUARD_MS / 1000} s`);
    const twice = [...posts].filter(([, k]) => k > 1);
    assert.deepEqual(twice, [], 'a message was POSTed more than once');
    const expected = Array.from({ length: PER_CONTACT }, (_, n) => n);
    const outOfOrder = CONTACTS.filter((c) => order.get(c)!.some((n, i) => n !== i)).map((c) => {
      const got = order.get(c)!;
      const first = got.findIndex((n, i) => n !== i);
      return `${c}: from position ${first}: ${got.slice(first, first + 6).join(',')}`;
    });
    if (outOfOrder.length > 0) t.diagnostic(`out of order: ${outOfOrder.join('; ')}`);
    for (const contact of CONTACTS) assert.deepEqual(order.get(contact), expected, `${contact}'s texts arrive in the order sent`);
  } finally {
    await h.close();
  }
});
