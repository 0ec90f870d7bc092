// WhatsApp Business catalogs with Z-API's answers: read a business's products (the account's own or
// any business's by phone) and collections; create, change and delete the account's own products
// and collections; the cart setting; and product / catalog messages through the send queue. What
// only a business account may do is refused with 422 on a personal one, after the input is checked.
import { errors } from '../errors.js';
import { parsePhone } from '../domain/phone.js';
import type { CatalogPort, CatalogProduct } from '../sessions/families/catalog/catalog-port.js';
import type { Instance } from '../domain/instance.js';
import type { OutgoingContent } from '../domain/outgoing.js';
import type { MessagesService, SendCommon, SendResult } from './messages-service.js';

/** Products per page of a catalog read (WhatsApp's clients ask for fewer; the network caps at 100). */
export const PRODUCTS_PAGE = 50;
/** Ids one collection call may name. */
export const MAX_PRODUCT_IDS = 100;
/** Images one product may have (WhatsApp's apps allow 10). */
export const MAX_IMAGES = 10;
const PRODUCT_ID = /^\d{1,32}$/;
const CURSOR = /^[A-Za-z0-9_=+/-]{1,2048}$/;

/** Z-API's product row. */
interface ProductView {
  availability: 'in stock';
  id: string;
  retailerId: string | null;
  description: string;
  price: string;
  salePrice: null;
  currency: string;
  name: string;
  quantity: null;
  images: string[];
  isHidden: boolean;
}

interface CatalogView {
  cartEnabled: boolean;
  products: ProductView[];
  nextCursor: string | null;
}

/** The body of create/edit product (Z-API's fields; `id` is zapgate's way to name the product to edit). */
interface ProductBody {
  id?: string;
  name: string;
  price: number;
  currency: string;
  description: string;
  images: string[];
  isHidden?: boolean;
  salePrice?: number;
  retailerId?: string;
  url?: string;
}

interface CatalogMessage {
  catalogPhone: string;
  message?: string;
  title?: string;
  catalogDescription?: string;
  translation?: 'EN' | 'PT';
}

const CATALOG_TEXT = {
  EN: { title: 'View catalog', description: 'Browse products and services on WhatsApp' },
  PT: { title: 'Ver catálogo', description: 'Confira produtos e serviços no WhatsApp' },
} as const;

function view(p: CatalogProduct): ProductView {
  return {
    availability: 'in stock',
    id: p.id,
    retailerId: p.retailerId,
    description: p.description,
    price: p.price,
    salePrice: null,
    currency: p.currency,
    name: p.name,
    quantity: null,
    images: p.images,
    isHidden: p.isHidden,
  };
}

function productId(raw: string, field = 'productId'): string {
  const id = raw.trim();
  if (!PRODUCT_ID.test(id)) throw errors.invalidInput(`${field}: must be the numeric id WhatsApp gave the product`);
  return id;
}

function productIds(raw: readonly string[], field = 'productIds'): string[] {
  const ids = raw.map((id, i) => productId(id, `${field}[${i}]`));
  if (new Set(ids).size !== ids.length) throw errors.invalidInput(`${field}: an id is repeated`);
  return ids;
}

function collectionId(raw: string): string {
  const id = raw.trim();
  if (!PRODUCT_ID.test(id)) throw errors.invalidInput('collectionId: must be the numeric id WhatsApp gave the collection');
  return id;
}

function cursor(raw: string | undefined): string | null {
  if (raw === undefined || raw === '') return null;
  if (!CURSOR.test(raw)) throw errors.invalidInput('nextCursor: must be the nextCursor a previous page answered');
  return raw;
}

export class CatalogService {
  constructor(
    private readonly port: CatalogPort,
    private readonly messages: Pick<MessagesService, 'send'>,
  ) {}

  /** Refuses what only a business may do when the paired account is a personal one (409 when not connected). */
  private business(instanceId: string): void {
    if (!this.port.isBusiness(instanceId)) throw errors.notBusiness();
  }

  /** A page of a business's products: the account's own (`phone` null; business only) or any business's. */
  async products(instanceId: string, rawPhone: string | null, rawCursor: string | undefined): Promise<CatalogView> {
    const phone = rawPhone === null ? null : parsePhone(rawPhone);
    const after = cursor(rawCursor);
    if (phone === null) this.business(instanceId);
    const page = await this.port.products(instanceId, phone, after, PRODUCTS_PAGE);
    return { cartEnabled: page.cartEnabled, products: page.products.map(view), nextCursor: page.nextCursor };
  }

