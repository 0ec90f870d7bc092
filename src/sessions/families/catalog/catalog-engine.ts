// CatalogPort over the Baileys engine. Products are created, changed and deleted with the stanzas
// of Baileys' own catalog mutations (plus the product's link, which Baileys' node leaves out); their images are fetched through the outgoing-media pipeline (address guard,
// size and pixel limits) and handed to Baileys as bytes, which it uploads as product images, so
// Baileys never fetches a URL itself. Reads send the same w:biz:catalog queries as Baileys'
// getCatalog/getCollections but parse every image and the cart setting, which Baileys' parser
// drops. Collection changes and the cart setting have no Baileys call: they are iqs of the same
// family as simnet models them (a network that does not know them answers an error → 422).
import { createHash, randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request, type Dispatcher } from 'undici';
import { getBinaryNodeChild, getBinaryNodeChildren, getBinaryNodeChildString, getUrlFromDirectPath, jidNormalizedUser, type BinaryNode, type ProductCreate, type ProductUpdate, type WAMediaUpload } from 'baileys';
// Not re-exported by the package root: the product node Baileys' own productCreate sends.
import { toProductNode } from 'baileys/lib/Utils/business.js';
import { DomainError, errors } from '../../../errors.js';
import type { CatalogCollection, CatalogPage, CatalogPort, CatalogProduct, ProductInput, ProductSnapshot } from './catalog-port.js';
import { phoneJid } from '../../jids.js';
import type { MediaPipeline } from '../../outbound/media.js';
import { mediaError, sessionCommands, type SessionCommands, type CommandLimit } from '../../engine-call.js';
import type { LiveSession } from '../../live-session.js';
import type { WASocket } from '../../link/socket-config.js';

interface CatalogEngineDeps extends CommandLimit {
  sessionOf(instanceId: string): LiveSession | undefined;
  media: MediaPipeline;
  /** Fetches from the network's CDN (product images); undefined: the default one (WhatsApp's own). */
  cdn?: Dispatcher | undefined;
}

const XMLNS = 'w:biz:catalog';
/** Thumbnail size the queries ask for, as WhatsApp's clients do. */
const SIZE = [
  { tag: 'width', attrs: {}, content: Buffer.from('100') },
  { tag: 'height', attrs: {}, content: Buffer.from('100') },
];
const COLLECTION_LIMIT = 100;

export class CatalogEngine implements CatalogPort {
  private readonly commands: SessionCommands;

  constructor(private readonly deps: CatalogEngineDeps) {
    this.commands = sessionCommands(deps);
  }

  private own(session: LiveSession): string {
    const id = session.creds?.me?.id;
    if (!id) throw errors.notConnected();
    return jidNormalizedUser(id);
  }

  isBusiness(instanceId: string): boolean {
    const session = this.commands.open(instanceId);
    // The phone names its platform at pairing: smba / smbi are WhatsApp Business (Android / iOS).
    return (session.creds?.platform ?? '').startsWith('smb');
  }

  products(instanceId: string, phone: string | null, cursor: string | null, limit: number): Promise<CatalogPage> {
    return this.commands.run(instanceId, async (sock, session) => {
      const jid = phone ? phoneJid(phone) : this.own(session);
      const params: BinaryNode[] = [{ tag: 'limit', attrs: {}, content: Buffer.from(String(limit)) }, ...SIZE];
      if (cursor) params.push({ tag: 'after', attrs: {}, content: cursor });
      const answer = (await query(sock, phone, { tag: 'iq', attrs: { to: 's.whatsapp.net', type: 'get', xmlns: XMLNS }, content: [{ tag: 'product_catalog', attrs: { jid, allow_shop_source: 'true' }, content: params }] })) as BinaryNode;
      const node = getBinaryNodeChild(answer, 'product_catalog');
      const paging = getBinaryNodeChild(node, 'paging');
      return {
        cartEnabled: node?.attrs.cart_enabled !== 'false',
        products: getBinaryNodeChildren(node, 'product').map(productOf),
        nextCursor: (paging && getBinaryNodeChildString(paging, 'after')) || null,
      };
    });
  }

