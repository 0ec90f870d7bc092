// Tags "chats" and "contacts": the conversations and people of the account, from the stored copy
// (fed by what the engine sees), and chat changes (archive, pin, mute, read, clear, delete) sent to
// the phone as WhatsApp's own clients send them.
import type { FastifyInstance } from 'fastify';
import { Type, type FastifyPluginAsyncTypebox, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { MAX_CONTACTS_PER_CALL, type ChatsService } from '../../services/chats-service.js';
import { instanceOf } from '../auth.js';
import { errorResponses, named, Phone, ValueTrue } from '../schemas/common.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

/** Z-API's paging: 1-based page, page size; both strings in the query (no type coercion). */
const Paging = Type.Object(
  {
    page: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,6}$', description: 'Page number, from 1 (default 1).', examples: ['1'] })),
    pageSize: Type.Optional(Type.String({ pattern: '^([1-9][0-9]{0,2}|1000)$', description: 'Rows per page, 1–1000 (default 100).', examples: ['20'] })),
  },
  { examples: [{ page: '1', pageSize: '20' }] },
);

const PhoneParams = Type.Object(
  { phone: Type.String({ minLength: 1, maxLength: 64, description: Phone.description, examples: ['5511999999999'] }) },
  { additionalProperties: true, examples: [{ phone: '5511999999999' }] },
);

const PersonLid = Nullable(Type.String({ description: 'The person\'s LID (`<digits>@lid`) when known — the most stable key of a customer (docs/contract.md §5); null for groups or while unknown.', examples: ['81896604192873@lid'] }));

const Chat = Type.Object({
  phone: Type.String({ description: 'Number, `<digits>-group`, or `<digits>@lid` while WhatsApp hides the number (the chat moves under the number once it is known).' }),
  lid: PersonLid,
  name: Type.String({ description: 'Group subject or the contact\'s name; the id for a group whose subject is not known.' }),
  isGroup: Type.Boolean(),
  archived: Type.Union([Type.Literal('true'), Type.Literal('false')], { description: 'As Z-API sends it: a string.' }),
  pinned: Type.Union([Type.Literal('true'), Type.Literal('false')]),
  unread: Type.String({ description: 'Messages received since the chat was last read; "-1" when marked unread.' }),
  messagesUnread: Type.Integer({ minimum: 0 }),
  lastMessageTime: Type.String({ description: 'Time of the last message, ms since the epoch (docs/contract.md §1: every time is in ms); "0" when none is stored.' }),
  lastMessageId: Type.Union([Type.String(), Type.Null()], { description: 'zapgate: the id of that message.' }),
  isMuted: Type.Union([Type.Literal('0'), Type.Literal('1')]),
  muteEndTime: Type.Union([Type.Integer(), Type.Null()], { description: 'ms until which the chat is muted; -1 for ever; null when not muted.' }),
  isMarkedSpam: Type.Literal('false'),
  isGroupAnnouncement: Type.Boolean(),
  lastMessage: Type.Union(
    [
      Type.Object({
        type: Type.String({ description: 'As in chat-messages: `text`, `image`, … or `revoked`.' }),
        body: Nullable(Type.String({ description: 'Text, caption, file name …; after an edit, the new text.' })),
        fromMe: Type.Boolean(),
      }),
      Type.Null(),
    ],
    { description: 'zapgate: the last message, from the stored copy (what a chat list shows under the name); null when it is not stored.' },
  ),
});

const ChatMetadata = Type.Composite([
  Chat,
  Type.Object({
    profileThumbnail: Nullable(Type.String({ description: 'Picture URL last looked up for the contact (WhatsApp\'s links expire).' })),
    about: Nullable(Type.String()),
  }),
]);

