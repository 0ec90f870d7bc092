// Polls: a poll creation with its secret. Also what lists, buttons and interactive messages become
// in the `poll` list mode (list-parts.ts, interactive.ts).
import { randomBytes } from 'node:crypto';
import type { proto } from 'baileys';
import type { OutgoingContent } from '../../../domain/outgoing.js';
import { mentionContext, type ContentInput, type SendPart } from './parts.js';

/** A poll creation with a fresh secret (votes are encrypted with it); single-choice polls use V3 as WhatsApp does. */
export function pollMessage(name: string, values: readonly string[], selectableCount: number, context?: proto.IContextInfo): proto.IMessage {
  const creation: proto.Message.IPollCreationMessage = {
    name,
    options: values.map((optionName) => ({ optionName })),
    selectableOptionsCount: selectableCount,
    ...(context ? { contextInfo: context } : {}),
  };
  // The content key must come first: Baileys reads the first key as the message type.
  return {
    ...(selectableCount === 1 ? { pollCreationMessageV3: creation } : { pollCreationMessage: creation }),
    messageContextInfo: { messageSecret: randomBytes(32) },
  };
}

export function pollParts(c: Extract<OutgoingContent, { type: 'poll' }>, { messageId, mention }: ContentInput): SendPart[] {
  // No list metadata: votes on it are reported as Z-API's pollVote (incoming.ts decrypts them
  // with the remembered poll), not as list answers, and numbered replies keep their list.
  return [{ messageId, raw: pollMessage(c.message, c.options, c.maxOptions, mentionContext(mention)), poll: true }];
}
