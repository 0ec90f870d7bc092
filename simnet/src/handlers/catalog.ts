// xmlns=w:biz:catalog: the business catalog as the network answers linked devices. Reads (a
// business's products, paged; its collections) and the product mutations (add, edit, delete) follow
// the stanzas Baileys sends. WhatsApp's collection mutations and cart setting are not in any public
// client: simnet models them as `collection_add` / `collection_edit` / `collection_delete` and
// `catalog_settings` iqs of the same family (documented in simnet/README.md), so a gateway can be
// tested end to end; a network that does not know them answers an error, never a fake success.
import type { BinaryNode } from 'baileys';
import type { ClientConnection } from '../server/connection.js';
import type { SimnetContext } from '../server/context.js';
import { bytesOf, child, childNodes, iqError, iqResult } from '../server/stanza.js';
import { digitsOf } from '../network/jid.js';
import type { Account } from '../network/accounts.js';
import type { Catalog, CatalogCollection, CatalogProduct } from '../network/catalogs.js';

/** Where product images are served from, as WhatsApp's CDN names them (gateways map it to the media host). */
export const CDN_ORIGIN = 'https://mmg.whatsapp.net';
const MAX_PAGE = 100;

const text = (node: BinaryNode | undefined, tag: string): string | undefined => {
  const b = bytesOf(child(node, tag));
  return b === undefined ? undefined : b.toString('utf8');
};

/** A product node as the network shows it to `viewer`. */
export function productNode(p: CatalogProduct): BinaryNode {
  const field = (tag: string, value: string): BinaryNode => ({ tag, attrs: {}, content: Buffer.from(value) });
  const content: BinaryNode[] = [field('id', p.id), field('name', p.name), field('description', p.description)];
  if (p.retailerId) content.push(field('retailer_id', p.retailerId));
  if (p.url) content.push(field('url', p.url));
  content.push(field('price', p.price), field('currency', p.currency));
  content.push({
    tag: 'media',
    attrs: {},
    content: p.images.map((img) => {
      const url = imageUrl(img);
      return { tag: 'image', attrs: {}, content: [field('request_image_url', url), field('original_image_url', url)] };
    }),
  });
  content.push({ tag: 'status_info', attrs: {}, content: [field('status', 'APPROVED'), field('can_appeal', 'false')] });
  return { tag: 'product', attrs: { is_hidden: String(p.hidden) }, content };
}

/** A stored image (a direct path on the media host, or a URL given as is) as the URL clients get. */
export function imageUrl(stored: string): string {
  return stored.startsWith('/') ? `${CDN_ORIGIN}${stored}` : stored;
}

/** An image URL from a product node: uploads (WhatsApp's CDN or the media host) are kept by path. */
function storedImage(url: string, net: SimnetContext): string {
  try {
    const u = new URL(url);
    if (u.hostname.endsWith('.whatsapp.net') || u.host === net.media?.hostname) return u.pathname;
  } catch {
    // not a URL: kept as given
  }
  return url;
}

function collectionNode(c: CatalogCollection, catalog: Catalog, owner: boolean, itemLimit: number): BinaryNode {
  const products = c.productIds
    .map((id) => catalog.products.get(id))
    .filter((p): p is CatalogProduct => !!p && (owner || !p.hidden))
    .slice(0, itemLimit);
  return {
    tag: 'collection',
    attrs: {},
    content: [
      { tag: 'id', attrs: {}, content: Buffer.from(c.id) },
      { tag: 'name', attrs: {}, content: Buffer.from(c.name) },
      ...products.map(productNode),
      { tag: 'status_info', attrs: {}, content: [{ tag: 'status', attrs: {}, content: Buffer.from('APPROVED') }, { tag: 'can_appeal', attrs: {}, content: Buffer.from('false') }] },
    ],
  };
}

function limitOf(node: BinaryNode | undefined, tag: string, fallback: number): number {
  const n = Number(text(node, tag) ?? fallback);
  return Number.isInteger(n) && n > 0 ? Math.min(n, MAX_PAGE) : fallback;
}

/** The business a read names (`jid` / `biz_jid`), if it is one. */
function businessOf(net: SimnetContext, jid: string | undefined): Account | undefined {
  const acc = jid ? net.registry.byNumber(digitsOf(jid)) : undefined;
  return acc?.business ? acc : undefined;
}