const ChatMessage = Type.Object({
  messageId: Type.String(),
  phone: Type.String({ description: 'The chat: number, `<digits>-group` or `<digits>@lid`.' }),
  fromMe: Type.Boolean(),
  participantPhone: Nullable(Type.String({ description: 'The sender in a group; null for your own messages and in 1:1 chats.' })),
  momment: Type.Integer({ description: 'ms since the epoch (Z-API\'s spelling).' }),
  type: Type.String({ description: '`text`, `image`, `audio`, `video`, `document`, `sticker`, `contact`, `location`, `poll`, … or `revoked` (deleted for everyone).' }),
  body: Nullable(Type.String({ description: 'Text, caption, file name or question (cut at 4096 characters); after an edit, the new text.' })),
  status: Type.String({ description: 'Your messages: SENT, RECEIVED, READ, PLAYED; received ones: RECEIVED.' }),
  mediaUrl: Nullable(Type.String({ description: 'zapgate: the signed link to the received file (as its webhook carried it: `/media/…?exp=&sig=`) while the gateway keeps it (ZAPGATE_RECEIVED_MEDIA_RETENTION_DAYS); null when the message has no file kept.' })),
});

const ChatActionBody = Type.Object(
  {
    phone: Phone,
    action: Type.Union(
      ['read', 'unread', 'archive', 'unarchive', 'pin', 'unpin', 'mute', 'unmute', 'clear', 'delete'].map((a) => Type.Literal(a)),
      { description: '`read`/`unread`, `archive`/`unarchive`, `pin`/`unpin`, `mute` (for ever)/`unmute`, `clear` (its messages), `delete` (the chat).' },
    ),
  },
  { examples: [{ phone: '5544999999999', action: 'archive' }] },
);

const Contact = Type.Object({
  phone: Type.String({ description: 'The number, or `<digits>@lid` while it is hidden.' }),
  lid: PersonLid,
  name: Nullable(Type.String({ description: 'Full name in the phone\'s address book.' })),
  short: Nullable(Type.String()),
  notify: Nullable(Type.String({ description: 'The name the contact set in WhatsApp (push name).' })),
  vname: Nullable(Type.String({ description: 'Verified business name.' })),
});

const ContactMetadata = Type.Object({
  phone: Type.String(),
  name: Nullable(Type.String()),
  short: Nullable(Type.String()),
  notify: Nullable(Type.String()),
  imgUrl: Nullable(Type.String({ description: 'Profile picture URL (expires within ~48 h); null when none or hidden.' })),
  about: Nullable(Type.String({ description: 'Profile status; null when not visible or the instance is offline.' })),
});

const CHAT_EXAMPLE = {
  phone: '5511999999999',
  lid: '81896604192873@lid',
  name: 'Maria Silva',
  isGroup: false,
  archived: 'false',
  pinned: 'false',
  unread: '2',
  messagesUnread: 2,
  lastMessageTime: '1764000000000',
  lastMessageId: '3EB0A7C2F5D1E8B94C6A',
  isMuted: '0',
  muteEndTime: null,
  isMarkedSpam: 'false',
  isGroupAnnouncement: false,
  lastMessage: { type: 'text', body: 'See you tomorrow!', fromMe: false },
};
const ChatList = named('ChatList', "A page of the account's chats, most recent first.", Type.Array(Chat, { examples: [[CHAT_EXAMPLE]] }));
const ChatInfo = named('ChatMetadata', "One chat as the stored copy has it, with the contact's picture and about when known.", Type.Composite([ChatMetadata], { examples: [{ ...CHAT_EXAMPLE, profileThumbnail: null, about: null }] }));
const ContactList = named(
  'ContactList',
  'A page of contacts, by number.',
  Type.Array(Contact, { examples: [[{ phone: '5511999999999', lid: '81896604192873@lid', name: 'Maria Silva', short: 'Maria', notify: 'Maria', vname: null }]] }),
);
const ContactInfo = named(
  'ContactMetadata',
  'One contact: the names stored, and its picture and about from the network when connected.',
  Type.Composite([ContactMetadata], { examples: [{ phone: '5511999999999', name: 'Maria Silva', short: 'Maria', notify: 'Maria', imgUrl: null, about: 'Hey there! I am using WhatsApp.' }] }),
);

