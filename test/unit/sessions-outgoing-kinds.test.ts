// The send-kinds as Baileys parts, without a network: vCards, reaction and pin keys, polls with
// mentions, and the fallback renderings of interactive buttons (ids derived, answers mappable).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { proto } from 'baileys';
import { buildParts, derivedMessageId, type OutgoingContext } from '../../src/sessions/outbound/outgoing.js';
import { vcardOf } from '../../src/sessions/outbound/content/location-contacts.js';
import { mediaPipeline } from '../../src/sessions/outbound/media.js';
import { createAddressGuard } from '../../src/net/address-guard.js';
import type { OutgoingMessage } from '../../src/domain/outgoing.js';

const guard = createAddressGuard({ allowHosts: [], allowHttp: false, resolve: async () => [] });
const ID = '3EB0AAAAAAAAAAAAAAAAAA';
const JID = '5511988887777@s.whatsapp.net';

function ctx(listMode: OutgoingContext['listMode'] = 'poll', known: Record<string, { fromMe: boolean; participant?: string }> = {}): OutgoingContext {
  return {
    media: mediaPipeline(guard),
    listMode,
    jid: JID,
    quoted: async (id) => (known[id] ? { key: { remoteJid: JID, id, ...known[id] }, message: { conversation: 'x' } } : undefined),
    now: () => Date.now(),
  };
}

const content = (p: unknown): Record<string, unknown> => (p && typeof p === 'object' && 'content' in p ? (p.content as Record<string, unknown>) : {});
const raw = (p: unknown): proto.IMessage => (p && typeof p === 'object' && 'raw' in p ? (p.raw as proto.IMessage) : {});

test('a vCard escapes its text and marks every number with waid=', () => {
  assert.equal(
    vcardOf({ name: 'Ana, Souza; Ltda', phones: ['5544999999999', '5544888888888'], businessDescription: 'line 1\nline 2' }),
    [
      'BEGIN:VCARD',
      'VERSION:3.0',
      'N:;Ana\\, Souza\\; Ltda;;;',
      'FN:Ana\\, Souza\\; Ltda',
      'TEL;type=CELL;type=VOICE;waid=5544999999999:+5544999999999',
      'TEL;type=CELL;type=VOICE;waid=5544888888888:+5544888888888',
      'X-WA-BIZ-DESCRIPTION:line 1\\nline 2',
      'END:VCARD',
    ].join('\n'),
  );
});

test('reactions and pins name the exact remembered message, or a received one in the chat', async () => {
  const [known] = await buildParts({ content: { type: 'reaction', targetId: 'MINE', reaction: '👍' } }, ID, ctx('poll', { MINE: { fromMe: true } }));
  assert.deepEqual((content(known).react as { key: unknown }).key, { remoteJid: JID, id: 'MINE', fromMe: true });
  const [unknown] = await buildParts({ content: { type: 'reaction', targetId: 'THEIRS', reaction: '' } }, ID, ctx());
  assert.deepEqual(content(unknown).react, { text: '', key: { remoteJid: JID, fromMe: false, id: 'THEIRS' } });
  const [pin] = await buildParts({ content: { type: 'pin', targetId: 'MINE', action: 'pin', durationSeconds: 604_800 } }, ID, ctx('poll', { MINE: { fromMe: true } }));
  assert.deepEqual([content(pin).type, content(pin).time], [1, 604_800]);
  const [unpin] = await buildParts({ content: { type: 'pin', targetId: 'MINE', action: 'unpin', durationSeconds: 0 } }, ID, ctx());
  assert.equal(content(unpin).type, 2);
});

test('forwarding a message the instance does not know fails the message with the reason', async () => {
  await assert.rejects(buildParts({ content: { type: 'forward', sourceId: 'GONE', sourcePhone: '5511988887777' } }, ID, ctx()), (e: Error & { detail?: string }) => {
    assert.match(e.detail ?? '', /^messageId: message GONE is not known/);
    return true;
  });
});

test('polls carry mentions in their own contextInfo; multiple choice unless pollMaxOptions is 1', async () => {
  const m: OutgoingMessage = { content: { type: 'poll', message: 'Q', options: ['a', 'b'], maxOptions: 0 }, mentioned: ['5511977776666'] };
  const [multi] = await buildParts(m, ID, ctx());
  assert.deepEqual(raw(multi).pollCreationMessage?.contextInfo?.mentionedJid, ['5511977776666@s.whatsapp.net']);
  assert.equal(raw(multi).pollCreationMessage?.selectableOptionsCount, 0);
  assert.equal(multi && 'meta' in multi ? multi.meta : undefined, undefined, 'send-poll keeps no list metadata: votes are pollVote');
  const [single] = await buildParts({ content: { type: 'poll', message: 'Q', options: ['a', 'b'], maxOptions: 1 } }, ID, ctx());
  assert.equal(raw(single).pollCreationMessageV3?.selectableOptionsCount, 1);
  const list: OutgoingMessage = {
    content: { type: 'button-list', message: 'Go?', buttons: [{ id: 'y', label: 'Yes' }, { id: 'n', label: 'No' }] },
    mentioned: ['5511977776666'],
    mentionAll: true,
  };
  const [poll] = await buildParts(list, ID, ctx());
  assert.deepEqual(raw(poll).pollCreationMessageV3?.contextInfo, { mentionedJid: ['5511977776666@s.whatsapp.net'], nonJidMentions: 1 });
});

test('button actions in poll mode: what a poll cannot hold goes first under a derived id, REPLY buttons are the poll', async () => {
  const parts = await buildParts(
    {
      content: {
        type: 'button-actions',
        message: 'Help?',
        title: 'Acme',
        buttons: [
          { id: 'c', type: 'CALL', label: 'Call', phone: '5511900000000' },
          { id: 'a', type: 'REPLY', label: 'Agent' },
          { id: 'b', type: 'REPLY', label: 'Bot' },
        ],
      },
    },
    ID,
    ctx(),
  );
  assert.deepEqual(parts.map((p) => p.messageId), [derivedMessageId(ID, 'intro'), ID]);
  assert.equal(content(parts[0]).text, '*Acme*\n\nCall: +5511900000000');
  assert.deepEqual(raw(parts[1]).pollCreationMessageV3?.options?.map((o) => o.optionName), ['Agent', 'Bot']);
  assert.deepEqual(parts[1]?.meta, { kind: 'button-list', mode: 'poll', options: [{ id: 'a', title: 'Agent', value: 'Agent' }, { id: 'b', title: 'Bot', value: 'Bot' }] });
});

test('native mode: interactive messages with native flow buttons (copy links become copy buttons)', async () => {
  const [part] = await buildParts(
    {
      content: {
        type: 'button-actions',
        message: 'Code',
        buttons: [{ id: '1', type: 'URL', label: 'Copy', url: 'https://www.whatsapp.com/otp/code/?otp_type=COPY_CODE&code=otp123' }],
      },
    },
    ID,
    ctx('native'),
  );
  const button = raw(part).interactiveMessage?.nativeFlowMessage?.buttons?.[0];
  assert.equal(button?.name, 'cta_copy');
  assert.equal(JSON.parse(button?.buttonParamsJson ?? '{}').copy_code, 'otp123');
});
