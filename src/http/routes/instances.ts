// Tag "instance": create and list instances, pair them, control their session and settings.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { InstancesService } from '../../services/instances-service.js';
import type { PartnerService } from '../../services/partner-service.js';
import { accountOf, instanceOf } from '../auth.js';
import { errorResponses, named, ValueTrue } from '../schemas/common.js';

const tags = ['instance'];
const Status = Type.Union(
  ['disconnected', 'pairing', 'connecting', 'connected', 'logged_out', 'banned', 'replaced'].map((s) => Type.Literal(s)),
);
const Name = Type.String({ minLength: 1, maxLength: 100 });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
// An example phone: Brazil (55), area 11, a mobile number.
const PHONE = '5511999999999';

const CreatedInstance = named(
  'CreatedInstance',
  'The new instance and its token (shown only here and by rotate-token: keep it). Pair it next with GET …/qr-code/image or …/phone-code/{phone}.',
  Type.Object(
    { instanceId: Type.String(), instanceToken: Type.String(), name: Type.String(), status: Status },
    { examples: [{ instanceId: '3C5A1F0E9B7D4E2A8C6B', instanceToken: 'F1D2C3B4A5968778695A4B3C', name: 'sales', status: 'disconnected' }] },
  ),
);
const OnDemandInstance = named(
  'OnDemandInstance',
  "The new instance in Z-API's integrator shape: `id` and `token`.",
  Type.Object({ id: Type.String(), token: Type.String(), due: Type.Null() }, { examples: [{ id: '3C5A1F0E9B7D4E2A8C6B', token: 'F1D2C3B4A5968778695A4B3C', due: null }] }),
);
const NewInstanceToken = named(
  'NewInstanceToken',
  'The new instanceToken; the old one is refused from now on.',
  Type.Object({ instanceToken: Type.String() }, { examples: [{ instanceToken: 'A9B8C7D6E5F40312A1B2C3D4' }] }),
);
const InstanceStatus = named(
  'InstanceStatus',
  "Z-API's `connected`, `smartphoneConnected` and `error`, plus zapgate's `status` (disconnected, pairing, connecting, connected, logged_out, banned, replaced), why, since when, the paired number and the anti-ban state.",
  Type.Object(
    {
      connected: Type.Boolean(),
      smartphoneConnected: Type.Boolean(),
      error: Nullable(Type.String()),
      status: Status,
      statusReason: Nullable(Type.String()),
      since: Type.Integer({ description: 'ms since the epoch' }),
      phone: Nullable(Type.String()),
      antiban: Type.Object(
        {
          enabled: Type.Boolean(),
          paused: Type.Boolean(),
          reason: Type.Union([Type.String(), Type.Null()], { description: 'the restriction signal that caused the pause' }),
          until: Type.Union([Type.Integer(), Type.Null()], { description: 'ms since the epoch when sending resumes' }),
        },
        {
          description:
            'The anti-ban strategy (update-antiban). After a restriction signal from the network (nacks 463/475, rate-overlimit, 403) it pauses sending; the queue keeps accepting and resumes at `until`. Each pause is also reported on the received webhook as a ReceivedCallback with notification "ANTIBAN_PAUSED" and notificationParameters [reason, until].',
        },
      ),
      ownerNode: Type.Optional(
        Nullable(Type.String({ description: 'Cluster mode only: the node (ZAPGATE_NODE_ID) running the instance\'s session; null while none does (a failover or handover). Absent on a single node.' })),
      ),
    },
    {
      examples: [
        {
          connected: true,
          smartphoneConnected: true,
          error: null,
          status: 'connected',
          statusReason: null,
          since: 1764000000000,
          phone: PHONE,
          antiban: { enabled: false, paused: false, reason: null, until: null },
        },
      ],
    },
  ),
);
const QrValue = named(
  'QrValue',
  'The QR: a `data:image/png;base64,…` URI (qr-code/image with Accept: application/json) or the raw string to render (qr-code).',
  Type.Object({ value: Type.String() }, { examples: [{ value: '2@F0aB3cD…,kq9Z…,Yt7w…,Qm1…' }] }),
);
const PairingCode = named(
  'PairingCode',
  'The 8-character code to type on the phone: WhatsApp → Linked devices → Link with phone number instead.',
  Type.Object({ value: Type.String() }, { examples: [{ value: 'ABCD1234' }] }),
);
const AntibanSetting = named(
  'AntibanSetting',
  'The anti-ban setting as stored, and whether the running session applied it already.',
  Type.Object({ value: Type.Boolean(), antiBanEnabled: Type.Boolean(), workerSynced: Type.Boolean() }, { examples: [{ value: true, antiBanEnabled: true, workerSynced: true }] }),
);

