// Where and who: a location pin, and shared contacts as vCard 3.0 cards.
import type { AnyMessageContent } from 'baileys';
import type { OutgoingContent, SharedContact } from '../../../domain/outgoing.js';
import type { ContentInput, SendPart } from './parts.js';

export function locationParts(c: Extract<OutgoingContent, { type: 'location' }>, { messageId, mention }: ContentInput): SendPart[] {
  const location = {
    degreesLatitude: c.latitude,
    degreesLongitude: c.longitude,
    ...(c.title ? { name: c.title } : {}),
    ...(c.address ? { address: c.address } : {}),
  };
  return [{ messageId, content: { location, ...mention } as AnyMessageContent }];
}

export function contactsParts(c: Extract<OutgoingContent, { type: 'contacts' }>, { messageId, mention }: ContentInput): SendPart[] {
  return [{ messageId, content: { contacts: contactsCard(c.contacts), ...mention } as AnyMessageContent }];
}

/** vCard 3.0 text values: backslash, comma, semicolon and newlines escaped (RFC 2426). */
function vcardText(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/,/g, '\\,').replace(/;/g, '\\;').replace(/\r?\n/g, '\\n');
}

/** The vCard WhatsApp understands: `waid=` marks each number as a WhatsApp account. */
export function vcardOf(contact: SharedContact): string {
  const name = vcardText(contact.name);
  const lines = ['BEGIN:VCARD', 'VERSION:3.0', `N:;${name};;;`, `FN:${name}`];
  for (const phone of contact.phones) lines.push(`TEL;type=CELL;type=VOICE;waid=${phone}:+${phone}`);
  if (contact.businessDescription) lines.push(`X-WA-BIZ-DESCRIPTION:${vcardText(contact.businessDescription)}`);
  lines.push('END:VCARD');
  return lines.join('\n');
}

function contactsCard(contacts: readonly SharedContact[]): { displayName: string; contacts: { displayName: string; vcard: string }[] } {
  const displayName = contacts.length === 1 ? contacts[0]!.name : `${contacts.length} contacts`;
  return { displayName, contacts: contacts.map((x) => ({ displayName: x.name, vcard: vcardOf(x) })) };
}
