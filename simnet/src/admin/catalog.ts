// Admin routes for business catalogs: read what a business's catalog holds (so a test checks a
// product created through a linked device on the network's side), and seed products and
// collections as the business's phone would make them (to test reading another business's catalog).
import type { SimnetContext } from '../server/context.js';
import { HttpError } from '../http-error.js';
import { imageUrl } from '../handlers/catalog.js';
import { digitsOf } from '../network/jid.js';
import type { Catalog, CatalogProduct } from '../network/catalogs.js';

/** A product as the admin API shows it: the network's fields, `images` as clients get them (WhatsApp's CDN origin for uploaded ones). */
export type CatalogProductInfo = CatalogProduct;

export interface CatalogInfo {
  phone: string;
  cartEnabled: boolean;
  products: CatalogProductInfo[];
  collections: { id: string; name: string; productIds: string[] }[];
}

export interface SeedProductRequest {
  name: string;
  description?: string;
  /** Thousandths of the currency unit (e.g. "20000" is 20.00). */
  price?: string;
  currency?: string;
  retailerId?: string;
  url?: string;
  /** Base64 image bytes, stored on the media host as an uploaded product image. */
  imagesBase64?: string[];
  hidden?: boolean;
}

export interface SeedCollectionRequest {
  name: string;
  productIds: string[];
}

function productInfo(p: CatalogProduct): CatalogProductInfo {
  return { ...p, images: p.images.map(imageUrl) };
}

function info(phone: string, c: Catalog): CatalogInfo {
  return {
    phone,
    cartEnabled: c.cartEnabled,
    products: [...c.products.values()].map(productInfo),
    collections: [...c.collections.values()].map((x) => ({ id: x.id, name: x.name, productIds: [...x.productIds] })),
  };
}

/** Answers a catalog admin route, or undefined when the path is not one. */
export function catalogAdminRoute(net: SimnetContext, method: string, parts: string[], body: Record<string, unknown>): unknown {
  const [a, phoneRaw, c, d] = parts;
  if (a !== 'users' || !phoneRaw || c !== 'catalog') return undefined;
  const acc = net.registry.byNumber(digitsOf(phoneRaw));
  if (!acc) throw new HttpError(404, `no such user ${phoneRaw}`);
  if (method === 'GET' && !d) return info(acc.phone, net.catalogs.find(acc.phone) ?? net.catalogs.of(acc.phone));
  if (!acc.business) throw new HttpError(409, `${acc.phone} is not a business account`);
  const catalog = net.catalogs.of(acc.phone);
  if (method === 'POST' && d === 'products') {
    const req = body as unknown as SeedProductRequest;
    if (typeof req.name !== 'string' || !req.name.trim()) throw new HttpError(400, 'name required');
    const images = (req.imagesBase64 ?? []).map((b64) => {
      const bytes = Buffer.from(b64, 'base64');
      return net.media ? net.media.put(bytes, 'product', { uploader: acc.phone }) : `/v/t62.product-24/${bytes.length}.jpg`;
    });
    try {
      return productInfo(
        catalog.addProduct({
          name: req.name,
          description: req.description,
          price: req.price,
          currency: req.currency,
          retailerId: req.retailerId,
          url: req.url,
          images,
          hidden: req.hidden === true,
        }),
      );
    } catch (e) {
      throw new HttpError(409, (e as Error).message);
    }
  }
  if (method === 'POST' && d === 'collections') {
    const req = body as unknown as SeedCollectionRequest;
    if (typeof req.name !== 'string' || !req.name.trim()) throw new HttpError(400, 'name required');
    const ids = Array.isArray(req.productIds) ? req.productIds.map(String) : [];
    const unknown = ids.find((id) => !catalog.products.has(id));
    if (unknown) throw new HttpError(404, `no product ${unknown} in ${acc.phone}'s catalog`);
    try {
      const col = catalog.addCollection(req.name.trim(), ids);
      return { id: col.id, name: col.name, productIds: [...col.productIds] };
    } catch (e) {
      throw new HttpError(409, (e as Error).message);
    }
  }
  return undefined;
}
