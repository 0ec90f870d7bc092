// Tag "messages": what each send operation documents and accepts (summary, description, body with
// its example). The route files (routes/messages/*.ts) wire them to the service; the interactive
// kinds are in schemas/message-lists.ts, the operations on sent messages in schemas/message-actions.ts.
import { Type } from '@sinclair/typebox';
import { errorResponses, Phone, SendCommonFields, SendResult } from './common.js';
import { EXAMPLE_AUDIO, EXAMPLE_IMAGE, EXAMPLE_PDF, EXAMPLE_PHONE, EXAMPLE_VIDEO } from './examples.js';

// 507: the disk is full, the message was not queued (README: Security and operations).
export const sendResponses = { 200: SendResult, ...errorResponses(409, 413, 415, 507) };

/** The messages sends' own header (routes/messages.ts adds it to each of them, with its 422). */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x21-\\x7e]+$',
      description:
        'Makes a retry safe: the same key (per instance) within 24 hours answers the first request\'s `zaapId` and `messageId` and queues nothing, on any node and across restarts; the same key with a different request answers 422 `IDEMPOTENCY_KEY_REUSED`. Printable ASCII, no spaces; a UUID is the usual choice.',
      examples: ['5f0c3c1e-8a52-4c47-9d3f-1b2a6f3e9c10'],
    }),
  ),
});

export const MediaRef = Type.String({
  minLength: 1,
  description: 'An https URL (fetched at send time under the address guard) or a base64 data URI (up to 16 MiB).',
});

/** An image that decorates a text-like message (preview, header, card). */
export const ImageRef = Type.String({
  minLength: 1,
  description: 'An https URL (fetched at send time under the address guard, never by WhatsApp\'s engine) or a base64 data URI.',
});

export const MessageRef = (description: string) => Type.String({ minLength: 1, maxLength: 128, description });

/** Only what every send accepts, without `messageId` (the routes that take one use it for the target message). */
export const DelayOnly = {
  phone: Phone,
  delayMessage: SendCommonFields.delayMessage,
  delayTyping: SendCommonFields.delayTyping,
  scheduledAt: SendCommonFields.scheduledAt,
};

const MEDIA_NOTE =
  ' The payload\'s real type is read from its bytes (a URL\'s content-type and a data URI\'s label are ignored); limits: `ZAPGATE_MEDIA_*`.';

export const SendText = {
  summary: 'Send text, a reply (messageId), mentions, or edit a sent message (editMessageId)',
  description:
    'Queued durably: the 200 means the message is on disk, and it leaves in order once the instance is connected (a DeliveryCallback reports it). ' +
    '`phone` is a number with country code, a group (`<digits>-group`) or a `@lid`. `messageId` quotes a message of the last 14 days; `mentioned` lists numbers to mention (write `@<number>` in the text); ' +
    '`mentionAll` mentions every participant of a group; `groupMentioned` mentions groups of the same community. `editMessageId` replaces the text of a message this instance sent. Markdown as WhatsApp writes it: *bold*, _italic_, ~strike~, ```mono```.',
  body: Type.Object(
    {
      ...SendCommonFields,
      message: Type.String({ minLength: 1, maxLength: 65536 }),
      editMessageId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
      groupMentioned: Type.Optional(
        Type.Array(Type.Object({ phone: Type.String({ minLength: 1, maxLength: 64, description: '`<digits>-group`' }), subject: Type.String({ minLength: 1, maxLength: 100 }) }), {
          minItems: 1,
          maxItems: 50,
          description: 'Groups of the same community to mention (write `@<digits>-group` in the text); to a group only.',
        }),
      ),
    },
    { examples: [{ phone: EXAMPLE_PHONE, message: 'Hello from zapgate' }] },
  ),
};

export const SendLocation = {
  summary: 'Send a location',
  description: 'A pin on the map, with an optional place name (`title`) and `address`. Latitude and longitude are decimal degrees, as numbers or strings.',
  body: Type.Object({
    ...SendCommonFields,
    title: Type.Optional(Type.String({ maxLength: 1000 })),
    address: Type.Optional(Type.String({ maxLength: 1000 })),
    latitude: Type.Union([Type.String({ maxLength: 32 }), Type.Number()], { description: 'Decimal degrees, -90..90' }),
    longitude: Type.Union([Type.String({ maxLength: 32 }), Type.Number()], { description: 'Decimal degrees, -180..180' }),
  }, { examples: [{ phone: EXAMPLE_PHONE, title: 'Avenida Paulista', address: 'Av. Paulista, 1578 - Bela Vista, São Paulo - SP', latitude: -23.5614, longitude: -46.6559 }] }),
};

