// The webhook payloads (docs/contract.md §5, Z-API's callbacks) as schemas, the one definition of
// each: events/types.ts derives the TypeScript types the emitters build from them, the OpenAPI
// document publishes them (http/schemas/callbacks.ts), and the end-to-end tests check real
// deliveries against them. Each schema is the delivered body: `instanceId` and `connectedPhone`
// are added by the outbox, so the emitted types leave those two out.
import { Type, type TLiteral, type TSchema, type TUnion } from '@sinclair/typebox';
import { MESSAGE_STATUSES } from './vocabulary.js';

const Str = (description: string, extra: object = {}) => Type.String({ description, ...extra });
const Bool = (description: string) => Type.Boolean({ description });
const Num = (description: string) => Type.Number({ description });
const Opt = <T extends TSchema>(t: T) => Type.Optional(t);
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
/** One of a list of strings, typed as the union of them (a plain `.map(Type.Literal)` widens to string). */
const OneOf = <const T extends readonly string[]>(values: T, options: { description?: string } = {}) =>
  Type.Union(values.map((v) => Type.Literal(v)), options) as unknown as TUnion<{ -readonly [K in keyof T]: TLiteral<T[K]> }>;

const Ms = Type.Integer({ description: 'Milliseconds since the epoch' });
/** A LID address (`<digits>@lid`), or null while the network has not told it (docs/contract.md §5). */
const Lid = (description: string) => Opt(Nullable(Str(description, { examples: ['81896604192873@lid'] })));
const MediaUrl = (what: string) =>
  Str(
    `Signed link to the ${what} on this gateway (GET /media/{id}): valid for ZAPGATE_RECEIVED_MEDIA_RETENTION_DAYS (30 days by default, as Z-API), needs no token, and works as soon as the webhook is sent (the download from WhatsApp runs in the background; a GET waits for it). Empty for messages the API itself sent.`,
  );
const DownloadError = Opt(Nullable(Str('Why the last download of the file failed, when one did (the link tries again)')));

/** An order as Z-API's received reviewAndPay / reviewOrder carry it: amounts in currency units. */
const OrderFields = {
  type: Opt(Type.String()),
  currency: Type.String(),
  referenceId: Str('The order\'s reference: pass it to order-status-update / order-payment-update'),
  orderRequestId: Nullable(Type.String()),
  orderStatus: Type.String(),
  paymentStatus: Type.String(),
  total: Type.Number(),
  subTotal: Type.Number(),
  discount: Opt(Type.Number()),
  shipping: Opt(Type.Number()),
  tax: Opt(Type.Number()),
  products: Type.Array(Type.Object({ name: Type.String(), quantity: Type.Number(), isCustomItem: Type.Boolean(), productId: Type.String(), value: Type.Number() })),
};

const Referenced = Type.Object({
  messageId: Str('The message reacted to / pinned'),
  fromMe: Bool('Whether that message was sent by this instance'),
  phone: Str('Its chat: a phone number or a `<digits>-group` id'),
  participant: Nullable(Str('In groups, the phone of its sender')),
});

