// Channel admin changes the network reports (Baileys' newsletter-participants.update) as Z-API's
// NEWSLETTER_ADMIN_PROMOTE / NEWSLETTER_ADMIN_DEMOTE notifications on the received webhook.
import { randomBytes } from 'node:crypto';
import { notificationEvent, type ReceivedCallback } from '../../events/types.js';
import type { IncomingContext } from './incoming.js';

/** What Baileys emits when a channel's admins change (someone accepted an invite, or was demoted). */
interface NewsletterParticipantsUpdate {
  id: string;
  author?: string;
  user: string;
  new_role?: string;
  action: string;
}

const NOTIFICATIONS: Readonly<Record<string, string>> = { promote: 'NEWSLETTER_ADMIN_PROMOTE', demote: 'NEWSLETTER_ADMIN_DEMOTE' };

export async function newsletterParticipantNotification(u: NewsletterParticipantsUpdate, ctx: IncomingContext, now: number): Promise<ReceivedCallback | null> {
  const notification = NOTIFICATIONS[u.action];
  if (!notification || !u.id.endsWith('@newsletter')) return null;
  const role = u.new_role ?? (u.action === 'promote' ? 'ADMIN' : 'SUBSCRIBER');
  // `isNewsletter: false`, as Z-API's own example of these notifications shows it.
  return notificationEvent({
    // The network's notification carries no message id of its own to Baileys' event: a fresh one.
    messageId: randomBytes(10).toString('hex').toUpperCase(),
    phone: u.id,
    fromMe: false,
    momment: now,
    notification,
    notificationParameters: [await ctx.phoneOf(u.user), role],
  });
}