export const SendLink = {
  summary: 'Send a text with a link preview (title, description, optional thumbnail)',
  description:
    'An extended text whose preview shows `title`, `linkDescription` and, when `image` is given, a JPEG thumbnail made from it (fetched by the gateway under the address guard; WhatsApp\'s engine never fetches URLs). ' +
    '`linkUrl` must appear in `message` for WhatsApp to make it clickable; when it does not, it is appended on a new line. ' +
    '`linkType` (default SMALL) sets the preview size: SMALL and MEDIUM carry an inline thumbnail 140 or 300 px wide; ' +
    'LARGE also uploads the image to WhatsApp\'s media host as the preview\'s high-quality picture, which clients show as a large preview.',
  body: Type.Object(
    {
      ...SendCommonFields,
      message: Type.String({ minLength: 1, maxLength: 65536 }),
      image: Type.Optional(ImageRef),
      linkUrl: Type.String({ minLength: 1, maxLength: 2048 }),
      title: Type.String({ minLength: 1, maxLength: 1000 }),
      linkDescription: Type.String({ maxLength: 4096 }),
      linkType: Type.Optional(Type.Union([Type.Literal('SMALL'), Type.Literal('MEDIUM'), Type.Literal('LARGE')])),
    },
    {
      examples: [
        { phone: EXAMPLE_PHONE, message: 'Our new site: https://z-api.io', image: EXAMPLE_IMAGE, linkUrl: 'https://z-api.io', title: 'Z-API', linkDescription: 'WhatsApp integration' },
      ],
    },
  ),
};

export const SendContact = {
  summary: 'Send a contact card',
  description: 'A contact message holding a vCard 3.0 with the number marked as a WhatsApp account (`waid=`), so the recipient can message or save it.',
  body: Type.Object(
    {
      ...SendCommonFields,
      contactName: Type.String({ minLength: 1, maxLength: 256 }),
      contactPhone: Type.String({ minLength: 1, maxLength: 32, description: 'Number with country code.' }),
      contactBusinessDescription: Type.Optional(Type.String({ maxLength: 1000 })),
    },
    { examples: [{ phone: EXAMPLE_PHONE, contactName: 'Z-API Contact', contactPhone: '554498398733' }] },
  ),
};

export const SendContacts = {
  summary: 'Send several contact cards in one message',
  description: 'One vCard 3.0 per contact, every number marked as a WhatsApp account (`waid=`).',
  body: Type.Object(
    {
      ...SendCommonFields,
      contacts: Type.Array(
        Type.Object({
          name: Type.String({ minLength: 1, maxLength: 256 }),
          phones: Type.Array(Type.String({ minLength: 1, maxLength: 32 }), { minItems: 1, maxItems: 10 }),
          businessDescription: Type.Optional(Type.String({ maxLength: 1000 })),
        }),
        { minItems: 1, maxItems: 50 },
      ),
    },
    {
      examples: [
        { phone: EXAMPLE_PHONE, contacts: [{ name: 'Ana', phones: ['5544999999999', '5544888888888'] }, { name: 'Acme', businessDescription: 'A company', phones: ['5544977777777'] }] },
      ],
    },
  ),
};

export const SendImage = {
  summary: 'Send an image by URL or data URI, with an optional caption',
  description:
    'JPEG and PNG within `ZAPGATE_MEDIA_IMAGE_MAX_SIDE` go byte for byte; any other image is decoded once (under the pixel limit), scaled and re-encoded (JPEG, or PNG when it has transparency). ' +
    '`viewOnce` lets the contact open it once. A data URI that is not an image is a 400 at once; a URL that fails arrives as a DeliveryCallback with `error` and `errorCode`.',
  body: Type.Object(
    {
      ...SendCommonFields,
      image: MediaRef,
      caption: Type.Optional(Type.String({ maxLength: 4096 })),
      viewOnce: Type.Optional(Type.Boolean()),
    },
    { examples: [{ phone: EXAMPLE_PHONE, image: EXAMPLE_IMAGE, caption: 'Our new logo' }] },
  ),
};

