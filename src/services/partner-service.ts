// Z-API's partner (integrator) calls for a self-hosted gateway: create an instance with its webhooks
// and settings in one call, and list the account's instances in Z-API's paged shape. Billing fields
// have nothing to say here (`due` is a far-future time: an instance never expires); tokens are never listed (only their hashes are stored).
import { errors } from '../errors.js';
import type { AddressGuard } from '../net/address-guard.js';
import { NEVER_DUE_MS, type Instance } from '../domain/instance.js';
import type { InstancesRepo } from '../store/instances-repo.js';
import type { WebhookKind } from '../events/types.js';
import type { WebhooksRepo } from '../store/webhooks-repo.js';
import type { AccountService } from './account-service.js';
import type { InstancesService } from './instances-service.js';
import type { WebhooksService } from './webhooks-service.js';

/** POST /instances/integrator/on-demand's body (Z-API's fields). */
interface OnDemandRequest {
  name: string;
  sessionName?: string;
  deliveryCallbackUrl?: string;
  receivedCallbackUrl?: string;
  receivedAndDeliveryCallbackUrl?: string;
  presenceChatCallbackUrl?: string;
  disconnectedCallbackUrl?: string;
  connectedCallbackUrl?: string;
  messageStatusCallbackUrl?: string;
  callRejectAuto?: boolean;
  callRejectMessage?: string;
  autoReadMessage?: boolean;
  autoReadStatus?: boolean;
  isDevice?: boolean;
  businessDevice?: boolean;
  disableEnqueueWhenDisconnected?: boolean;
}

/** Each callback field and the webhook kinds it sets. */
const CALLBACK_KINDS: ReadonlyArray<readonly [keyof OnDemandRequest, readonly WebhookKind[]]> = [
  ['deliveryCallbackUrl', ['delivery']],
  ['receivedCallbackUrl', ['received']],
  ['receivedAndDeliveryCallbackUrl', ['received', 'delivery']],
  ['presenceChatCallbackUrl', ['chat_presence']],
  ['disconnectedCallbackUrl', ['disconnected']],
  ['connectedCallbackUrl', ['connected']],
  ['messageStatusCallbackUrl', ['message_status']],
];

/** One row of Z-API's paged instance list. */
interface PartnerInstanceView {
  id: string;
  /** Never the token: only its hash is stored. */
  token: null;
  name: string;
  tenant: string;
  /** ISO 8601 */
  created: string;
  due: number;
  paymentStatus: null;
  deliveryCallbackUrl: string | null;
  receivedCallbackUrl: string | null;
  phoneConnected: boolean;
  whatsappConnected: boolean;
  middleware: 'web';
  phone: string | null;
  status: string;
}

interface PartnerPage {
  total: number;
  totalPage: number;
  pageSize: number;
  page: number;
  content: PartnerInstanceView[];
}

/** What PartnerService needs of the store (the SQL store implements it). */
interface PartnerStore {
  readonly instances: Pick<InstancesRepo, 'listOfAccount'>;
  readonly webhooks: Pick<WebhooksRepo, 'list'>;
}

export class PartnerService {
  constructor(
    private readonly store: PartnerStore,
    private readonly instances: InstancesService,
    private readonly webhooks: WebhooksService,
    private readonly account: Pick<AccountService, 'updateReaction'>,
    private readonly guard: AddressGuard,
  ) {}

  /**
   * Creates the instance and applies the body's webhooks and settings. Every URL is checked first:
   * a refused one is a 400 naming its field, and no instance is made. Should a setting fail after
   * the creation, the instance is removed again rather than left half configured.
   */
  async createOnDemand(accountId: string, req: OnDemandRequest): Promise<{ id: string; token: string; due: number }> {
    for (const [field] of CALLBACK_KINDS) {
      const url = req[field];
      if (typeof url !== 'string' || url === '') continue;
      const decision = await this.guard.checkUrl(url);
      if (!decision.ok) throw errors.invalidInput(`${field}: ${decision.reason}`);
    }
    const created = await this.instances.create(accountId, req.name);
    const id = created.instanceId;
    try {
      for (const [field, kinds] of CALLBACK_KINDS) {
        const url = req[field];
        if (typeof url === 'string' && url !== '') await this.webhooks.setUrl(id, kinds, url);
      }
      if (req.autoReadMessage !== undefined) await this.account.updateReaction(id, { autoReadMessage: req.autoReadMessage });
      if (req.autoReadStatus !== undefined) await this.account.updateReaction(id, { autoReadStatus: req.autoReadStatus });
      if (req.callRejectAuto !== undefined) await this.account.updateReaction(id, { callRejectAuto: req.callRejectAuto });
      if (req.callRejectMessage !== undefined) await this.account.updateReaction(id, { callRejectMessage: req.callRejectMessage });
      if (req.disableEnqueueWhenDisconnected !== undefined) await this.instances.updateSettings(id, { disableEnqueueWhenDisconnected: req.disableEnqueueWhenDisconnected });
    } catch (err) {
      await this.instances.delete(id).catch(() => undefined);
      throw err;
    }
    return { id, token: created.instanceToken, due: NEVER_DUE_MS };
  }

  /** The account's instances, oldest first, in Z-API's paged shape; `query` matches name or id. */
  async list(accountId: string, page: number, pageSize: number, query?: string): Promise<PartnerPage> {
    const needle = query?.trim().toLowerCase() ?? '';
    const rows = (await this.store.instances.listOfAccount(accountId)).filter((r) => !needle || r.name.toLowerCase().includes(needle) || r.id.toLowerCase().includes(needle));
    const slice = rows.slice((page - 1) * pageSize, page * pageSize);
    return {
      total: rows.length,
      totalPage: Math.ceil(rows.length / pageSize),
      pageSize,
      page,
      content: await Promise.all(slice.map((r) => this.view(r))),
    };
  }

  private async view(r: Instance): Promise<PartnerInstanceView> {
    const hooks = new Map((await this.store.webhooks.list(r.id)).map((h) => [h.kind, h.url]));
    const connected = r.status === 'connected';
    return {
      id: r.id,
      token: null,
      name: r.name,
      tenant: r.accountId,
      created: new Date(r.createdAt).toISOString(),
      due: NEVER_DUE_MS,
      paymentStatus: null,
      deliveryCallbackUrl: hooks.get('delivery') ?? null,
      receivedCallbackUrl: hooks.get('received') ?? null,
      phoneConnected: connected,
      whatsappConnected: connected,
      middleware: 'web',
      phone: r.phone,
      status: r.status,
    };
  }
}
