// Tag "messages", the kinds a person answers: option and button lists, polls and the interactive
// buttons (actions, OTP, Pix, carousel) — what each operation documents and accepts.
import { Type } from '@sinclair/typebox';
import { SendCommonFields } from './common.js';
import { EXAMPLE_IMAGE, EXAMPLE_PHONE } from './examples.js';
import { ImageRef, MediaRef } from './messages.js';

/** Where lists, buttons and the interactive kinds below are rendered (docs/contract.md §6), for the OpenAPI text. */
const RENDERING =
  'Rendering follows the instance\'s list mode (`PUT …/update-list-mode`): `poll` (default) and `text` send a rendering every WhatsApp client shows; ' +
  '`native` sends WhatsApp\'s interactive message, which many clients (WhatsApp Web, desktop, older phones) do not display — experimental.';

export const ActionButtonSchema = Type.Object({
  id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Comes back as `buttonsResponseMessage.buttonId` when a REPLY button is chosen (default: its position, from 1).' })),
  type: Type.Union([Type.Literal('CALL'), Type.Literal('URL'), Type.Literal('REPLY')]),
  label: Type.String({ minLength: 1, maxLength: 100 }),
  phone: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'CALL: the number to call (with country code).' })),
  url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'URL: http(s) address to open.' })),
});

export const SendOptionList = {
  summary: 'Send a list of options; delivered as a poll by default, answers come back with the option id',
  description:
    'Delivered per the instance\'s list mode (`PUT …/update-list-mode`). `poll` (default): a single-choice poll whose question is the title, the message and the `buttonLabel`, ' +
    'each option `title — description`. `text`: numbered text with the title, message, `buttonLabel` and descriptions, ' +
    'closed by the instance\'s wording (`PUT …/update-list-reply-hint`). `native`: WhatsApp\'s list message (experimental: many clients do not show it). ' +
    'Mentions are kept in every mode. The answer comes back as `listResponseMessage` with the option id and `referenceMessageId`.',
  body: Type.Object({
    ...SendCommonFields,
    message: Type.String({ minLength: 1, maxLength: 4096 }),
    optionList: Type.Object({
      title: Type.String({ minLength: 1, maxLength: 255 }),
      buttonLabel: Type.String({ minLength: 1, maxLength: 60 }),
      options: Type.Array(
        Type.Object({
          id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
          title: Type.String({ minLength: 1, maxLength: 100 }),
          description: Type.Optional(Type.String({ maxLength: 300 })),
        }),
        { minItems: 1, maxItems: 12 },
      ),
    }),
  }, {
    examples: [
      {
        phone: EXAMPLE_PHONE,
        message: 'Which day suits you?',
        optionList: {
          title: 'Delivery day',
          buttonLabel: 'Choose a day',
          options: [
            { id: 'mon', title: 'Monday', description: 'morning' },
            { id: 'wed', title: 'Wednesday', description: 'afternoon' },
          ],
        },
      },
    ],
  }),
};

export const SendButtonList = {
  summary: 'Send quick-answer buttons with an optional image or video header',
  description:
    'Delivered per the instance\'s list mode like send-option-list: a poll (default; the header image or video goes first as its own message), numbered text, or WhatsApp\'s buttons message (experimental). ' +
    'Mentions are kept in every mode. The answer comes back as `buttonsResponseMessage` with the button id.',
  body: Type.Object({
    ...SendCommonFields,
    message: Type.String({ minLength: 1, maxLength: 4096 }),
    buttonList: Type.Object({
      buttons: Type.Array(
        Type.Object({ id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), label: Type.String({ minLength: 1, maxLength: 100 }) }),
        { minItems: 1, maxItems: 12 },
      ),
      image: Type.Optional(MediaRef),
      video: Type.Optional(MediaRef),
    }),
  }, {
    examples: [
      {
        phone: EXAMPLE_PHONE,
        message: 'Did the order arrive?',
        buttonList: { buttons: [{ id: 'yes', label: 'Yes' }, { id: 'no', label: 'Not yet' }] },
      },
    ],
  }),
};

export const SendPoll = {
  summary: 'Send a poll (to a group or a person)',
  description:
    'A WhatsApp poll. `pollMaxOptions` is how many options one person may choose (1 = single choice; absent or 0 = any number). ' +
    'Votes come back on the received webhook as a ReceivedCallback with `pollVote: {pollMessageId, options: [{name}]}` (every option the voter has chosen now). ' +
    'WhatsApp shows polls in groups and in 1:1 chats.',
  body: Type.Object(
    {
      ...SendCommonFields,
      message: Type.String({ minLength: 1, maxLength: 255 }),
      poll: Type.Array(Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) }), { minItems: 2, maxItems: 12 }),
      pollMaxOptions: Type.Optional(Type.Integer({ minimum: 0, maximum: 12 })),
    },
    { examples: [{ phone: '120363019502650977-group', message: 'What is the best WhatsApp API?', pollMaxOptions: 1, poll: [{ name: 'Z-API' }, { name: 'Others' }] }] },
  ),
};