/** Account-level routes: no instance in the path. */
const CallbackUrl = Type.String({ maxLength: 2048, description: 'A webhook URL, checked as by update-webhook-*.' });
const OnDemandBody = Type.Object(
  {
    name: Name,
    sessionName: Type.Optional(Type.String({ maxLength: 100, description: 'Accepted and ignored: the linked device is named by the gateway.' })),
    deliveryCallbackUrl: Type.Optional(CallbackUrl),
    receivedCallbackUrl: Type.Optional(CallbackUrl),
    receivedAndDeliveryCallbackUrl: Type.Optional(CallbackUrl),
    presenceChatCallbackUrl: Type.Optional(CallbackUrl),
    disconnectedCallbackUrl: Type.Optional(CallbackUrl),
    connectedCallbackUrl: Type.Optional(CallbackUrl),
    messageStatusCallbackUrl: Type.Optional(CallbackUrl),
    callRejectAuto: Type.Optional(Type.Boolean()),
    callRejectMessage: Type.Optional(Type.String({ maxLength: 1024 })),
    autoReadMessage: Type.Optional(Type.Boolean()),
    autoReadStatus: Type.Optional(Type.Boolean()),
    isDevice: Type.Optional(Type.Boolean({ description: 'Accepted and ignored: zapgate instances are linked (web) devices.' })),
    businessDevice: Type.Optional(Type.Boolean({ description: 'Accepted and ignored: the account type is the phone\'s.' })),
    disableEnqueueWhenDisconnected: Type.Optional(Type.Boolean()),
  },
  { examples: [{ name: 'My instance', receivedCallbackUrl: 'https://example.com/zapgate/webhook', autoReadMessage: false }] },
);
const PartnerInstance = Type.Object({
  id: Type.String(),
  token: Type.Null({ description: 'Never listed: only the token\'s hash is stored.' }),
  name: Type.String(),
  tenant: Type.String({ description: 'The account id.' }),
  created: Type.String({ description: 'ISO 8601' }),
  due: Type.Null({ description: 'Self-hosted: no expiry.' }),
  paymentStatus: Type.Null(),
  deliveryCallbackUrl: Type.Union([Type.String(), Type.Null()]),
  receivedCallbackUrl: Type.Union([Type.String(), Type.Null()]),
  phoneConnected: Type.Boolean(),
  whatsappConnected: Type.Boolean(),
  middleware: Type.Literal('web'),
  phone: Type.Union([Type.String(), Type.Null()]),
  status: Status,
});
const InstanceSummary = Type.Object({ instanceId: Type.String(), name: Type.String(), status: Status, phone: Type.Union([Type.String(), Type.Null()]) });

const InstanceList = named(
  'InstanceList',
  "This account's instances, oldest first, without their tokens: an array, or with `page`/`pageSize` Z-API's partner page `{total, totalPage, pageSize, page, content}`.",
  Type.Union(
    [
      Type.Array(InstanceSummary),
      Type.Object({ total: Type.Integer(), totalPage: Type.Integer(), pageSize: Type.Integer(), page: Type.Integer(), content: Type.Array(PartnerInstance) }),
    ],
    { examples: [[{ instanceId: '3C5A1F0E9B7D4E2A8C6B', name: 'sales', status: 'connected', phone: PHONE }]] },
  ),
);