const NewContact = Type.Object({
  firstName: Type.String({ minLength: 1, maxLength: 128, description: 'Name saved in the phone\'s address book.' }),
  lastName: Type.Optional(Type.String({ maxLength: 128, description: 'Last name; the saved full name is "firstName lastName".' })),
  phone: Type.String({ minLength: 1, maxLength: 64, description: 'The contact\'s number with country code.' }),
});

const ContactsChange = named(
  'ContactsChange',
  "The phone's address book changed: `success` when every entry was applied, else `errors` names the ones refused.",
  Type.Object(
    {
      success: Type.Boolean({ description: 'true when every entry was applied.' }),
      errors: Type.Array(Type.Object({ phone: Type.String(), error: Type.String() }), { description: 'Entries the network refused (e.g. a number not on WhatsApp); the others were applied.' }),
    },
    { examples: [{ success: true, errors: [] }] },
  ),
);
const ChatMessages = named(
  'ChatMessages',
  "A page of one chat's stored messages, newest first: edits show the new text, deletions are `revoked`.",
  Type.Array(ChatMessage, {
    examples: [[{ messageId: '3EB0A7C2F5D1E8B94C6A', phone: '5511999999999', fromMe: false, participantPhone: null, momment: 1764000000000, type: 'text', body: 'Hi! Got it.', status: 'RECEIVED', mediaUrl: null }]],
  }),
);

function paging(q: { page?: string; pageSize?: string }): [number, number] {
  return [Number(q.page ?? '1'), Number(q.pageSize ?? '100')];
}

