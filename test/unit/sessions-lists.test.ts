// Option and button lists: rendering per mode and mapping every kind of answer back to the option id.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { buttonListMeta, numberedText, optionForNumber, optionListMeta, optionsForVoteHashes, MAX_POLL_OPTIONS } from '../../src/sessions/outbound/lists.js';

const options = [
  { id: 'opt-a', title: 'Pizza', description: 'cheese' },
  { id: 'opt-b', title: 'Sushi', description: '' },
  { id: 'opt-c', title: 'Pizza', description: 'again' },
];

test('poll options stay distinct when titles repeat, and a vote maps back to the right id', () => {
  const meta = optionListMeta(options, 'poll');
  assert.equal(meta.mode, 'poll');
  const values = meta.options.map((o) => o.value);
  assert.equal(new Set(values).size, 3);
  const voteFor = (v: string) => createHash('sha256').update(v).digest();
  assert.deepEqual(optionsForVoteHashes(meta, [voteFor(values[2]!)]).map((o) => o.id), ['opt-c']);
  assert.deepEqual(optionsForVoteHashes(meta, []), []);
});

test('lists longer than a poll can hold fall back to numbered text', () => {
  const many = Array.from({ length: MAX_POLL_OPTIONS + 1 }, (_, i) => ({ id: `b${i}`, label: `Button ${i}` }));
  assert.equal(buttonListMeta(many, 'poll').mode, 'text');
});

test('a numbered reply maps to its option; anything else does not', () => {
  const meta = optionListMeta(options, 'text');
  const text = numberedText('Lunch?', meta, { title: 'Menu', descriptions: options.map((o) => o.description) });
  assert.match(text, /1\. Pizza — cheese\n2\. Sushi\n3\. Pizza — again/);
  assert.equal(optionForNumber(meta, ' 2 ')?.id, 'opt-b');
  assert.equal(optionForNumber(meta, '3.')?.id, 'opt-c');
  assert.equal(optionForNumber(meta, '4'), undefined);
  assert.equal(optionForNumber(meta, '2 please'), undefined);
});
