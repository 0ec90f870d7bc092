// Tag "messages": the sends without media of their own — text, location, link preview, contact cards.
import type { OutgoingContent, SharedContact } from '../../../domain/outgoing.js';
import { parsePhone } from '../../../domain/phone.js';
import { parseDegrees } from '../../../services/messages-service.js';
import { instanceOf } from '../../auth.js';
import { SendContact, SendContacts, SendLink, SendLocation, SendText, sendResponses } from '../../schemas/messages.js';
import { checkMediaRef, checkUrl, common, tags, type App, type SendRoutesOptions } from './send-helpers.js';

export function textSendRoutes(app: App, { messages, mediaBodyLimit }: SendRoutesOptions): void {
  app.post('/send-text', { schema: { tags, 'x-zapgate-scope': 'send', operationId: 'messages_send-text', ...SendText, response: sendResponses } }, async (request) => {
    const b = request.body;
    const content: OutgoingContent = { type: 'text', message: b.message };
    if (b.editMessageId) content.editMessageId = b.editMessageId;
    return messages.send(instanceOf(request), common(b, request), content);
  });

  app.post('/send-location', { schema: { tags, 'x-zapgate-scope': 'send', operationId: 'messages_send-location', ...SendLocation, response: sendResponses } }, async (request) => {
    const b = request.body;
    const content: OutgoingContent = {
      type: 'location',
      latitude: parseDegrees(b.latitude, 'latitude', 90),
      longitude: parseDegrees(b.longitude, 'longitude', 180),
    };
    if (b.title !== undefined) content.title = b.title;
    if (b.address !== undefined) content.address = b.address;
    return messages.send(instanceOf(request), common(b, request), content);
  });

  app.post('/send-link', { bodyLimit: mediaBodyLimit, schema: { tags, 'x-zapgate-scope': 'send', operationId: 'messages_send-link', ...SendLink, response: sendResponses } }, async (request) => {
    const b = request.body;
    const linkUrl = checkUrl(b.linkUrl, 'linkUrl');
    const content: OutgoingContent = {
      type: 'link',
      message: b.message.includes(linkUrl) ? b.message : `${b.message}\n${linkUrl}`,
      linkUrl,
      title: b.title,
      linkDescription: b.linkDescription,
      linkType: b.linkType ?? 'SMALL',
    };
    if (b.image) content.image = checkMediaRef(b.image, 'image');
    return messages.send(instanceOf(request), common(b, request), content);
  });

  app.post('/send-contact', { schema: { tags, 'x-zapgate-scope': 'send', operationId: 'messages_send-contact', ...SendContact, response: sendResponses } }, async (request) => {
    const b = request.body;
    const contact: SharedContact = { name: b.contactName, phones: [parsePhone(b.contactPhone, 'contactPhone')] };
    if (b.contactBusinessDescription) contact.businessDescription = b.contactBusinessDescription;
    return messages.send(instanceOf(request), common(b, request), { type: 'contacts', contacts: [contact] });
  });

  app.post('/send-contacts', { schema: { tags, 'x-zapgate-scope': 'send', operationId: 'messages_send-contacts', ...SendContacts, response: sendResponses } }, async (request) => {
    const b = request.body;
    const contacts = b.contacts.map((x, i) => {
      const c: SharedContact = { name: x.name, phones: x.phones.map((p, j) => parsePhone(p, `contacts[${i}].phones[${j}]`)) };
      if (x.businessDescription) c.businessDescription = x.businessDescription;
      return c;
    });
    return messages.send(instanceOf(request), common(b, request), { type: 'contacts', contacts });
  });
}
