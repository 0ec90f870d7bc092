// Turns an emitted event into what is delivered: which webhook it goes to (if any) and the exact body.
import { WEBHOOK_KIND_OF, type GatewayEvent } from '../events/types.js';
import type { InstanceDeliveryContext } from '../store/deliveries-repo.js';
import type { WebhookKind } from '../events/types.js';

interface Route {
  kind: WebhookKind;
  url: string;
}

/**
 * The webhook an event goes to, or null when it is not delivered: no URL (or a disabled one) for
 * its kind, or a message this instance sent itself while notifySentByMe is off. Group and system
 * notifications are delivered even when fromMe: GROUP_CREATE is how an API-created group's id
 * arrives (docs/contract.md §8), and it is "from me" by nature.
 */
export function routeOf(event: GatewayEvent, ctx: InstanceDeliveryContext): Route | null {
  const kind = WEBHOOK_KIND_OF[event.type];
  const url = ctx.urls.get(kind);
  if (url === undefined) return null;
  if (!reported(event, ctx)) return null;
  return { kind, url };
}

/**
 * Whether the instance reports the event at all, wherever it would go (a webhook or the event
 * stream): not a message it sent itself while notifySentByMe is off.
 */
export function reported(event: GatewayEvent, ctx: Pick<InstanceDeliveryContext, 'notifySentByMe'>): boolean {
  return !(event.type === 'ReceivedCallback' && event.fromMe && event.notification === undefined && !ctx.notifySentByMe);
}

/**
 * The JSON body of an event: the emitter's fields plus `instanceId` and `connectedPhone` (the
 * instance's own number; a ConnectedCallback carries it before the store may know it). Built once
 * at commit, so every attempt of a delivery sends the same bytes.
 */
export function bodyOf(instanceId: string, event: GatewayEvent, ctx: InstanceDeliveryContext): string {
  const connectedPhone = ctx.phone ?? (event.type === 'ConnectedCallback' ? event.phone : null);
  return JSON.stringify({ ...event, instanceId, connectedPhone });
}