export function accountInstanceRoutes(instances: InstancesService, partner: PartnerService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/instances',
      {
        schema: {
          tags,
          operationId: 'instance_create',
          summary: 'Create an instance',
          description: 'An account may have `ZAPGATE_MAX_INSTANCES_PER_ACCOUNT` instances (default 1000); one more is a 403 `instance limit reached`.',
          body: Type.Object({ name: Name }, { examples: [{ name: 'sales' }] }),
          response: {
            201: CreatedInstance,
            ...errorResponses(403),
          },
        },
      },
      async (request, reply) => {
        const created = await instances.create(accountOf(request).id, request.body.name);
        return reply.code(201).send(created);
      },
    );

    app.post(
      '/instances/integrator/on-demand',
      {
        schema: {
          tags,
          operationId: 'instance_create-on-demand',
          summary: 'Create an instance with its webhooks and settings (Z-API integrator)',
          description:
            'Z-API\'s partner call, authenticated with the account\'s Client-Token. The callback URLs set the webhooks (`receivedAndDeliveryCallbackUrl` both received and delivery); `callRejectAuto`, `callRejectMessage`, `autoReadMessage`, `autoReadStatus` and `disableEnqueueWhenDisconnected` the settings. Every URL is checked first: a refused one is a 400 naming the field and no instance is made. `due` is null (self-hosted: no expiry).',
          body: OnDemandBody,
          response: {
            200: OnDemandInstance,
            ...errorResponses(403),
          },
        },
      },
      async (request) => partner.createOnDemand(accountOf(request).id, request.body),
    );

    app.get(
      '/instances',
      {
        schema: {
          tags,
          operationId: 'instance_list',
          summary: "List this account's instances (never their tokens)",
          description:
            'Without `page`/`pageSize`: every instance as `[{instanceId, name, status, phone}]`. With them (Z-API\'s partner listing): `{total, totalPage, pageSize, page, content}` with Z-API\'s row fields, oldest first; `query` matches the name or id.',
          querystring: Type.Object(
            {
              page: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,6}$', examples: ['1'] })),
              pageSize: Type.Optional(Type.String({ pattern: '^([1-9][0-9]{0,2}|1000)$', examples: ['15'] })),
              query: Type.Optional(Type.String({ maxLength: 100, description: 'Part of the name or id.', examples: ['sales'] })),
              middleware: Type.Optional(Type.String({ maxLength: 10, description: 'Accepted; every zapgate instance is `web`.' })),
            },
            { examples: [{ page: '1', pageSize: '15' }] },
          ),
          response: {
            200: InstanceList,
            400: Type.Ref('ErrorBody'),
            401: Type.Ref('ErrorBody'),
            429: Type.Ref('ErrorBody'),
          },
        },
      },
      async (request) => {
        const q = request.query;
        if (q.page === undefined && q.pageSize === undefined && q.query === undefined) return instances.list(accountOf(request).id);
        return partner.list(accountOf(request).id, Number(q.page ?? '1'), Number(q.pageSize ?? '100'), q.query);
      },
    );
  };
}

