// Tag "instance": the models its operations answer with and the bodies they accept.
import { Type } from '@sinclair/typebox';
import { INSTANCE_STATUSES, NEVER_DUE_MS } from '../../domain/instance.js';
import { named } from './common.js';
import { EXAMPLE_PHONE } from './examples.js';

const Status = Type.Union(INSTANCE_STATUSES.map((s) => Type.Literal(s)));
export const Name = Type.String({ minLength: 1, maxLength: 100 });
/** Z-API's `due`: a self-hosted instance never expires (docs/contract.md §4). */
const Due = Type.Number({ description: 'When the instance expires (ms): always 253402300799000 (9999-12-31T23:59:59Z), since a self-hosted instance does not expire.', examples: [NEVER_DUE_MS] });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const CreatedInstance = named(
  'CreatedInstance',
  'The new instance and its token (shown only here and by rotate-token: keep it). Pair it next with GET …/qr-code/image or …/phone-code/{phone}.',
  Type.Object(
    { instanceId: Type.String(), instanceToken: Type.String(), name: Type.String(), status: Status },
    { examples: [{ instanceId: '3C5A1F0E9B7D4E2A8C6B', instanceToken: 'F1D2C3B4A5968778695A4B3C', name: 'sales', status: 'disconnected' }] },
  ),
);
export const OnDemandInstance = named(
  'OnDemandInstance',
  "The new instance in Z-API's integrator shape: `id` and `token`.",
  Type.Object({ id: Type.String(), token: Type.String(), due: Due }, { examples: [{ id: '3C5A1F0E9B7D4E2A8C6B', token: 'F1D2C3B4A5968778695A4B3C', due: NEVER_DUE_MS }] }),
);
export const NewInstanceToken = named(
  'NewInstanceToken',
  'The new instanceToken; the old one is refused from now on.',
  Type.Object({ instanceToken: Type.String() }, { examples: [{ instanceToken: 'A9B8C7D6E5F40312A1B2C3D4' }] }),
);
export const InstanceStatus = named(
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
          phone: EXAMPLE_PHONE,
          antiban: { enabled: false, paused: false, reason: null, until: null },
        },
      ],
    },
  ),
);
export const QrValue = named(
  'QrValue',
  'The QR: a `data:image/png;base64,…` URI (qr-code/image with Accept: application/json) or the raw string to render (qr-code).',
  Type.Object({ value: Type.String() }, { examples: [{ value: '2@F0aB3cD…,kq9Z…,Yt7w…,Qm1…' }] }),
);
export const PairingCode = named(
  'PairingCode',
  'The 8-character code to type on the phone: WhatsApp → Linked devices → Link with phone number instead.',
  Type.Object({ value: Type.String() }, { examples: [{ value: 'ABCD1234' }] }),
);
export const AntibanSetting = named(
  'AntibanSetting',
  'The anti-ban setting as stored, and whether the running session applied it already.',
  Type.Object({ value: Type.Boolean(), antiBanEnabled: Type.Boolean(), workerSynced: Type.Boolean() }, { examples: [{ value: true, antiBanEnabled: true, workerSynced: true }] }),
);

// Account-level bodies: no instance in the path.
const CallbackUrl = Type.String({ maxLength: 2048, description: 'A webhook URL, checked as by update-webhook-*.' });
export const OnDemandBody = Type.Object(
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
  due: Due,
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

export const InstanceList = named(
  'InstanceList',
  "This account's instances, oldest first, without their tokens: an array, or with `page`/`pageSize` Z-API's partner page `{total, totalPage, pageSize, page, content}`.",
  Type.Union(
    [
      Type.Array(InstanceSummary),
      Type.Object({ total: Type.Integer(), totalPage: Type.Integer(), pageSize: Type.Integer(), page: Type.Integer(), content: Type.Array(PartnerInstance) }),
    ],
    { examples: [[{ instanceId: '3C5A1F0E9B7D4E2A8C6B', name: 'sales', status: 'connected', phone: EXAMPLE_PHONE }]] },
  ),
);
