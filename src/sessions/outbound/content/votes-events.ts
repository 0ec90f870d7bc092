// Votes and events: a vote on a poll, a group event, its edit and an answer to one. The event goes
// through Baileys' own event path (it fixes the secret, asks the network for a call link and adds
// the creation node); votes, answers and edits are encrypted here with the original's secret.
import { createHash } from 'node:crypto';
import { proto, type AnyMessageContent } from 'baileys';
import type { EventDetails } from '../../../domain/events-orders.js';
import type { OutgoingContent } from '../../../domain/outgoing.js';
import { errors } from '../../../errors.js';
import { encryptWithSecret, secretTarget } from './msg-secret.js';
import type { ContentInput, SendPart } from './parts.js';

type VoteEventContent = Extract<OutgoingContent, { type: 'poll-vote' | 'event' | 'event-edit' | 'event-response' }>;

export async function voteEventParts(c: VoteEventContent, { messageId, tools, ctx }: ContentInput): Promise<SendPart[]> {
  switch (c.type) {
    case 'poll-vote': {
      const t = await secretTarget(c.pollMessageId, 'pollMessageId', tools);
      const poll = t.message.pollCreationMessage ?? t.message.pollCreationMessageV2 ?? t.message.pollCreationMessageV3;
      if (!poll) throw errors.networkRefused(`pollMessageId: message ${c.pollMessageId} is not a poll`);
      const names = (poll.options ?? []).map((o) => o.optionName ?? '');
      const unknown = c.options.filter((o) => !names.includes(o));
      if (unknown.length > 0) throw errors.networkRefused(`pollVote: not options of the poll: ${unknown.join(', ')}`);
      const max = poll.selectableOptionsCount ?? 0;
      if (max > 0 && c.options.length > max) throw errors.networkRefused(`pollVote: the poll allows ${max} option(s)`);
      // WhatsApp votes name each option by the SHA-256 of its text.
      const vote = proto.Message.PollVoteMessage.encode({ selectedOptions: c.options.map((o) => createHash('sha256').update(o).digest()) }).finish();
      const raw: proto.IMessage = { pollUpdateMessage: { pollCreationMessageKey: t.key, vote: encryptWithSecret('Poll Vote', t, vote), senderTimestampMs: ctx.now() } };
      return [{ messageId, raw }];
    }
    case 'event':
      return [{ messageId, content: eventContent(c.event) }];
    case 'event-edit': {
      const t = await secretTarget(c.eventMessageId, 'eventMessageId', tools);
      const original = t.message.eventMessage;
      if (!original) throw errors.networkRefused(`eventMessageId: message ${c.eventMessageId} is not an event`);
      if (!t.key.fromMe) throw errors.networkRefused('eventMessageId: only the event\'s creator can edit it');
      const edited = proto.Message.encode({ eventMessage: editedEvent(c.event, original) }).finish();
      const raw: proto.IMessage = {
        secretEncryptedMessage: { targetMessageKey: t.key, ...encryptWithSecret('Event Edit', t, edited), secretEncType: proto.Message.SecretEncryptedMessage.SecretEncType.EVENT_EDIT },
      };
      return [{ messageId, raw }];
    }
    case 'event-response': {
      const t = await secretTarget(c.eventMessageId, 'eventMessageId', tools);
      if (!t.message.eventMessage) throw errors.networkRefused(`eventMessageId: message ${c.eventMessageId} is not an event`);
      if (t.key.fromMe) throw errors.networkRefused('eventMessageId: you cannot respond to an event you created');
      const Type = proto.Message.EventResponseMessage.EventResponseType;
      const answer = proto.Message.EventResponseMessage.encode({ response: c.response === 'GOING' ? Type.GOING : Type.NOT_GOING, timestampMs: ctx.now() }).finish();
      const raw: proto.IMessage = { encEventResponseMessage: { eventCreationMessageKey: t.key, ...encryptWithSecret('Event Response', t, answer) } };
      return [{ messageId, raw }];
    }
  }
}

function eventContent(e: EventDetails): AnyMessageContent {
  return {
    event: {
      name: e.name,
      ...(e.description ? { description: e.description } : {}),
      startDate: new Date(e.startTime * 1000),
      ...(e.location ? { location: { name: e.location } } : {}),
      // Baileys asks the network for the call link and puts it in the event.
      ...(e.call ? { call: e.call === 'voice' ? 'audio' : 'video' } : {}),
      isCancelled: e.canceled,
    },
  };
}

/** The whole event again; the call link made for the original is kept while the edit still wants a call. */
function editedEvent(e: EventDetails, original: proto.Message.IEventMessage): proto.Message.IEventMessage {
  return {
    name: e.name,
    ...(e.description ? { description: e.description } : {}),
    startTime: e.startTime,
    ...(e.location ? { location: { name: e.location } } : {}),
    ...(e.call && original.joinLink ? { joinLink: original.joinLink } : {}),
    isCanceled: e.canceled,
    isScheduleCall: original.isScheduleCall ?? false,
    extraGuestsAllowed: original.extraGuestsAllowed ?? false,
  };
}
