// The account as the phone sees it: instance data (GET /me), the connected device, the profile
// (name, about, picture), contacts' pictures, blocking, and the per-instance reactions Z-API keeps
// as instance settings (auto-read, call rejection). Validation first, then the network.
import { NEVER_DUE_MS, type Instance, type InstanceChanges } from '../domain/instance.js';
import { errors } from '../errors.js';
import { formatTarget, parsePhone, parseTarget } from '../domain/phone.js';
import { maskStoredProxyUrl, proxyInUse } from '../net/proxy.js';
import type { AccountPort, DeviceInfo } from '../sessions/families/account/account-port.js';
import type { SessionsPort } from '../sessions/port.js';
import type { InstancesRepo } from '../store/instances-repo.js';
import type { WebhookKind } from '../events/types.js';
import type { WebhooksRepo } from '../store/webhooks-repo.js';

/** Z-API's instance data (GET /me), with the settings this gateway keeps. */
export interface InstanceData {
  id: string;
  token: string;
  name: string;
  due: number;
  connected: boolean;
  paymentStatus: string;
  created: string;
  connectedCallbackUrl: string;
  deliveryCallbackUrl: string;
  disconnectedCallbackUrl: string;
  messageStatusCallbackUrl: string;
  presenceChatCallbackUrl: string;
  receivedCallbackUrl: string;
  receiveCallbackSentByMe: boolean;
  callRejectAuto: boolean;
  callRejectMessage: string;
  autoReadMessage: boolean;
  autoReadStatus: boolean;
  initialDataCallbackUrl: string;
  proxyUrl: string;
  useProxy: boolean;
}

/** Z-API's GET /device. */
interface DeviceView extends Omit<DeviceInfo, 'imgUrl'> {
  imgUrl: string;
  device: { sessionName: string; device_model: string };
}

export type ReactionSetting =
  | { autoReadMessage: boolean }
  | { autoReadStatus: boolean }
  | { callRejectAuto: boolean }
  | { callRejectMessage: string };

const CALLBACK_FIELDS: Record<WebhookKind, keyof InstanceData> = {
  connected: 'connectedCallbackUrl',
  delivery: 'deliveryCallbackUrl',
  disconnected: 'disconnectedCallbackUrl',
  message_status: 'messageStatusCallbackUrl',
  chat_presence: 'presenceChatCallbackUrl',
  received: 'receivedCallbackUrl',
};

type ChatExpiration = '24_HOURS' | '7_DAYS' | '90_DAYS' | 'OFF';
const CHAT_EXPIRATION_SECONDS: Record<ChatExpiration, number> = { '24_HOURS': 86_400, '7_DAYS': 604_800, '90_DAYS': 7_776_000, OFF: 0 };

/** What AccountService needs of the store (the SQL store implements it): settings and webhook URLs. */
interface AccountSettingsStore {
  readonly instances: Pick<InstancesRepo, 'find' | 'change'>;
  readonly webhooks: Pick<WebhooksRepo, 'list'>;
}

export class AccountService {
  constructor(
    private readonly store: AccountSettingsStore,
    private readonly sessions: Pick<SessionsPort, 'isConnected'>,
    private readonly account: AccountPort,
    /** Drops the instance from the authentication cache after a settings write. */
    private readonly invalidate: (instanceId: string) => void,
  ) {}

  /** `token` is the one the caller authenticated with (only its hash is stored). */
  async me(instanceId: string, token: string): Promise<InstanceData> {
    const instance = await this.instance(instanceId);
    const hooks = await this.store.webhooks.list(instanceId);
    const data: InstanceData = {
      id: instance.id,
      token,
      name: instance.name,
      // Self-hosted: an instance never expires and is never billed.
      due: NEVER_DUE_MS,
      connected: instance.status === 'connected' && this.sessions.isConnected(instanceId),
      paymentStatus: 'ACTIVE',
      created: new Date(instance.createdAt).toISOString(),
      connectedCallbackUrl: '',
      deliveryCallbackUrl: '',
      disconnectedCallbackUrl: '',
      messageStatusCallbackUrl: '',
      presenceChatCallbackUrl: '',
      receivedCallbackUrl: '',
      receiveCallbackSentByMe: instance.notifySentByMe,
      callRejectAuto: instance.callRejectAuto,
      callRejectMessage: instance.callRejectMessage ?? '',
      autoReadMessage: instance.autoReadMessage,
      autoReadStatus: instance.autoReadStatus,
      initialDataCallbackUrl: '',
      proxyUrl: instance.proxyUrl ? maskStoredProxyUrl(instance.proxyUrl) : '',
      useProxy: proxyInUse(instance.proxyUrl, instance.proxyEnabled) !== null,
    };
    for (const hook of hooks) (data as unknown as Record<string, string>)[CALLBACK_FIELDS[hook.kind]] = hook.url;
    return data;
  }

  async device(instanceId: string): Promise<DeviceView> {
    const info = await this.account.device(instanceId);
    return { ...info, imgUrl: info.imgUrl ?? '', device: { sessionName: 'zapgate', device_model: 'zapgate' } };
  }

  async setProfileName(instanceId: string, name: string): Promise<void> {
    const value = name.trim();
    if (!value) throw errors.invalidInput('value: must not be blank');
    await this.account.setProfileName(instanceId, value);
  }

  setProfileDescription(instanceId: string, about: string): Promise<void> {
    return this.account.setProfileDescription(instanceId, about);
  }

  setProfilePicture(instanceId: string, ref: string): Promise<void> {
    const value = ref.trim();
    if (!/^(https?:\/\/|data:)/i.test(value)) throw errors.invalidInput('value: must be an https URL or a data URI of an image');
    return this.account.setProfilePicture(instanceId, value);
  }

  async contactPicture(instanceId: string, phone: string): Promise<{ link: string | null }> {
    const digits = parsePhone(phone);
    return { link: await this.account.profilePictureUrl(instanceId, digits) };
  }

  /** Z-API's chatExpiration values: `24_HOURS`, `7_DAYS`, `90_DAYS` or `OFF`. */
  async setChatExpiration(instanceId: string, phone: string, expiration: ChatExpiration): Promise<void> {
    const target = formatTarget(parseTarget(phone));
    await this.account.setChatExpiration(instanceId, target, CHAT_EXPIRATION_SECONDS[expiration]);
  }

  async modifyBlocked(instanceId: string, phone: string, action: 'block' | 'unblock'): Promise<void> {
    const digits = parsePhone(phone);
    await this.account.setBlocked(instanceId, digits, action === 'block');
  }

  /** Stores one setting and has the running session apply it from the next message or call. */
  async updateReaction(instanceId: string, setting: ReactionSetting): Promise<void> {
    const changes: InstanceChanges = 'callRejectMessage' in setting ? { callRejectMessage: setting.callRejectMessage.trim() || null } : setting;
    await this.store.instances.change(instanceId, changes);
    this.invalidate(instanceId);
    const { autoReadMessage, autoReadStatus, callRejectAuto, callRejectMessage } = await this.instance(instanceId);
    this.account.applyReactions(instanceId, { autoReadMessage, autoReadStatus, callRejectAuto, callRejectMessage });
  }

  private async instance(instanceId: string): Promise<Instance> {
    const instance = await this.store.instances.find(instanceId);
    if (!instance) throw errors.instanceNotFound();
    return instance;
  }
}