/** One content key per message; notifications carry `notification` instead. */
const Contents = {
  text: Opt(
    Type.Object(
      {
        message: Str('The text'),
        title: Opt(Str('Link preview title')),
        description: Opt(Str('Link preview description')),
        url: Opt(Str('The previewed URL')),
        thumbnailUrl: Opt(MediaUrl('preview thumbnail')),
      },
      { description: 'A text message (with its link preview, if the sender made one)' },
    ),
  ),
  image: Opt(
    Type.Object(
      {
        imageUrl: MediaUrl('image'),
        thumbnailUrl: Opt(MediaUrl('thumbnail')),
        caption: Str('Caption ("" when none)'),
        mimeType: Str('Media type, e.g. image/jpeg'),
        width: Opt(Type.Integer()),
        height: Opt(Type.Integer()),
        viewOnce: Bool('Sent as view once'),
        downloadError: DownloadError,
      },
      { description: 'An image' },
    ),
  ),
  audio: Opt(
    Type.Object(
      { audioUrl: MediaUrl('audio'), mimeType: Str('e.g. audio/ogg; codecs=opus'), ptt: Bool('A voice note'), seconds: Opt(Type.Integer()), viewOnce: Bool('Sent as view once'), downloadError: DownloadError },
      { description: 'Audio or a voice note (`ptt`)' },
    ),
  ),
  video: Opt(
    Type.Object(
      {
        videoUrl: MediaUrl('video'),
        thumbnailUrl: Opt(MediaUrl('thumbnail')),
        caption: Str('Caption ("" when none)'),
        mimeType: Str('e.g. video/mp4'),
        seconds: Opt(Type.Integer()),
        width: Opt(Type.Integer()),
        height: Opt(Type.Integer()),
        viewOnce: Bool('Sent as view once'),
        gif: Opt(Bool('A GIF (an MP4 played looping and muted)')),
        isGif: Opt(Bool('Same as `gif`, under the name Z-API clients also read')),
        ptv: Opt(Bool('A round video note (PTV)')),
        downloadError: DownloadError,
      },
      { description: 'A video, GIF or round video note' },
    ),
  ),
  document: Opt(
    Type.Object(
      {
        documentUrl: MediaUrl('document'),
        thumbnailUrl: Opt(MediaUrl('thumbnail')),
        mimeType: Str('e.g. application/pdf'),
        title: Str('Title'),
        fileName: Str('File name'),
        pageCount: Opt(Type.Integer()),
        caption: Opt(Str('Caption')),
        downloadError: DownloadError,
      },
      { description: 'A document, byte for byte as sent' },
    ),
  ),
  sticker: Opt(
    Type.Object(
      { stickerUrl: MediaUrl('sticker'), mimeType: Str('image/webp'), isAnimated: Opt(Bool('An animated sticker')), width: Opt(Type.Integer()), height: Opt(Type.Integer()), downloadError: DownloadError },
      { description: 'A sticker' },
    ),
  ),
  contact: Opt(Type.Object({ displayName: Str('Name shown'), vCard: Str('The vCard'), phones: Type.Array(Type.String(), { description: 'WhatsApp numbers in the vCard (waid)' }) }, { description: 'A shared contact' })),
  contacts: Opt(Type.Array(Type.Object({ displayName: Type.String(), vCard: Type.String(), phones: Type.Array(Type.String()) }), { description: 'Several shared contacts (zapgate: one entry per vCard)' })),
  location: Opt(
    Type.Object(
      { latitude: Num('Decimal degrees'), longitude: Num('Decimal degrees'), name: Opt(Type.String()), address: Opt(Type.String()), url: Opt(Str('A maps link to the place')) },
      { description: 'A location' },
    ),
  ),
  reaction: Opt(
    Type.Object(
      { value: Str('The emoji ("" removes the reaction)'), time: Ms, reactionBy: Opt(Str('Phone of who reacted')), referencedMessage: Referenced },
      { description: 'A reaction to a message' },
    ),
  ),
  poll: Opt(Type.Object({ question: Type.String(), pollMaxOptions: Type.Integer({ description: '0 = any number of options' }), options: Type.Array(Type.Object({ name: Type.String() })) }, { description: 'A poll created by the contact' })),
  pollVote: Opt(Type.Object({ pollMessageId: Str('The poll voted on (one this instance sent with send-poll)'), options: Type.Array(Type.Object({ name: Type.String() }), { description: 'The options now chosen (empty: the vote was withdrawn)' }) }, { description: 'A vote on a poll' })),
  listResponseMessage: Opt(Type.Object({ message: Type.String(), title: Type.String(), selectedRowId: Str('The option id the client gave') }, { description: 'An answer to an option list (native, poll or numbered-text rendering)' })),
  buttonsResponseMessage: Opt(Type.Object({ buttonId: Str('The button id the client gave'), message: Type.String() }, { description: 'An answer to a button list' })),
  newsletterAdminInvite: Opt(
    Type.Object(
      { newsletterId: Type.String(), newsletterName: Type.String(), text: Type.String(), inviteExpiration: Type.Integer({ description: 'Seconds since the epoch.' }) },
      { description: 'An invitation to be an admin of a channel' },
    ),
  ),
  event: Opt(
    Type.Object(
      {
        name: Type.String(),
        description: Type.String(),
        canceled: Bool('The event was cancelled'),
        joinLink: Nullable(Str('The call link, when the event has one')),
        scheduleTime: Type.Integer({ description: 'Start, in seconds since the epoch (as Z-API)' }),
        endTime: Opt(Type.Integer({ description: 'End, in seconds since the epoch, when set' })),
        location: Type.Object({ name: Opt(Type.String()), address: Opt(Type.String()), latitude: Opt(Type.Number()), longitude: Opt(Type.Number()) }, { description: 'The place; {} when none' }),
      },
      { description: 'An event created in a group (send-event, or by a member)' },
    ),
  ),
  eventResponse: Opt(
    Type.Object(
      {
        response: OneOf(['GOING', 'NOT_GOING', 'MAYBE', 'UNKNOWN']),
        responseFrom: Str('Phone of who answered'),
        time: Ms,
        referencedMessage: Referenced,
      },
      { description: 'An answer to an event this instance knows (decrypted with the event\'s secret)' },
    ),
  ),
  reviewAndPay: Opt(Type.Object(OrderFields, { description: 'An order with its payment request, or a payment update of one (send-order, order-payment-update)' })),
  reviewOrder: Opt(Type.Object(OrderFields, { description: 'An order status update (order-status-update)' })),
  pinMessage: Opt(Type.Object({ action: Type.Union([Type.Literal('pin'), Type.Literal('unpin')]), pinDurationInSecs: Opt(Type.Integer()), referencedMessage: Referenced }, { description: 'A message pinned or unpinned' })),
  notification: Opt(
    Str(
      'A system event instead of a message: REVOKE (a message deleted for everyone; `messageId` is the deleted message), GROUP_CREATE, GROUP_CHANGE_SUBJECT, GROUP_CHANGE_DESCRIPTION, GROUP_CHANGE_ICON, GROUP_CHANGE_ANNOUNCE, GROUP_CHANGE_RESTRICT, GROUP_CHANGE_INVITE_LINK, GROUP_PARTICIPANT_ADD, GROUP_PARTICIPANT_REMOVE, GROUP_PARTICIPANT_LEAVE, GROUP_PARTICIPANT_PROMOTE, GROUP_PARTICIPANT_DEMOTE, GROUP_PARTICIPANT_INVITE, MEMBERSHIP_APPROVAL_REQUEST, REVOKED_MEMBERSHIP_REQUESTS, CALL_RECEIVED, CALL_ACCEPTED, CALL_ENDED, CALL_MISSED_VOICE, CALL_MISSED_VIDEO, CHAT_LABEL_ASSOCIATION (labels put on or taken off chats of a business account), ANTIBAN_PAUSED (zapgate: sending paused; parameters [reason, untilMs]), CAMPAIGN_STARTED, CAMPAIGN_PAUSED, CAMPAIGN_RESUMED, CAMPAIGN_FINISHED, CAMPAIGN_CANCELLED, CAMPAIGN_AUTO_PAUSED (zapgate: a campaign changed state; parameters [campaignId, name, reason?], docs/contract.md §12)',
    ),
  ),
  notificationParameters: Opt(
    Type.Union([
      Type.Array(Type.String(), { description: 'The notification\'s subjects: participants as phones, the new subject or description, …' }),
      Type.Array(
        Type.Object({ phone: Str('The chat (phone or `<digits>-group`)'), label: Str('The label (tag) id'), assigned: Bool('true: put on the chat; false: taken off') }),
        { description: 'CHAT_LABEL_ASSOCIATION: one entry per chat whose labels changed' },
      ),
    ]),
  ),
};