/** Routes under /instances/{instanceId}/token/{instanceToken}. */
export function instanceRoutes(instances: InstancesService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.delete(
      '',
      {
        schema: {
          tags,
          operationId: 'instance_delete',
          summary: 'Unlink the device if paired and delete the instance with all its data',
          description:
            'The phone loses the linked device; the instance is deleted with everything stored for it (queue, webhook settings and deliveries, stored chats, keys). Cannot be undone.',
          response: { 200: ValueTrue, ...errorResponses() },
        },
      },
      async (request) => {
        await instances.delete(instanceOf(request).id);
        return { value: true };
      },
    );

    app.post(
      '/rotate-token',
      {
        schema: {
          tags,
          operationId: 'instance_rotate-token',
          summary: 'Replace the instanceToken (the old one stops working at once)',
          description: 'Use it when a token leaked. The session, pairing and queue are untouched; only the token in the path changes.',
          response: { 200: NewInstanceToken, ...errorResponses() },
        },
      },
      async (request) => ({ instanceToken: await instances.rotateToken(instanceOf(request).id) }),
    );

    app.get(
      '/status',
      {
        schema: {
          tags,
          operationId: 'instance_status',
          summary: 'Connection status',
          description:
            'Works whether or not a session runs. `statusReason` says why the instance is not connected (e.g. the proxy error, `logged out from the phone`); `since` is when the status last changed.',
          response: {
            200: InstanceStatus,
            ...errorResponses(),
          },
        },
      },
      async (request) => instances.status(instanceOf(request).id),
    );

    app.get(
      '/qr-code/image',
      {
        schema: {
          tags,
          operationId: 'instance_qr-code-image',
          summary: 'Current QR code as a PNG (JSON data URI when Accept: application/json)',
          description:
            'Starts a pairing session when none is live and waits up to 10 s for the first QR. 404 when connected or when no QR can be produced.',
          response: {
            200: {
              description: 'PNG image, or `{value: "data:image/png;base64,…"}` for JSON clients',
              content: {
                'image/png': { schema: { type: 'string', format: 'binary' } },
                'application/json': { schema: QrValue },
              },
            },
            ...errorResponses(),
          },
        },
      },
      async (request, reply) => {
        const png = await instances.qrPng(instanceOf(request).id);
        const wantsJson = /application\/json/i.test(request.headers.accept ?? '') && !/image\/png/i.test(request.headers.accept ?? '');
        if (wantsJson) return reply.type('application/json').send({ value: `data:image/png;base64,${png.toString('base64')}` });
        return reply.type('image/png').send(png);
      },
    );

    app.get(
      '/qr-code',
      {
        schema: {
          tags,
          operationId: 'instance_qr-code',
          summary: 'Current raw QR string',
          description:
            'The string to render as a QR code yourself (it changes while the pairing waits: ask again when it expired). Starts a pairing session when none is live, like qr-code/image; 404 when connected.',
          response: { 200: QrValue, ...errorResponses() },
        },
      },
      async (request) => ({ value: await instances.qr(instanceOf(request).id) }),
    );

    app.get(
      '/phone-code/:phone',
      {
        schema: {
          tags,
          operationId: 'instance_phone-code',
          summary: 'Pair by code: the 8-character code to type on the phone',
          description:
            'Instead of scanning a QR: `phone` is the number being linked (country code and digits). On that phone open WhatsApp → Linked devices → Link a device → Link with phone number instead, and type the code. 409 when the instance is already connected.',
          params: Type.Object({ phone: Type.String({ minLength: 1, maxLength: 32, examples: [PHONE] }) }, { additionalProperties: true }),
          response: { 200: PairingCode, ...errorResponses(409, 504) },
        },
      },
      async (request) => ({ value: await instances.pairingCode(instanceOf(request).id, request.params.phone) }),
    );

    for (const method of ['GET', 'POST'] as const) {
      app.route({
        method,
        url: '/restart',
        schema: {
          tags,
          operationId: `instance_restart${method === 'POST' ? '-post' : ''}`,
          summary: 'Reconnect without a new QR',
          description: 'Closes the WhatsApp connection and opens it again with the stored credentials; a paired device stays paired and the queue resumes. GET and POST do the same.',
          response: { 200: ValueTrue, ...errorResponses() },
        },
        handler: async (request) => {
          await instances.restart(instanceOf(request).id);
          return { value: true };
        },
      });
      app.route({
        method,
        url: '/disconnect',
        schema: {
          tags,
          operationId: `instance_disconnect${method === 'POST' ? '-post' : ''}`,
          summary: 'Log out: unlink the device and wipe its credentials',
          description:
            'The phone loses the linked device and the instance goes back to `disconnected`; pair it again with a new QR. The instance, its token, settings and queue are kept. GET and POST do the same.',
          response: { 200: ValueTrue, ...errorResponses() },
        },
        handler: async (request) => {
          await instances.disconnect(instanceOf(request).id);
          return { value: true };
        },
      });
    }

    app.put(
      '/update-name',
      {
        schema: {
          tags,
          operationId: 'instance_update-name',
          summary: 'Rename the instance',
          description: 'The name is a label for you (GET /instances); WhatsApp does not see it (the profile name is `profile-name`).',
          body: Type.Object({ value: Name }, { examples: [{ value: 'support' }] }),
          response: { 200: ValueTrue, ...errorResponses() },
        },
      },
      async (request) => {
        await instances.rename(instanceOf(request).id, request.body.value);
        return { value: true };
      },
    );

    app.put(
      '/update-antiban',
      {
        schema: {
          tags,
          operationId: 'instance_update-antiban',
          summary: 'Enable or disable the anti-ban strategy',
          description: [
            '`workerSynced` is true when the running session applied the change before this response; false when no session runs now (it applies at next start).',
            '',
            'Off: the queue goes out in FIFO order with Z-API gaps (random 1–3 s, or `delayMessage` exactly). On, additionally, without ever changing your content:',
            'a human "thinking" gap before each message (ZAPGATE_ANTIBAN_MIN_GAP_MS/MAX_GAP_MS, default 3–8 s; a longer `delayMessage` is honoured) and "typing…" for as long as the text takes to type (ZAPGATE_ANTIBAN_TYPING_CPS, default 6 chars/s, at most ZAPGATE_ANTIBAN_MAX_TYPING_MS; `delayTyping` wins when given);',
            'first messages to strangers (numbers that never wrote to the instance and were never written to) spaced by at least ZAPGATE_ANTIBAN_STRANGER_GAP_MS (60 s, jittered up to twice) and capped per hour and per day (ZAPGATE_ANTIBAN_STRANGERS_PER_HOUR 12, _PER_DAY 150);',
            'the same content to more than ZAPGATE_ANTIBAN_IDENTICAL_PER_HOUR (8) recipients in an hour waits;',
            'a newly paired number starts at ZAPGATE_ANTIBAN_WARMUP_START (0.2) of the stranger caps and reaches them after ZAPGATE_ANTIBAN_WARMUP_DAYS (7);',
            'a restriction signal from the network (nacks 463/475, rate-overlimit, 403) pauses sending for ZAPGATE_ANTIBAN_PAUSE_MS (30 min), doubling for each further one within a day, visible as `antiban` in GET /status and reported on the received webhook as a ReceivedCallback with `notification: "ANTIBAN_PAUSED"` and `notificationParameters: [reason, untilMs]`.',
            'The queue stays FIFO: a message held by a cap holds the ones behind it.',
          ].join('\n'),
          body: Type.Object({ value: Type.Boolean() }, { examples: [{ value: true }] }),
          response: {
            200: AntibanSetting,
            ...errorResponses(),
          },
        },
      },
      async (request) => instances.setAntiban(instanceOf(request).id, request.body.value),
    );

    app.put(
      '/update-list-mode',
      {
        schema: {
          tags,
          operationId: 'instance_update-list-mode',
          summary: 'How option and button lists are delivered',
          description: '`poll` (default: renders on every client, answers map back to option ids), `text` (numbered text; a reply "2" maps the same way) or `native` (interactive message; experimental).',
          body: Type.Object({ value: Type.Union([Type.Literal('poll'), Type.Literal('text'), Type.Literal('native')]) }, { examples: [{ value: 'poll' }] }),
          response: { 200: ValueTrue, ...errorResponses() },
        },
      },
      async (request) => {
        await instances.updateSettings(instanceOf(request).id, { listMode: request.body.value });
        return { value: true };
      },
    );

    // send-kinds: the wording of numbered-text lists.
    app.put(
      '/update-list-reply-hint',
      {
        schema: {
          tags,
          operationId: 'instance_update-list-reply-hint',
          summary: 'The closing line of lists and buttons rendered as numbered text',
          description:
            'Lists, buttons and the REPLY buttons of send-button-actions and send-carousel rendered as numbered text (list mode `text`) end with this line, in italics. ' +
            'Default: "Reply with the number of your choice." — send `""` to restore it.',
          body: Type.Object({ value: Type.String({ maxLength: 200 }) }, { examples: [{ value: 'Responda com o número da opção.' }] }),
          response: { 200: ValueTrue, ...errorResponses() },
        },
      },
      async (request) => {
        await instances.updateSettings(instanceOf(request).id, { listReplyHint: request.body.value.trim() });
        return { value: true };
      },
    );
  };
}