  collections(instanceId: string, phone: string | null): Promise<CatalogCollection[]> {
    return this.commands.run(instanceId, async (sock, session) => {
      const jid = phone ? phoneJid(phone) : this.own(session);
      const limit = (tag: string): BinaryNode => ({ tag, attrs: {}, content: Buffer.from(String(COLLECTION_LIMIT)) });
      const answer = (await query(sock, phone, {
        tag: 'iq',
        attrs: { to: 's.whatsapp.net', type: 'get', xmlns: XMLNS, smax_id: '35' },
        content: [{ tag: 'collections', attrs: { biz_jid: jid }, content: [limit('collection_limit'), limit('item_limit'), ...SIZE] }],
      })) as BinaryNode;
      return getBinaryNodeChildren(getBinaryNodeChild(answer, 'collections'), 'collection').map((c) => ({
        id: getBinaryNodeChildString(c, 'id') ?? '',
        name: getBinaryNodeChildString(c, 'name') ?? '',
        status: getBinaryNodeChildString(getBinaryNodeChild(c, 'status_info'), 'status') ?? 'APPROVED',
        products: getBinaryNodeChildren(c, 'product').map(productOf),
      }));
    });
  }

  async createProduct(instanceId: string, input: ProductInput): Promise<CatalogProduct> {
    const images = await this.images(instanceId, input.images);
    return this.commands.run(instanceId, (sock) => saveProduct(sock, undefined, { ...fields(input), images, originCountryCode: undefined }, input.url));
  }

  async updateProduct(instanceId: string, productId: string, input: ProductInput): Promise<CatalogProduct> {
    const images = await this.images(instanceId, input.images);
    return this.commands.run(instanceId, (sock) => saveProduct(sock, productId, { ...fields(input), images }, input.url));
  }

  deleteProducts(instanceId: string, productIds: readonly string[]): Promise<number> {
    return this.commands.run(instanceId, async (sock) => (await sock.productDelete([...productIds])).deleted);
  }

  createCollection(instanceId: string, name: string, productIds: readonly string[]): Promise<string> {
    return this.commands.run(instanceId, async (sock) => {
      const answer = await set(sock, 'collection_add', [text('name', name), ...productIds.map(productRef)]);
      return collectionIdOf(answer, 'collection_add');
    });
  }

  editCollection(instanceId: string, collectionId: string, change: { name?: string; add?: readonly string[]; remove?: readonly string[] }): Promise<string> {
    return this.commands.run(instanceId, async (sock) => {
      const content = [text('id', collectionId)];
      if (change.name !== undefined) content.push(text('name', change.name));
      if (change.add?.length) content.push({ tag: 'add', attrs: {}, content: change.add.map(productRef) });
      if (change.remove?.length) content.push({ tag: 'remove', attrs: {}, content: change.remove.map(productRef) });
      return collectionIdOf(await set(sock, 'collection_edit', content), 'collection_edit');
    });
  }

  deleteCollection(instanceId: string, collectionId: string): Promise<void> {
    return this.commands.run(instanceId, async (sock) => {
      await set(sock, 'collection_delete', [text('id', collectionId)]);
    });
  }

  setCartEnabled(instanceId: string, enabled: boolean): Promise<void> {
    return this.commands.run(instanceId, async (sock) => {
      await sock.query({ tag: 'iq', attrs: { to: 's.whatsapp.net', type: 'set', xmlns: XMLNS }, content: [{ tag: 'catalog_settings', attrs: { v: '1' }, content: [text('cart_enabled', String(enabled))] }] });
    });
  }