export const SendSticker = {
  summary: 'Send a sticker (any image; converted to 512×512 WebP)',
  description: 'Any image (PNG with transparency keeps it) becomes a 512×512 WebP sticker, fitted inside a transparent square.',
  body: Type.Object({ ...SendCommonFields, sticker: MediaRef }, { examples: [{ phone: EXAMPLE_PHONE, sticker: EXAMPLE_IMAGE }] }),
};

export const SendAudio = {
  summary: 'Send a voice note',
  description:
    'Any audio (or a video\'s sound) is converted to an Ogg/Opus mono voice note with its length and waveform. `delayTyping` shows "recording audio…" first.' +
    MEDIA_NOTE,
  body: Type.Object(
    {
      ...SendCommonFields,
      audio: MediaRef,
      viewOnce: Type.Optional(Type.Boolean({ description: 'Play once.' })),
      waveform: Type.Optional(Type.Boolean({ description: 'Send the waveform bars (default true).' })),
      async: Type.Optional(Type.Boolean({ description: 'Accepted for Z-API compatibility: every send is asynchronous.' })),
    },
    { examples: [{ phone: EXAMPLE_PHONE, audio: EXAMPLE_AUDIO, waveform: true }] },
  ),
};

export const SendVideo = {
  summary: 'Send a video',
  description: 'Converted to an MP4 (H.264/AAC) every WhatsApp client plays, scaled down to `ZAPGATE_MEDIA_VIDEO_MAX_SIDE`.' + MEDIA_NOTE,
  body: Type.Object(
    {
      ...SendCommonFields,
      video: MediaRef,
      caption: Type.Optional(Type.String({ maxLength: 4096 })),
      viewOnce: Type.Optional(Type.Boolean({ description: 'Play once.' })),
      async: Type.Optional(Type.Boolean({ description: 'Accepted for Z-API compatibility: every send is asynchronous.' })),
    },
    { examples: [{ phone: EXAMPLE_PHONE, video: EXAMPLE_VIDEO, caption: 'Our new store' }] },
  ),
};

export const SendPtv = {
  summary: 'Send a round video note (PTV)',
  description: 'The video is cropped square and converted to MP4. The media goes in `video` (`ptv` is accepted too).' + MEDIA_NOTE,
  body: Type.Object(
    {
      ...SendCommonFields,
      video: Type.Optional(MediaRef),
      ptv: Type.Optional(MediaRef),
    },
    { examples: [{ phone: EXAMPLE_PHONE, video: EXAMPLE_VIDEO }] },
  ),
};

export const SendGif = {
  summary: 'Send a GIF (an MP4 shown looping, without sound)',
  description: 'An MP4 (or a GIF image, converted) sent with gifPlayback.' + MEDIA_NOTE,
  body: Type.Object(
    {
      ...SendCommonFields,
      gif: MediaRef,
      caption: Type.Optional(Type.String({ maxLength: 4096 })),
    },
    { examples: [{ phone: EXAMPLE_PHONE, gif: EXAMPLE_VIDEO, caption: 'Friday!' }] },
  ),
};

export const SendDocument = {
  summary: 'Send a document (any file, byte for byte)',
  description: 'The file is sent unchanged; its mimetype follows `{extension}` (pdf, docx, xlsx, csv, zip, …).' + MEDIA_NOTE,
  params: Type.Object(
    { extension: Type.String({ pattern: '^[A-Za-z0-9]{1,10}$', description: 'File extension without the dot, e.g. `pdf`.', examples: ['pdf'] }) },
    { additionalProperties: true },
  ),
  body: Type.Object(
    {
      ...SendCommonFields,
      document: MediaRef,
      fileName: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Name shown to the contact (default `file.<extension>`).' })),
      caption: Type.Optional(Type.String({ maxLength: 4096 })),
    },
    { examples: [{ phone: EXAMPLE_PHONE, document: EXAMPLE_PDF, fileName: 'invoice-0042.pdf' }] },
  ),
};