export function handleCatalogIq(net: SimnetContext, conn: ClientConnection, node: BinaryNode): void {
  const me = conn.device?.account;
  if (!me) return void conn.sendNode(iqError(node, 401, 'not-authorized'));
  const first = childNodes(node)[0];
  if (node.attrs.type === 'get') {
    if (first?.tag === 'product_catalog') return readCatalog(net, conn, node, me, first);
    if (first?.tag === 'collections') return readCollections(net, conn, node, me, first);
    return void conn.sendNode(iqError(node, 400, 'bad-request'));
  }
  // Every change is the business's own: a personal account has no catalog to change.
  if (!me.business) return void conn.sendNode(iqError(node, 403, 'not-authorized'));
  const catalog = net.catalogs.of(me.phone);
  net.counters.inc(`catalog.${first?.tag ?? 'unknown'}`);
  switch (first?.tag) {
    case 'product_catalog_add':
      return addProduct(net, conn, node, catalog, first);
    case 'product_catalog_edit':
      return editProduct(net, conn, node, catalog, first);
    case 'product_catalog_delete': {
      const ids = childNodes(first).filter((p) => p.tag === 'product').map((p) => text(p, 'id') ?? '');
      const deleted = catalog.deleteProducts(ids);
      return void conn.sendNode(iqResult(node, [{ tag: 'product_catalog_delete', attrs: { deleted_count: String(deleted) } }]));
    }
    case 'collection_add':
    case 'collection_edit':
    case 'collection_delete':
      return changeCollection(conn, node, catalog, first);
    case 'catalog_settings': {
      const cart = text(first, 'cart_enabled');
      if (cart !== 'true' && cart !== 'false') return void conn.sendNode(iqError(node, 400, 'bad-request'));
      catalog.cartEnabled = cart === 'true';
      return void conn.sendNode(iqResult(node, [{ tag: 'catalog_settings', attrs: {}, content: [{ tag: 'cart_enabled', attrs: {}, content: Buffer.from(cart) }] }]));
    }
    default:
      conn.sendNode(iqError(node, 400, 'bad-request'));
  }
}

function readCatalog(net: SimnetContext, conn: ClientConnection, node: BinaryNode, me: Account, q: BinaryNode): void {
  const owner = businessOf(net, q.attrs.jid);
  if (!owner) return void conn.sendNode(iqError(node, 404, 'item-not-found'));
  net.counters.inc('catalog.read');
  const catalog = net.catalogs.find(owner.phone);
  const all = catalog?.visibleProducts(owner === me) ?? [];
  const limit = limitOf(q, 'limit', 10);
  const after = text(q, 'after');
  const start = after ? Number(Buffer.from(after, 'base64url').toString('utf8')) : 0;
  if (!Number.isInteger(start) || start < 0) return void conn.sendNode(iqError(node, 400, 'bad-request'));
  const page = all.slice(start, start + limit);
  const content: BinaryNode[] = page.map(productNode);
  if (start + limit < all.length) {
    content.push({ tag: 'paging', attrs: {}, content: [{ tag: 'after', attrs: {}, content: Buffer.from(Buffer.from(String(start + limit)).toString('base64url')) }] });
  }
  conn.sendNode(iqResult(node, [{ tag: 'product_catalog', attrs: { cart_enabled: String(catalog?.cartEnabled ?? true) }, content }]));
}

function readCollections(net: SimnetContext, conn: ClientConnection, node: BinaryNode, me: Account, q: BinaryNode): void {
  const owner = businessOf(net, q.attrs.biz_jid);
  if (!owner) return void conn.sendNode(iqError(node, 404, 'item-not-found'));
  net.counters.inc('catalog.collections');
  const catalog = net.catalogs.find(owner.phone);
  const collections = [...(catalog?.collections.values() ?? [])].slice(0, limitOf(q, 'collection_limit', 51));
  const items = limitOf(q, 'item_limit', 51);
  conn.sendNode(iqResult(node, [{ tag: 'collections', attrs: {}, content: collections.map((c) => collectionNode(c, catalog!, owner === me, items)) }]));
}

