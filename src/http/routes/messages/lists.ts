// Tag "messages": the kinds a person answers — option and button lists, polls, and the interactive
// buttons (actions, OTP, Pix, carousel), each rendered per the instance's list mode.
import type { OutgoingContent } from '../../../domain/outgoing.js';
import { errors } from '../../../errors.js';
import { instanceOf } from '../../auth.js';
import { SendButtonActions, SendButtonList, SendButtonOtp, SendButtonPix, SendCarousel, SendOptionList, SendPoll } from '../../schemas/message-lists.js';
import { sendResponses } from '../../schemas/messages.js';
import { actionButtons, assertUnique, checkMediaRef, common, tags, type App, type SendRoutesOptions } from './send-helpers.js';

/** WhatsApp shows at most 12 answers a person can choose (poll options, REPLY buttons). */
const MAX_REPLIES = 12;

export function listSendRoutes(app: App, { messages, mediaBodyLimit }: SendRoutesOptions): void {
  const bodyLimit = mediaBodyLimit;

  app.post('/send-option-list', { schema: { tags, 'x-zapgate-scope': 'send', operationId: 'messages_send-option-list', ...SendOptionList, response: sendResponses } }, async (request) => {
    const b = request.body;
    const options = b.optionList.options.map((o, i) => ({ id: o.id ?? String(i + 1), title: o.title, description: o.description ?? '' }));
    assertUnique(options.map((o) => o.id), 'optionList.options', 'id');
    assertUnique(options.map((o) => o.title), 'optionList.options', 'title');
    return messages.send(instanceOf(request), common(b, request), {
      type: 'option-list',
      message: b.message,
      title: b.optionList.title,
      buttonLabel: b.optionList.buttonLabel,
      options,
    });
  });

  app.post('/send-button-list', { bodyLimit, schema: { tags, 'x-zapgate-scope': 'send', operationId: 'messages_send-button-list', ...SendButtonList, response: sendResponses } }, async (request) => {
    const b = request.body;
    const buttons = b.buttonList.buttons.map((x, i) => ({ id: x.id ?? String(i + 1), label: x.label }));
    assertUnique(buttons.map((x) => x.id), 'buttonList.buttons', 'id');
    assertUnique(buttons.map((x) => x.label), 'buttonList.buttons', 'label');
    const content: OutgoingContent = { type: 'button-list', message: b.message, buttons };
    if (b.buttonList.image) content.image = checkMediaRef(b.buttonList.image, 'buttonList.image');
    if (b.buttonList.video) content.video = checkMediaRef(b.buttonList.video, 'buttonList.video');
    return messages.send(instanceOf(request), common(b, request), content);
  });

  app.post('/send-poll', { schema: { tags, 'x-zapgate-scope': 'send', operationId: 'messages_send-poll', ...SendPoll, response: sendResponses } }, async (request) => {
    const b = request.body;
    const options = b.poll.map((o) => o.name);
    assertUnique(options, 'poll', 'name');
    const max = b.pollMaxOptions ?? 0;
    if (max > options.length) throw errors.invalidInput(`pollMaxOptions: must be at most the number of options (${options.length})`);
    return messages.send(instanceOf(request), common(b, request), { type: 'poll', message: b.message, options, maxOptions: max });
  });

  app.post('/send-button-actions', { bodyLimit, schema: { tags, 'x-zapgate-scope': 'send', operationId: 'messages_send-button-actions', ...SendButtonActions, response: sendResponses } }, async (request) => {
    const b = request.body;
    const buttons = actionButtons(b.buttonActions, 'buttonActions');
    assertUnique(buttons.filter((x) => x.type === 'REPLY').map((x) => x.id), 'buttonActions', 'REPLY id');
    const content: OutgoingContent = { type: 'button-actions', message: b.message, buttons };
    if (b.title) content.title = b.title;
    if (b.footer) content.footer = b.footer;
    if (b.image) content.image = checkMediaRef(b.image, 'image');
    return messages.send(instanceOf(request), common(b, request), content);
  });

  app.post('/send-button-otp', { bodyLimit, schema: { tags, 'x-zapgate-scope': 'send', operationId: 'messages_send-button-otp', ...SendButtonOtp, response: sendResponses } }, async (request) => {
    const b = request.body;
    const content: OutgoingContent = { type: 'button-otp', message: b.message, code: b.code, buttonText: b.buttonText ?? 'Copy code' };
    if (b.image) content.image = checkMediaRef(b.image, 'image');
    return messages.send(instanceOf(request), common(b, request), content);
  });

  app.post('/send-button-pix', { schema: { tags, 'x-zapgate-scope': 'send', operationId: 'messages_send-button-pix', ...SendButtonPix, response: sendResponses } }, async (request) => {
    const b = request.body;
    return messages.send(instanceOf(request), common(b, request), { type: 'button-pix', pixKey: b.pixKey, keyType: b.type, merchantName: b.merchantName ?? 'Pix' });
  });

  app.post('/send-carousel', { bodyLimit, schema: { tags, 'x-zapgate-scope': 'send', operationId: 'messages_send-carousel', ...SendCarousel, response: sendResponses } }, async (request) => {
    const b = request.body;
    const cards = b.carousel.map((card, i) => ({
      text: card.text,
      image: checkMediaRef(card.image, `carousel[${i}].image`),
      buttons: actionButtons(card.buttons ?? [], `carousel[${i}].buttons`),
    }));
    if (cards.reduce((n, k) => n + k.buttons.filter((x) => x.type === 'REPLY').length, 0) > MAX_REPLIES) {
      throw errors.invalidInput(`carousel: at most ${MAX_REPLIES} REPLY buttons in all`);
    }
    return messages.send(instanceOf(request), common(b, request), { type: 'carousel', message: b.message, cards });
  });
}