  async productSnapshot(instanceId: string, phone: string, productId: string): Promise<ProductSnapshot> {
    // Pages through the business's catalog (bounded) for the product: WhatsApp has no by-id read.
    let cursor: string | null = null;
    for (let page = 0; page < 20; page++) {
      const found: CatalogPage = await this.products(instanceId, phone, cursor, 100);
      const product = found.products.find((p) => p.id === productId);
      if (product) {
        const first = product.images[0];
        if (!first) throw errors.networkRefused(`product ${productId} has no image`);
        const bytes = await this.deps.media.hold(() => this.download(first));
        return { product, image: `data:image/jpeg;base64,${bytes.toString('base64')}` };
      }
      if (!found.nextCursor) break;
      cursor = found.nextCursor;
    }
    throw errors.notFound(`Product ${productId} not found in the catalog of ${phone}`);
  }

  /** Images for Baileys: the network's own URLs as they are; anything else fetched and checked here. */
  private async images(instanceId: string, refs: readonly string[]): Promise<WAMediaUpload[]> {
    this.commands.open(instanceId);
    return this.deps.media.hold(async () => {
      const out: WAMediaUpload[] = [];
      for (const [i, ref] of refs.entries()) {
        if (isCdn(ref)) {
          out.push({ url: ref });
          continue;
        }
        try {
          out.push((await this.deps.media.image(ref, `images[${i}]`)).data);
        } catch (err) {
          throw mediaError(err);
        }
      }
      return out;
    });
  }

