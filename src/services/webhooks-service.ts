// Webhook configuration: URLs per event kind (checked by the address guard), secrets and rotation.
import type { Clock } from '../clock.js';
import { errors } from '../errors.js';
import type { AddressGuard } from '../net/address-guard.js';
import { generateWebhookSecret } from '../outbox/signing.js';
import type { InstancesRepo } from '../store/instances-repo.js';
import { WEBHOOK_KINDS, type WebhookKind } from '../events/types.js';
import type { WebhooksRepo, WebhookTarget } from '../store/webhooks-repo.js';

/** What WebhooksService needs of the store (the SQL store implements it). */
interface WebhooksStore {
  readonly instances: Pick<InstancesRepo, 'find' | 'change'>;
  readonly webhooks: Pick<WebhooksRepo, 'list' | 'set'>;
}

export class WebhooksService {
  constructor(
    private readonly store: WebhooksStore,
    private readonly guard: AddressGuard,
    private readonly clock: Clock,
  ) {}

  /** Sets the URL for the given kinds; an empty string clears them. Refused URLs change nothing. */
  async setUrl(instanceId: string, kinds: readonly WebhookKind[], url: string): Promise<void> {
    if (url !== '') {
      const decision = await this.guard.checkUrl(url);
      if (!decision.ok) throw errors.invalidInput(`value: ${decision.reason}`);
    }
    await this.store.webhooks.set(instanceId, kinds, url, this.clock.now());
  }

  setAll(instanceId: string, url: string): Promise<void> {
    return this.setUrl(instanceId, WEBHOOK_KINDS, url);
  }

  list(instanceId: string): Promise<WebhookTarget[]> {
    return this.store.webhooks.list(instanceId);
  }

  async secret(instanceId: string): Promise<{ secret: string; previous: string | null }> {
    const instance = await this.store.instances.find(instanceId);
    if (!instance) throw errors.instanceNotFound();
    return { secret: instance.webhookSecret, previous: instance.webhookSecretPrevious };
  }

  /** New secret; the old one keeps signing alongside it until the next rotation. */
  async rotateSecret(instanceId: string): Promise<{ secret: string; previous: string }> {
    const current = await this.secret(instanceId);
    const secret = generateWebhookSecret();
    await this.store.instances.change(instanceId, { webhookSecret: secret, webhookSecretPrevious: current.secret });
    return { secret, previous: current.secret };
  }
}
