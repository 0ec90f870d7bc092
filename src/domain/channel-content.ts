// What a channel (newsletter) can carry: WhatsApp channels take text, media, links, polls and
// reactions; Z-API refuses the rest with "<Kind> not available to channels." before queueing.
import { errors } from '../errors.js';

/** Content types a channel refuses, with the name Z-API's error gives them. */
const REFUSED: Record<string, string> = {
  document: 'Document',
  ptv: 'Ptv',
  location: 'Location message',
  contacts: 'Contacts',
  'button-actions': 'Buttons Actions',
  'button-list': 'Buttons',
  'option-list': 'Options List',
  'button-otp': 'Buttons',
  'button-pix': 'Pix button',
  carousel: 'Buttons',
  pin: 'SendPinChatMessage',
  'newsletter-admin-invite': 'Newsletter admin invite',
  order: 'Order',
  'order-update': 'Order',
};

/** Throws 400 for a content type a channel cannot carry. */
export function assertChannelContent(type: string): void {
  const refused = REFUSED[type];
  if (refused) throw errors.invalidInput(`${refused} not available to channels.`);
}