  /** A product image from the network's CDN (trusted like received media), or through the media guard. */
  private async download(url: string): Promise<Buffer> {
    const max = this.deps.media.limits.maxBytes;
    if (!isCdn(url)) {
      try {
        return await this.deps.media.load(url, 'product image');
      } catch (err) {
        throw mediaError(err);
      }
    }
    try {
      const res = await request(url, { ...(this.deps.cdn ? { dispatcher: this.deps.cdn } : {}), headersTimeout: this.deps.commandTimeoutMs, bodyTimeout: this.deps.commandTimeoutMs });
      if (res.statusCode !== 200) {
        await res.body.dump();
        throw errors.upstreamUnavailable(`product image: the network answered ${res.statusCode}`, 5);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > max) {
          res.body.destroy();
          throw errors.networkRefused(`product image: more than the limit of ${max} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
      return Buffer.concat(chunks);
    } catch (err) {
      if (err instanceof DomainError) throw err;
      throw errors.upstreamUnavailable(`product image: ${(err as Error).message}`, 5);
    }
  }
}

/** A URL on WhatsApp's media CDN (what the network gives for product images). */
function isCdn(ref: string): boolean {
  try {
    const u = new URL(ref);
    return u.protocol === 'https:' && u.hostname.endsWith('.whatsapp.net');
  } catch {
    return false;
  }
}

/**
 * Baileys' productCreate/productUpdate, with the product's link: its toProductNode leaves `url`
 * out although the network's product carries one (its own parser reads it back). The answer's
 * product is parsed with every image.
 */
async function saveProduct(sock: WASocket, productId: string | undefined, product: ProductCreate | ProductUpdate, url: string | undefined): Promise<CatalogProduct> {
  const node = toProductNode(productId, { ...product, images: await uploadImages(sock, product.images) });
  if (url !== undefined && Array.isArray(node.content)) node.content.push(text('url', url));
  const tag = productId === undefined ? 'product_catalog_add' : 'product_catalog_edit';
  const answer = (await sock.query({ tag: 'iq', attrs: { to: 's.whatsapp.net', type: 'set', xmlns: XMLNS }, content: [{ tag, attrs: { v: '1' }, content: [node, ...SIZE] }] })) as BinaryNode;
  const saved = getBinaryNodeChild(getBinaryNodeChild(answer, tag), 'product');
  if (!saved) throw errors.networkRefused('the network did not answer the product');
  return productOf(saved);
}

/**
 * Uploads image bytes as product images and answers every image as a CDN URL. Not Baileys'
 * uploadingNecessaryImages: it starts the upload before its temporary file is written out, so an
 * upload now and then reads a missing or short file (seen as "Media upload failed on all hosts").
 */
async function uploadImages(sock: WASocket, images: readonly WAMediaUpload[]): Promise<{ url: string }[]> {
  const out: { url: string }[] = [];
  for (const img of images) {
    if (!Buffer.isBuffer(img)) {
      if (!('url' in img)) throw errors.invalidInput('images: a product image must be bytes or a URL');
      out.push({ url: img.url.toString() });
      continue;
    }
    const file = join(tmpdir(), `zapgate-product-${randomUUID()}`);
    try {
      await writeFile(file, img, { mode: 0o600 });
      const sha = createHash('sha256').update(img).digest('base64');
      const { directPath } = await sock.waUploadToServer(file, { mediaType: 'product-catalog-image', fileEncSha256B64: sha });
      out.push({ url: getUrlFromDirectPath(directPath) });
    } finally {
      await rm(file, { force: true });
    }
  }
  return out;
}

/** The business read is refused for a number with no catalog: said in the domain's words. */
async function query(sock: WASocket, phone: string | null, node: BinaryNode): Promise<unknown> {
  try {
    return await sock.query(node);
  } catch (err) {
    const code = (err as { data?: unknown }).data;
    if (code === 404) throw errors.networkRefused(`${phone ?? 'this number'} has no catalog: it is not a WhatsApp Business account`, err);
    throw err;
  }
}

function set(sock: WASocket, tag: string, content: BinaryNode[]): Promise<BinaryNode> {
  return sock.query({ tag: 'iq', attrs: { to: 's.whatsapp.net', type: 'set', xmlns: XMLNS }, content: [{ tag, attrs: { v: '1' }, content: [{ tag: 'collection', attrs: {}, content }] }] }) as Promise<BinaryNode>;
}

function collectionIdOf(answer: BinaryNode, tag: string): string {
  const id = getBinaryNodeChildString(getBinaryNodeChild(getBinaryNodeChild(answer, tag), 'collection'), 'id');
  if (!id) throw errors.networkRefused('the network did not answer the collection id');
  return id;
}

function text(tag: string, value: string): BinaryNode {
  return { tag, attrs: {}, content: Buffer.from(value) };
}

function productRef(id: string): BinaryNode {
  return { tag: 'product', attrs: {}, content: [text('id', id)] };
}

function fields(input: ProductInput): { name: string; description: string; price: number; currency: string; isHidden: boolean; retailerId?: string } {
  return {
    name: input.name,
    description: input.description,
    price: input.price,
    currency: input.currency,
    isHidden: input.isHidden,
    ...(input.retailerId !== undefined ? { retailerId: input.retailerId } : {}),
  };
}

/** A <product> node, every image included. */
function productOf(p: BinaryNode): CatalogProduct {
  const images = getBinaryNodeChildren(getBinaryNodeChild(p, 'media'), 'image')
    .map((i) => getBinaryNodeChildString(i, 'original_image_url') ?? getBinaryNodeChildString(i, 'request_image_url') ?? '')
    .filter(Boolean);
  return {
    id: getBinaryNodeChildString(p, 'id') ?? '',
    name: getBinaryNodeChildString(p, 'name') ?? '',
    description: getBinaryNodeChildString(p, 'description') ?? '',
    price: getBinaryNodeChildString(p, 'price') ?? '0',
    currency: getBinaryNodeChildString(p, 'currency') ?? '',
    retailerId: getBinaryNodeChildString(p, 'retailer_id') || null,
    url: getBinaryNodeChildString(p, 'url') || null,
    images,
    isHidden: p.attrs.is_hidden === 'true',
    reviewStatus: getBinaryNodeChildString(getBinaryNodeChild(p, 'status_info'), 'status') ?? null,
  };
}