  /** One product of the account's own catalog, with Z-API's `cartEnabled` and `catalogId`. */
  async product(instanceId: string, rawId: string): Promise<Omit<ProductView, 'quantity'> & { cartEnabled: boolean; catalogId: null }> {
    const id = productId(rawId);
    this.business(instanceId);
    let after: string | null = null;
    // Bounded: at most 20 pages of the network's largest size.
    for (let i = 0; i < 20; i++) {
      const page = await this.port.products(instanceId, null, after, 100);
      const found = page.products.find((p) => p.id === id);
      if (found) {
        const { quantity: _quantity, ...rest } = view(found);
        return { cartEnabled: page.cartEnabled, catalogId: null, ...rest };
      }
      if (!page.nextCursor) break;
      after = page.nextCursor;
    }
    throw errors.notFound(`Product ${id} not found`);
  }

  /** Creates a product, or changes the one `id` names. Answers its id. */
  async saveProduct(instanceId: string, body: ProductBody): Promise<{ id: string }> {
    const id = body.id === undefined ? undefined : productId(body.id, 'id');
    const name = body.name.trim();
    if (!name) throw errors.invalidInput('name: must not be blank');
    const currency = body.currency.trim().toUpperCase();
    if (!/^[A-Z]{3}$/.test(currency)) throw errors.invalidInput('currency: must be an ISO 4217 code such as BRL');
    const images = body.images.map((ref, i) => {
      const v = ref.trim();
      if (!/^(https?:\/\/|data:image\/)/i.test(v)) throw errors.invalidInput(`images[${i}]: must be an https URL or a data URI of an image`);
      return v;
    });
    if (body.url !== undefined && !/^https?:\/\/\S+$/i.test(body.url.trim())) throw errors.invalidInput('url: must be an http(s) address');
    this.business(instanceId);
    const input = {
      name,
      description: body.description.trim(),
      // Z-API takes the price in currency units; WhatsApp's product carries thousandths.
      price: Math.round(body.price * 1000),
      currency,
      images,
      isHidden: body.isHidden ?? false,
      ...(body.retailerId?.trim() ? { retailerId: body.retailerId.trim() } : {}),
      ...(body.url?.trim() ? { url: body.url.trim() } : {}),
    };
    const saved = id === undefined ? await this.port.createProduct(instanceId, input) : await this.port.updateProduct(instanceId, id, input);
    return { id: saved.id };
  }

  async deleteProduct(instanceId: string, rawId: string): Promise<{ success: true }> {
    const id = productId(rawId);
    this.business(instanceId);
    if ((await this.port.deleteProducts(instanceId, [id])) === 0) throw errors.notFound(`Product ${id} not found`);
    return { success: true };
  }

  async setCart(instanceId: string, enabled: boolean): Promise<{ success: true }> {
    this.business(instanceId);
    await this.port.setCartEnabled(instanceId, enabled);
    return { success: true };
  }

  async createCollection(instanceId: string, rawName: string, rawIds: readonly string[]): Promise<{ collectionId: string }> {
    const name = rawName.trim();
    if (!name) throw errors.invalidInput('name: must not be blank');
    const ids = productIds(rawIds);
    this.business(instanceId);
    return { collectionId: await this.port.createCollection(instanceId, name, ids) };
  }

  async renameCollection(instanceId: string, rawId: string, rawName: string): Promise<{ success: true; collectionId: string }> {
    const id = collectionId(rawId);
    const name = rawName.trim();
    if (!name) throw errors.invalidInput('name: must not be blank');
    this.business(instanceId);
    await this.known(instanceId, id);
    return { success: true, collectionId: await this.port.editCollection(instanceId, id, { name }) };
  }

  async deleteCollection(instanceId: string, rawId: string): Promise<{ success: true }> {
    const id = collectionId(rawId);
    this.business(instanceId);
    await this.known(instanceId, id);
    await this.port.deleteCollection(instanceId, id);
    return { success: true };
  }