/** The keys of a ReceivedCallback that carry its content (at most one is present). */
export type ReceivedContentKey = keyof typeof Contents;

export const ReceivedCallbackSchema = Type.Object(
  {
    type: Type.Literal('ReceivedCallback'),
    instanceId: Type.String(),
    connectedPhone: Nullable(Str('The instance\'s own number')),
    messageId: Str('The WhatsApp message id (for edits, the edited message; for REVOKE, the deleted one)'),
    phone: Str('The chat: the contact\'s phone number — or, when WhatsApp hides the number, their `<digits>@lid` — or `<digits>-group`, or `<id>@newsletter` for a channel'),
    fromMe: Bool('Sent by this account (only delivered with notifySentByMe)'),
    momment: Ms,
    status: Type.Union([Type.Literal('RECEIVED'), Type.Literal('SENT')]),
    chatName: Type.String(),
    senderName: Str('The sender\'s push name'),
    participantPhone: Nullable(Str('In groups, the phone of the member who sent it (their `<digits>@lid` when the number is hidden)')),
    isGroup: Type.Boolean(),
    isNewsletter: Opt(Bool('From a channel')),
    broadcast: Opt(Bool('Sent to a broadcast list the sender has')),
    isEdit: Opt(Bool('The new content of an edited message')),
    isStatusReply: Opt(Bool('A reply to this account\'s status')),
    waitingMessage: Opt(Bool('Always false: messages are reported once decrypted')),
    fromApi: Opt(Bool('Sent through this gateway\'s API')),
    fromHistory: Opt(Bool('Imported from the phone\'s history at pairing (update-history-sync with `webhook`); absent on live messages')),
    forwarded: Opt(Type.Boolean()),
    messageExpirationSeconds: Opt(Type.Integer({ description: 'Disappearing-message timer of the chat (0 = off)' })),
    chatLid: Lid('1:1 chats: the contact\'s LID — the most stable key of a person, the same whether they wrote under their number or their LID; null in groups and channels, or while unknown'),
    senderLid: Lid('The LID of who sent it (this account\'s own on its messages; the member\'s in groups)'),
    participantLid: Lid('In groups, the LID of the member who sent it'),
    senderPhoto: Opt(Type.Null({ description: 'Not known yet: null' })),
    photo: Opt(Type.Null({ description: 'Not known yet: null' })),
    referenceMessageId: Opt(Str('The message replied to, reacted to, voted on, edited or deleted')),
    callId: Opt(Type.String()),
    callDirection: Opt(Str('CALL_* notifications: "incoming" (the calls this gateway reports are the ones it receives)')),
    isVideo: Opt(Type.Boolean()),
    groupId: Opt(Str('GROUP_CREATE of a group created through this API: the group\'s id (`<digits>-group`), also in `phone`')),
    pendingGroupId: Opt(Str('GROUP_CREATE of a group created through this API: the id create-group answered with, also in `messageId`')),
    requestMethod: Opt(Type.String()),
    ...Contents,
  },
  {
    $id: 'ReceivedCallback',
    additionalProperties: true,
    description:
      'An incoming message or notification (and, with notifySentByMe, this account\'s own messages). Every network message id is reported once, ever: messages that arrive while the gateway is stopped, crashed or cut off are reported after it reconnects, with their original `momment`, in order per chat; a redelivery, reconnect or restart never reports one twice.',
  },
);

