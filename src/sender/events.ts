// The events the sender reports: a DeliveryCallback per message settled, and the anti-ban pause as
// a ReceivedCallback notification (Z-API's way of reporting system events).
import { newUuid } from '../ids.js';
import { notificationEvent, type DeliveryCallback, type ReceivedCallback } from '../events/types.js';
import type { MessageRow } from '../store/schema.js';

/** Z-API's DeliveryCallback: the message left (no `error`) or could not be sent (`error`). */
export function deliveryEvent(row: Pick<MessageRow, 'phone' | 'zaap_id' | 'message_id'>, momment: number, error?: string, errorCode?: string): DeliveryCallback {
  const event: DeliveryCallback = { type: 'DeliveryCallback', phone: row.phone, zaapId: row.zaap_id, messageId: row.message_id, momment };
  if (error !== undefined) event.error = error;
  if (error !== undefined && errorCode !== undefined) event.errorCode = errorCode;
  return event;
}

/** The DeliveryCallback of a queued message deleted before it was sent (DELETE …/messages). */
export function cancelledDeliveryEvent(row: Pick<MessageRow, 'phone' | 'zaap_id' | 'message_id'>, momment: number): DeliveryCallback {
  return deliveryEvent(row, momment, 'Message cancelled: deleted from the queue before it was sent', 'CANCELLED');
}

/**
 * The anti-ban pause, reported on the "received" webhook the way Z-API reports system events:
 * `notification: "ANTIBAN_PAUSED"`, `notificationParameters: [reason, pausedUntilMs]`.
 */
export function antibanPausedEvent(ownPhone: string | null, reason: string, until: number, momment: number): ReceivedCallback {
  return notificationEvent({
    messageId: newUuid(),
    phone: ownPhone ?? '',
    fromMe: true,
    momment,
    notification: 'ANTIBAN_PAUSED',
    notificationParameters: [reason, String(until)],
  });
}