  /** Adds or removes products; WhatsApp answers the collection's new id. */
  async changeCollection(instanceId: string, rawId: string, rawIds: readonly string[], action: 'add' | 'remove'): Promise<{ success: true; collectionId: string }> {
    const id = collectionId(rawId);
    const ids = productIds(rawIds);
    this.business(instanceId);
    await this.known(instanceId, id);
    return { success: true, collectionId: await this.port.editCollection(instanceId, id, action === 'add' ? { add: ids } : { remove: ids }) };
  }

  /** The account's own collections (all in one page: `nextCursor` is null). */
  async collections(instanceId: string, rawCursor: string | undefined): Promise<{ nextCursor: null; collections: { id: string; name: string; status: string }[] }> {
    const after = cursor(rawCursor);
    this.business(instanceId);
    // Every collection comes in the first page; a cursor asks for what follows it: nothing.
    const all = after ? [] : await this.port.collections(instanceId, null);
    return { nextCursor: null, collections: all.map((c) => ({ id: c.id, name: c.name, status: c.status })) };
  }

  /** The products of one collection of a business (Z-API's array: prices as numbers, images as `{url}`). */
  async collectionProducts(instanceId: string, rawPhone: string, rawId: string, rawCursor: string | undefined) {
    const phone = parsePhone(rawPhone);
    const id = collectionId(rawId);
    const after = cursor(rawCursor);
    if (after) return [];
    const found = (await this.port.collections(instanceId, phone)).find((c) => c.id === id);
    if (!found) throw errors.notFound(`Collection ${id} not found in the catalog of ${phone}`);
    return found.products.map((p) => ({ id: p.id, name: p.name, description: p.description, price: Number(p.price), currency: p.currency, images: p.images.map((url) => ({ url })) }));
  }

  private async known(instanceId: string, id: string): Promise<void> {
    const all = await this.port.collections(instanceId, null);
    if (!all.some((c) => c.id === id)) throw errors.notFound(`Collection ${id} not found`);
  }

  /**
   * An order (send-order, order-status-update, order-payment-update): WhatsApp shows orders from
   * business accounts only, so a personal one is refused now (403; 409 when not connected).
   */
  async sendOrder(instance: Instance, common: SendCommon, content: Extract<OutgoingContent, { type: 'order' | 'order-update' }>): Promise<SendResult> {
    this.business(instance.id);
    return this.messages.send(instance, common, content);
  }

  /** A product message: the product is read from the network now (409 when not connected), then queued. */
  async sendProduct(instance: Instance, common: SendCommon, rawCatalogPhone: string, rawProductId: string): Promise<SendResult> {
    const catalogPhone = parsePhone(rawCatalogPhone, 'catalogPhone');
    const id = productId(rawProductId);
    const { product, image } = await this.port.productSnapshot(instance.id, catalogPhone, id);
    return this.messages.send(instance, common, {
      type: 'product',
      catalogPhone,
      productId: product.id,
      title: product.name,
      description: product.description,
      currency: product.currency,
      priceAmount1000: Number(product.price),
      ...(product.retailerId ? { retailerId: product.retailerId } : {}),
      ...(product.url ? { url: product.url } : {}),
      image,
      imageCount: product.images.length,
    });
  }

  /**
   * A catalog message: WhatsApp shares a catalog as its wa.me/c link with a preview; the preview's
   * picture is the catalog's first product. The catalog is read now (it must have products).
   */
  async sendCatalog(instance: Instance, common: SendCommon, m: CatalogMessage): Promise<SendResult> {
    const catalogPhone = parsePhone(m.catalogPhone, 'catalogPhone');
    const page = await this.port.products(instance.id, catalogPhone, null, 1);
    const first = page.products[0];
    if (!first) throw errors.networkRefused(`the catalog of ${catalogPhone} has no products`);
    const { image } = await this.port.productSnapshot(instance.id, catalogPhone, first.id);
    const words = CATALOG_TEXT[m.translation ?? 'EN'];
    const linkUrl = `https://wa.me/c/${catalogPhone}`;
    return this.messages.send(instance, common, {
      type: 'link',
      message: m.message?.trim() ? `${m.message.trim()}\n${linkUrl}` : linkUrl,
      linkUrl,
      title: m.title?.trim() || words.title,
      linkDescription: m.catalogDescription?.trim() || words.description,
      image,
      linkType: 'SMALL',
    });
  }
}