/** The fields of a product node (what is present), images kept by path when uploaded. */
function fieldsOf(net: SimnetContext, p: BinaryNode): Partial<Omit<CatalogProduct, 'id'>> {
  const out: Partial<Omit<CatalogProduct, 'id'>> = {};
  const name = text(p, 'name');
  if (name !== undefined) out.name = name;
  const description = text(p, 'description');
  if (description !== undefined) out.description = description;
  const retailerId = text(p, 'retailer_id');
  if (retailerId !== undefined) out.retailerId = retailerId;
  const url = text(p, 'url');
  if (url !== undefined) out.url = url;
  const price = text(p, 'price');
  if (price !== undefined) out.price = price;
  const currency = text(p, 'currency');
  if (currency !== undefined) out.currency = currency;
  const media = child(p, 'media');
  if (media) out.images = childNodes(media).filter((i) => i.tag === 'image').map((i) => storedImage(text(i, 'url') ?? '', net)).filter(Boolean);
  if (p.attrs.is_hidden !== undefined) out.hidden = p.attrs.is_hidden === 'true';
  return out;
}

/** What the real server refuses in a product: no name, a price that is not a whole number, a currency that is not ISO 4217. */
function invalid(p: Partial<Omit<CatalogProduct, 'id'>>): string | undefined {
  if (p.name !== undefined && !p.name.trim()) return 'name';
  if (p.price !== undefined && !/^\d{1,15}$/.test(p.price)) return 'price';
  if (p.currency !== undefined && !/^[A-Z]{3}$/.test(p.currency)) return 'currency';
  return undefined;
}

function addProduct(net: SimnetContext, conn: ClientConnection, node: BinaryNode, catalog: Catalog, op: BinaryNode): void {
  const fields = fieldsOf(net, child(op, 'product') ?? { tag: 'product', attrs: {} });
  if (!fields.name || invalid(fields) || !fields.images?.length) return void conn.sendNode(iqError(node, 400, 'bad-request'));
  let product: CatalogProduct;
  try {
    product = catalog.addProduct({ ...fields, name: fields.name, images: fields.images });
  } catch {
    return void conn.sendNode(iqError(node, 406, 'not-acceptable'));
  }
  conn.sendNode(iqResult(node, [{ tag: 'product_catalog_add', attrs: {}, content: [productNode(product)] }]));
}

function editProduct(net: SimnetContext, conn: ClientConnection, node: BinaryNode, catalog: Catalog, op: BinaryNode): void {
  const p = child(op, 'product');
  const product = catalog.products.get(text(p, 'id') ?? '');
  if (!p || !product) return void conn.sendNode(iqError(node, 404, 'item-not-found'));
  const fields = fieldsOf(net, p);
  if (invalid(fields) || (fields.images && fields.images.length === 0)) return void conn.sendNode(iqError(node, 400, 'bad-request'));
  Object.assign(product, fields);
  conn.sendNode(iqResult(node, [{ tag: 'product_catalog_edit', attrs: {}, content: [productNode(product)] }]));
}

/** Product ids under `<tag><product><id/></product>…</tag>` of a collection node. */
function productIds(node: BinaryNode | undefined): string[] {
  return childNodes(node).filter((p) => p.tag === 'product').map((p) => text(p, 'id') ?? '');
}

function changeCollection(conn: ClientConnection, node: BinaryNode, catalog: Catalog, op: BinaryNode): void {
  const c = child(op, 'collection');
  const answer = (collection: CatalogCollection | null): void =>
    conn.sendNode(iqResult(node, [{ tag: op.tag, attrs: {}, content: collection ? [{ tag: 'collection', attrs: {}, content: [{ tag: 'id', attrs: {}, content: Buffer.from(collection.id) }] }] : [] }]));
  if (op.tag === 'collection_add') {
    const name = text(c, 'name')?.trim();
    const ids = productIds(c);
    if (!name || ids.some((id) => !catalog.products.has(id))) return void conn.sendNode(iqError(node, 400, 'bad-request'));
    try {
      return answer(catalog.addCollection(name, ids));
    } catch {
      return void conn.sendNode(iqError(node, 406, 'not-acceptable'));
    }
  }
  const id = text(c, 'id') ?? '';
  const existing = catalog.collections.get(id);
  if (!existing) return void conn.sendNode(iqError(node, 404, 'item-not-found'));
  if (op.tag === 'collection_delete') {
    catalog.collections.delete(id);
    return answer(null);
  }
  const name = text(c, 'name');
  if (name !== undefined && !name.trim()) return void conn.sendNode(iqError(node, 400, 'bad-request'));
  const add = productIds(child(c, 'add'));
  const remove = productIds(child(c, 'remove'));
  if (add.some((p) => !catalog.products.has(p))) return void conn.sendNode(iqError(node, 400, 'bad-request'));
  if (name !== undefined) existing.name = name.trim();
  answer(add.length || remove.length ? catalog.changeCollectionProducts(id, add, remove)! : existing);
}
