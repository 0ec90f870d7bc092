// Target addresses: phone numbers with country code, group ids and @lid addresses, normalised
// once at the edge; anything else is refused with a message naming the field.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DomainError } from '../../src/errors.js';
import { formatTarget, parseGroupId, parsePhone, parseTarget } from '../../src/domain/phone.js';

function refusedAs(field: string) {
  return (err: unknown): boolean => {
    assert.ok(err instanceof DomainError);
    assert.equal(err.code, 'invalid_input');
    assert.match(err.detail ?? '', new RegExp(`^${field.replace(/[[\]]/g, '\\$&')}: `));
    return true;
  };
}

describe('parsePhone', () => {
  test('strips +, spaces, dashes and parentheses', () => {
    assert.equal(parsePhone('+55 (11) 99999-0000'), '5511999990000');
    assert.equal(parsePhone('  5511999990000  '), '5511999990000');
    assert.equal(parsePhone('+1-415-555-0123'), '14155550123');
    assert.equal(parsePhone('44\t20 7946 0958'), '442079460958');
  });

  test('8 to 15 digits', () => {
    assert.equal(parsePhone('12345678'), '12345678');
    assert.equal(parsePhone('123456789012345'), '123456789012345');
    assert.throws(() => parsePhone('1234567'), refusedAs('phone'));
    assert.throws(() => parsePhone('1234567890123456'), refusedAs('phone'));
  });

  test('anything but digits and the separators is refused, naming the field', () => {
    for (const bad of ['', '   ', 'abc', '5511999990000a', '55.11.99999.0000', '5511999990000@s.whatsapp.net', '+', '٥٥١١٩٩٩٩٠٠٠٠', '55 11 9999O 0000']) {
      assert.throws(() => parsePhone(bad), refusedAs('phone'), JSON.stringify(bad));
    }
    assert.throws(() => parsePhone('x', 'mentioned[2]'), refusedAs('mentioned[2]'));
  });
});

describe('parseTarget / formatTarget', () => {
  test('a phone number', () => {
    const t = parseTarget('+55 11 99999-0000');
    assert.deepEqual(t, { kind: 'phone', digits: '5511999990000' });
    assert.equal(formatTarget(t), '5511999990000');
  });

  test('a group id, in either spelling, is formatted as <digits>-group', () => {
    assert.deepEqual(parseTarget('120363012345678901-group'), { kind: 'group', groupDigits: '120363012345678901' });
    assert.equal(formatTarget(parseTarget('120363012345678901@g.us')), '120363012345678901-group');
  });

  test('a legacy group id <creator>-<timestamp>-group (Z-API spells old groups this way)', () => {
    assert.equal(formatTarget(parseTarget('5511999990000-1600000000-group')), '5511999990000-1600000000-group');
  });

  test('an @lid address', () => {
    const t = parseTarget('123456789012345@lid');
    assert.deepEqual(t, { kind: 'lid', lid: '123456789012345' });
    assert.equal(formatTarget(t), '123456789012345@lid');
  });

  test('a channel address', () => {
    const t = parseTarget('120363166555745933@newsletter');
    assert.deepEqual(t, { kind: 'newsletter', id: '120363166555745933' });
    assert.equal(formatTarget(t), '120363166555745933@newsletter');
  });

  test('malformed groups, lids and channels are refused as phones', () => {
    for (const bad of ['-group', 'abc-group', '123-group', '@lid', 'x@lid', '1234@lid', '120363@g.us.evil', 'group', '@newsletter', 'abc@newsletter', '120363@newsletter.evil']) {
      assert.throws(() => parseTarget(bad), refusedAs('phone'), bad);
    }
    assert.throws(() => parseTarget('nope', 'chat'), refusedAs('chat'));
  });
});

describe('parseGroupId', () => {
  test('accepts <digits>-group and <digits>@g.us, returning the digits', () => {
    assert.equal(parseGroupId('120363012345678901-group'), '120363012345678901');
    assert.equal(parseGroupId('120363012345678901@g.us'), '120363012345678901');
  });

  test('refuses phones and junk, naming the field', () => {
    for (const bad of ['5511999990000', 'pending-1', '', 'abc-group']) {
      assert.throws(() => parseGroupId(bad, 'groupId'), refusedAs('groupId'), bad);
    }
  });
});