export const MessageStatusCallbackSchema = Type.Object(
  {
    type: Type.Literal('MessageStatusCallback'),
    instanceId: Type.String(),
    connectedPhone: Nullable(Type.String()),
    status: OneOf([...MESSAGE_STATUSES, 'READ_BY_ME'], {
      description: 'How far messages this instance sent got (monotonic; a skipped step is not invented); READ_BY_ME: the account\'s own phone read messages the instance received',
    }),
    ids: Type.Array(Type.String()),
    momment: Ms,
    phone: Str('The chat: the number (a `<digits>@lid` while WhatsApp hides it) or `<digits>-group`'),
    chatLid: Lid('1:1 chats: the contact\'s LID when known'),
    isGroup: Type.Boolean(),
    phoneDevice: Opt(Type.Integer({ description: 'The recipient\'s device the status came from: 0 = the phone (and the server\'s SENT), n = its linked device n' })),
  },
  { $id: 'MessageStatusCallback', additionalProperties: true, description: 'Delivery and read status of messages' },
);

export const DeliveryCallbackSchema = Type.Object(
  {
    type: Type.Literal('DeliveryCallback'),
    instanceId: Type.String(),
    connectedPhone: Nullable(Type.String()),
    phone: Type.String(),
    zaapId: Type.String(),
    messageId: Type.String(),
    momment: Ms,
    error: Opt(Str('Why the message could not be sent (absent when it was sent)')),
    errorCode: Opt(Type.String()),
  },
  { $id: 'DeliveryCallback', additionalProperties: true, description: 'A queued message left for the network, or failed to' },
);

export const ConnectedCallbackSchema = Type.Object(
  {
    type: Type.Literal('ConnectedCallback'),
    instanceId: Type.String(),
    connectedPhone: Nullable(Type.String()),
    connected: Type.Literal(true),
    phone: Type.String(),
    isBusiness: Opt(Bool('The paired account is a WhatsApp Business account')),
    momment: Ms,
  },
  { $id: 'ConnectedCallback', additionalProperties: true, description: 'The instance connected to WhatsApp' },
);

export const DisconnectedCallbackSchema = Type.Object(
  { type: Type.Literal('DisconnectedCallback'), instanceId: Type.String(), connectedPhone: Nullable(Type.String()), disconnected: Type.Literal(true), error: Str('logged out, banned, replaced by another session, multi-device mismatch, or the close reason'), momment: Ms },
  { $id: 'DisconnectedCallback', additionalProperties: true, description: 'The instance lost its link' },
);

export const PresenceChatCallbackSchema = Type.Object(
  {
    type: Type.Literal('PresenceChatCallback'),
    instanceId: Type.String(),
    connectedPhone: Nullable(Type.String()),
    phone: Str('The contact: the number (a `<digits>@lid` while WhatsApp hides it)'),
    chatLid: Lid('The contact\'s LID when known'),
    status: OneOf(['AVAILABLE', 'UNAVAILABLE', 'COMPOSING', 'PAUSED', 'RECORDING']),
    lastSeen: Nullable(Ms),
    momment: Ms,
  },
  { $id: 'PresenceChatCallback', additionalProperties: true, description: 'A contact typing, recording, or coming online in a 1:1 chat' },
);