function chatRoutes(chats: ChatsService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/chats',
      {
        schema: {
          tags: ['chats'],
          'x-zapgate-scope': 'read',
          operationId: 'chats_list',
          summary: 'The account\'s chats, most recent first',
          description:
            'From the gateway\'s stored copy: every chat the instance sent or received a message in since it was paired, and chats the phone changed (archive, pin, mute, read). Works while the instance is offline. At most 1000 rows per page.',
          querystring: Paging,
          response: { 200: ChatList, ...errorResponses() },
        },
      },
      async (request) => chats.list(instanceOf(request).id, ...paging(request.query)),
    );

    app.get(
      '/chats/:phone',
      {
        schema: {
          tags: ['chats'],
          'x-zapgate-scope': 'read',
          operationId: 'chats_metadata',
          summary: 'One chat\'s metadata',
          description: 'From the stored copy; 404 `Chat not found` for a chat the instance has not seen.',
          params: PhoneParams,
          response: { 200: ChatInfo, ...errorResponses() },
        },
      },
      async (request) => chats.metadata(instanceOf(request).id, request.params.phone),
    );

    app.get(
      '/chat-messages/:phone',
      {
        schema: {
          tags: ['chats'],
          'x-zapgate-scope': 'read',
          operationId: 'chats_messages',
          summary: 'A chat\'s stored messages, newest first',
          description:
            'Z-API\'s legacy chat-messages, from the stored copy (what the instance sent and received since it was paired, within ZAPGATE_CHAT_MESSAGES_RETENTION_DAYS and ZAPGATE_CHAT_MESSAGES_PER_CHAT). Edits show the new text; a message deleted for everyone stays as type `revoked` with no body. Page on with `lastMessageId` = the last id of the previous page. 404 `Chat not found` for a chat the instance has not seen.',
          params: PhoneParams,
          querystring: Type.Object(
            {
              amount: Type.Optional(Type.String({ pattern: '^([1-9][0-9]{0,2}|1000)$', description: 'Messages per page, 1–1000 (default 20).', examples: ['20'] })),
              lastMessageId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Answer the messages older than this one.' })),
            },
            { examples: [{ amount: '20' }] },
          ),
          response: { 200: ChatMessages, ...errorResponses() },
        },
      },
      async (request) => chats.messages(instanceOf(request).id, request.params.phone, Number(request.query.amount ?? '20'), request.query.lastMessageId),
    );

    app.post(
      '/modify-chat',
      {
        schema: {
          tags: ['chats'],
          'x-zapgate-scope': 'send',
          operationId: 'chats_modify',
          summary: 'Archive, pin, mute, mark read or unread, clear or delete a chat',
          description:
            'Sent as WhatsApp\'s app-state change, which the phone and every linked device apply; then `GET /chats` shows it. Changes made on the phone arrive the same way and show too.',
          body: ChatActionBody,
          response: { 200: ValueTrue, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => {
        await chats.modify(instanceOf(request).id, request.body.phone, request.body.action as Parameters<ChatsService['modify']>[2]);
        return { value: true };
      },
    );

    app.get(
      '/contacts',
      {
        schema: {
          tags: ['contacts'],
          'x-zapgate-scope': 'read',
          operationId: 'contacts_list',
          summary: 'The contacts the instance knows, by number',
          description: 'From the stored copy: people who wrote to the instance or were written to (with their push names), and contacts the phone synced. At most 1000 rows per page.',
          querystring: Paging,
          response: { 200: ContactList, ...errorResponses() },
        },
      },
      async (request) => chats.contacts(instanceOf(request).id, ...paging(request.query)),
    );

    app.post(
      '/contacts/add',
      {
        schema: {
          tags: ['contacts'],
          'x-zapgate-scope': 'manage',
          operationId: 'contacts_add',
          summary: 'Save contacts in the phone\'s address book',
          description:
            `Each entry is sent as WhatsApp's app-state contact change, which the phone applies (and, where WhatsApp may write the phone's contacts, saves there too). Only numbers on WhatsApp can be saved: the others are listed in \`errors\` and the rest are saved. At most ${MAX_CONTACTS_PER_CALL} per call; a malformed number refuses the whole call (400) before anything is sent. \`GET /contacts\` then shows the name.`,
          body: Type.Array(NewContact, { minItems: 1, maxItems: MAX_CONTACTS_PER_CALL, examples: [[{ firstName: 'Contact 1', lastName: 'Last name 1', phone: '5511999999999' }]] }),
          response: { 200: ContactsChange, ...errorResponses(409, 504) },
        },
      },
      async (request) => chats.saveContacts(instanceOf(request).id, request.body),
    );

    // Z-API's method: DELETE with a JSON body (the numbers).
    app.delete(
      '/contacts/remove',
      {
        schema: {
          tags: ['contacts'],
          'x-zapgate-scope': 'manage',
          operationId: 'contacts_remove',
          summary: 'Remove contacts from the phone\'s address book',
          description: `Each number is removed from the phone's address book (an app-state change); the contact stays known by the name it set in WhatsApp. At most ${MAX_CONTACTS_PER_CALL} per call.`,
          body: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: MAX_CONTACTS_PER_CALL, examples: [['5511999999999']] }),
          response: { 200: ContactsChange, ...errorResponses(409, 504) },
        },
      },
      async (request) => chats.removeContacts(instanceOf(request).id, request.body),
    );

    app.get(
      '/contacts/:phone',
      {
        schema: {
          tags: ['contacts'],
          'x-zapgate-scope': 'read',
          operationId: 'contacts_metadata',
          summary: 'One contact\'s metadata',
          description:
            'Names from the stored copy; picture and about asked of the network when connected (for a number the instance never saw too: 404 `Contact not found` when it is not on WhatsApp). Offline: the stored contact, or 409 when none is stored.',
          params: PhoneParams,
          response: { 200: ContactInfo, ...errorResponses(409, 504) },
        },
      },
      async (request) => chats.contact(instanceOf(request).id, request.params.phone),
    );
  };
}

/** The chats and contacts routes as one instance-scoped plugin (listed in routes/index.ts). */
export function chatRouteTree(chats: ChatsService) {
  return async (base: FastifyInstance): Promise<void> => {
    await base.withTypeProvider<TypeBoxTypeProvider>().register(chatRoutes(chats));
  };
}
