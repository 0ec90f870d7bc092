// Business cards of a sort: a catalog product (its picture uploaded as the product image) and a
// channel's admin invitation.
import type { AnyMessageContent } from 'baileys';
import type { OutgoingContent } from '../../../domain/outgoing.js';
import type { ContentInput, SendPart } from './parts.js';

type ProductOrInvite = Extract<OutgoingContent, { type: 'product' | 'newsletter-admin-invite' }>;

export async function productInviteParts(c: ProductOrInvite, input: ContentInput): Promise<SendPart[]> {
  const { messageId } = input;
  if (c.type === 'newsletter-admin-invite') {
    return [{ messageId, raw: { newsletterAdminInviteMessage: { newsletterJid: c.newsletterId, newsletterName: c.newsletterName, caption: c.caption, inviteExpiration: c.inviteExpiration } } }];
  }
  return [{ messageId, content: await productContent(c, input) }];
}

/** WhatsApp's product message: the catalog snapshot, its picture uploaded as the product image. */
async function productContent(c: Extract<OutgoingContent, { type: 'product' }>, { tools }: ContentInput): Promise<AnyMessageContent> {
  const img = await tools.image(c.image, 'product image');
  return {
    product: {
      productImage: img.image,
      productId: c.productId,
      title: c.title,
      description: c.description,
      currencyCode: c.currency,
      priceAmount1000: c.priceAmount1000,
      ...(c.retailerId ? { retailerId: c.retailerId } : {}),
      ...(c.url ? { url: c.url } : {}),
      productImageCount: c.imageCount,
    },
    businessOwnerJid: `${c.catalogPhone}@s.whatsapp.net`,
  };
}