export const SendButtonActions = {
  summary: 'Send a message with action buttons (open a link, call a number, quick reply)',
  description:
    `${RENDERING} In \`poll\` mode the image, title, links, numbers and footer go first (an image with caption, or text) and the REPLY buttons follow as a single-choice poll asking \`message\`; ` +
    'in `text` mode one message lists the links and numbers and numbers the REPLY buttons. Either way, a REPLY chosen comes back as `buttonsResponseMessage` with the button id and `referenceMessageId` = the returned messageId. ' +
    'Without REPLY buttons the whole message is one text (or image with caption).',
  body: Type.Object(
    {
      ...SendCommonFields,
      message: Type.String({ minLength: 1, maxLength: 4096 }),
      title: Type.Optional(Type.String({ maxLength: 1000 })),
      footer: Type.Optional(Type.String({ maxLength: 1000 })),
      image: Type.Optional(ImageRef),
      buttonActions: Type.Array(ActionButtonSchema, { minItems: 1, maxItems: 12 }),
    },
    {
      examples: [
        {
          phone: EXAMPLE_PHONE,
          message: 'a message',
          title: 'a title',
          footer: 'a footer',
          buttonActions: [
            { id: '1', type: 'CALL', phone: '554498398733', label: 'Contact us' },
            { id: '2', type: 'URL', url: 'https://z-api.io', label: 'Visit our website' },
          ],
        },
      ],
    },
  ),
};

export const SendButtonOtp = {
  summary: 'Send a code with a copy button',
  description: `${RENDERING} The fallback is the message followed by \`buttonText\` and the code alone on the last line, easy to select and copy.`,
  body: Type.Object(
    {
      ...SendCommonFields,
      message: Type.String({ minLength: 1, maxLength: 4096 }),
      code: Type.String({ minLength: 1, maxLength: 256 }),
      image: Type.Optional(ImageRef),
      buttonText: Type.Optional(Type.String({ minLength: 1, maxLength: 60, description: 'Default "Copy code".' })),
    },
    { examples: [{ phone: EXAMPLE_PHONE, message: 'Your verification code', code: '123-456' }] },
  ),
};

export const SendButtonPix = {
  summary: 'Send a Pix key with a copy button',
  description: `${RENDERING} The fallback is a text with \`merchantName\`, the key type and the key alone on the last line, easy to copy.`,
  body: Type.Object(
    {
      ...SendCommonFields,
      pixKey: Type.String({ minLength: 1, maxLength: 256 }),
      type: Type.Union([Type.Literal('CPF'), Type.Literal('CNPJ'), Type.Literal('PHONE'), Type.Literal('EMAIL'), Type.Literal('EVP')]),
      merchantName: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Default "Pix".' })),
    },
    { examples: [{ phone: EXAMPLE_PHONE, pixKey: '123e4567-e89b-12d3-a456-426614174000', type: 'EVP', merchantName: 'Acme' }] },
  ),
};

export const SendCarousel = {
  summary: 'Send a carousel of cards (image, text, buttons)',
  description:
    `${RENDERING} The fallback sends each card as an image with its text, links and numbers as caption; REPLY buttons of all cards then follow as one single-choice poll asking \`message\` ` +
    '(labelled `#<card> <label>` when there are several cards), or as numbered text in `text` mode, and come back as `buttonsResponseMessage`. Without REPLY buttons, `message` goes first as text.',
  body: Type.Object(
    {
      ...SendCommonFields,
      message: Type.String({ minLength: 1, maxLength: 4096 }),
      carousel: Type.Array(
        Type.Object({
          text: Type.String({ minLength: 1, maxLength: 1024 }),
          image: ImageRef,
          buttons: Type.Optional(Type.Array(ActionButtonSchema, { maxItems: 3 })),
        }),
        { minItems: 1, maxItems: 10 },
      ),
    },
    {
      examples: [
        {
          phone: EXAMPLE_PHONE,
          message: 'Our plans',
          carousel: [
            { text: 'Basic', image: EXAMPLE_IMAGE, buttons: [{ id: 'b', label: 'Choose Basic', type: 'REPLY' }] },
            { text: 'Pro', image: EXAMPLE_IMAGE, buttons: [{ id: 'site', label: 'Details', type: 'URL', url: 'https://z-api.io' }, { id: 'p', label: 'Choose Pro', type: 'REPLY' }] },
          ],
        },
      ],
    },
  ),
};
