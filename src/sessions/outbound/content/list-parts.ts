// Option and button lists (lists.ts renders them per the instance's list mode): a poll, WhatsApp's
// native list or buttons, or numbered text; a button list's image or video header goes first as
// its own message when the rendering cannot carry media.
import type { AnyMessageContent, proto } from 'baileys';
import type { OutgoingContent } from '../../../domain/outgoing.js';
import { buttonListMeta, numberedText, optionListMeta, pollName } from '../lists.js';
import { imageContent, videoContent } from './media-parts.js';
import { mentionContext, NO_PREVIEW, withMentions, type ContentInput, type SendPart } from './parts.js';
import { pollMessage } from './polls.js';

type ListContent = Extract<OutgoingContent, { type: 'option-list' | 'button-list' }>;

export async function listParts(c: ListContent, { messageId, derived, mention, ctx }: ContentInput): Promise<SendPart[]> {
  const noPreview = NO_PREVIEW;
  switch (c.type) {
    case 'option-list': {
      const meta = optionListMeta(c.options, ctx.listMode);
      if (meta.mode === 'poll') {
        const name = pollName(c.message, c.title, c.buttonLabel);
        const raw = pollMessage(name, meta.options.map((o) => o.value), 1, mentionContext(mention));
        return [{ messageId, raw, meta, poll: true }];
      }
      if (meta.mode === 'native') {
        const raw: proto.IMessage = {
          listMessage: {
            title: c.title,
            description: c.message,
            buttonText: c.buttonLabel,
            listType: 1,
            sections: [{ title: c.title, rows: c.options.map((o) => ({ rowId: o.id, title: o.title, description: o.description })) }],
            ...withMentions(mention),
          },
        };
        return [{ messageId, raw, meta }];
      }
      const text = numberedText(c.message, meta, {
        title: c.title,
        descriptions: c.options.map((o) => o.description),
        label: c.buttonLabel,
        hint: ctx.replyHint,
      });
      return [{ messageId, content: { text, ...noPreview, ...mention } as AnyMessageContent, meta }];
    }
    case 'button-list': {
      const meta = buttonListMeta(c.buttons, ctx.listMode);
      const parts: SendPart[] = [];
      // The header goes first as its own message: polls and numbered text cannot carry media.
      if (meta.mode !== 'native' && c.image) {
        const img = await ctx.media.image(c.image, 'buttonList.image');
        parts.push({ messageId: derived('header'), content: imageContent(img) as AnyMessageContent });
      } else if (meta.mode !== 'native' && c.video) {
        const v = await ctx.media.video(c.video, 'video');
        parts.push({ messageId: derived('header'), content: videoContent(v) as AnyMessageContent });
      }
      if (meta.mode === 'poll') {
        parts.push({ messageId, raw: pollMessage(c.message, meta.options.map((o) => o.value), 1, mentionContext(mention)), meta, poll: true });
      } else if (meta.mode === 'native') {
        const raw: proto.IMessage = {
          buttonsMessage: {
            contentText: c.message,
            headerType: 1,
            buttons: c.buttons.map((b) => ({ buttonId: b.id, buttonText: { displayText: b.label }, type: 1 })),
            ...withMentions(mention),
          },
        };
        parts.push({ messageId, raw, meta });
      } else {
        parts.push({ messageId, content: { text: numberedText(c.message, meta, { hint: ctx.replyHint }), ...noPreview, ...mention } as AnyMessageContent, meta });
      }
      return parts;
    }
  }
}
