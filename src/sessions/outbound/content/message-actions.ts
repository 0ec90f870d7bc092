// Acting on an earlier message: a reaction, a pin, a forward. Each names its target by the exact
// key the instance remembers, else as a received message in this chat.
import type { AnyMessageContent, WAMessageKey } from 'baileys';
import type { OutgoingContent } from '../../../domain/outgoing.js';
import { errors } from '../../../errors.js';
import type { ContentInput, ContentTools, SendPart } from './parts.js';

type ActionContent = Extract<OutgoingContent, { type: 'reaction' | 'pin' | 'forward' }>;

export async function actionParts(c: ActionContent, { messageId, tools }: ContentInput): Promise<SendPart[]> {
  switch (c.type) {
    case 'reaction':
      return [{ messageId, content: { react: { text: c.reaction, key: await targetKey(c.targetId, tools) } } }];
    case 'pin': {
      const key = await targetKey(c.targetId, tools);
      const pin = c.action === 'pin' ? { pin: key, type: 1, time: c.durationSeconds } : { pin: key, type: 2 };
      return [{ messageId, content: pin as AnyMessageContent }];
    }
    case 'forward': {
      const source = await tools.known(c.sourceId);
      if (!source?.message) throw errors.networkRefused(`messageId: message ${c.sourceId} is not known to this instance (messages are kept 14 days)`);
      return [{ messageId, content: { forward: { key: source.key, message: source.message } } }];
    }
  }
}

/** The exact key of a remembered message; otherwise a received message in this chat (the usual target). */
async function targetKey(id: string, tools: ContentTools): Promise<WAMessageKey> {
  const known = await tools.known(id);
  if (known) return known.key;
  return { remoteJid: tools.jid, fromMe: false, id };
}
