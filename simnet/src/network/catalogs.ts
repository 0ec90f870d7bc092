// Business catalogs: each WhatsApp Business account's products (with their images, price, retailer
// id, link and hidden flag), its collections of products and its cart setting, as the network keeps
// them. Ids are the long numeric strings WhatsApp gives products and collections.
import { randomInt } from 'node:crypto';

/** A product as the network stores it. `price` is in thousandths of the currency unit, as the stanza carries it. */
export interface CatalogProduct {
  id: string;
  name: string;
  description: string;
  price: string;
  currency: string;
  retailerId: string;
  url: string;
  /** Direct paths on the media host (or the URLs the business gave, when not uploaded here). */
  images: string[];
  hidden: boolean;
}

export interface CatalogCollection {
  id: string;
  name: string;
  productIds: string[];
}

/** What a seed or a linked device gives for a new product (the network assigns the id). */
export type ProductFields = Omit<CatalogProduct, 'id'>;

/** Bounds per catalog, so a runaway test cannot grow one without end. */
export const MAX_PRODUCTS = 1000;
export const MAX_COLLECTIONS = 100;

export class Catalog {
  readonly products = new Map<string, CatalogProduct>();
  readonly collections = new Map<string, CatalogCollection>();
  cartEnabled = true;

  /** Adds a product; fields left out get WhatsApp's defaults (no price, BRL, visible). */
  addProduct(fields: Partial<ProductFields> & Pick<ProductFields, 'name' | 'images'>): CatalogProduct {
    if (this.products.size >= MAX_PRODUCTS) throw new Error(`a catalog holds at most ${MAX_PRODUCTS} products`);
    const product: CatalogProduct = {
      id: newId(this.products),
      name: fields.name,
      description: fields.description ?? '',
      price: fields.price ?? '0',
      currency: fields.currency ?? 'BRL',
      retailerId: fields.retailerId ?? '',
      url: fields.url ?? '',
      images: fields.images,
      hidden: fields.hidden ?? false,
    };
    this.products.set(product.id, product);
    return product;
  }

  /** Deletes the products that exist (and takes them out of every collection); answers how many. */
  deleteProducts(ids: readonly string[]): number {
    let deleted = 0;
    for (const id of ids) if (this.products.delete(id)) deleted++;
    for (const c of this.collections.values()) c.productIds = c.productIds.filter((p) => this.products.has(p));
    return deleted;
  }

  addCollection(name: string, productIds: readonly string[]): CatalogCollection {
    if (this.collections.size >= MAX_COLLECTIONS) throw new Error(`a catalog holds at most ${MAX_COLLECTIONS} collections`);
    const collection = { id: newId(this.collections), name, productIds: [...new Set(productIds)] };
    this.collections.set(collection.id, collection);
    return collection;
  }

  /**
   * Changes which products a collection holds. WhatsApp gives the collection a new id when its
   * products change (Z-API documents it: use the id answered); the name alone keeps the id.
   */
  changeCollectionProducts(id: string, add: readonly string[], remove: readonly string[]): CatalogCollection | undefined {
    const old = this.collections.get(id);
    if (!old) return undefined;
    const gone = new Set(remove);
    const productIds = [...new Set([...old.productIds.filter((p) => !gone.has(p)), ...add])];
    this.collections.delete(id);
    const renewed = { id: newId(this.collections), name: old.name, productIds };
    this.collections.set(renewed.id, renewed);
    return renewed;
  }

  /** Products visible to `viewerIsOwner`: others do not see hidden products. */
  visibleProducts(viewerIsOwner: boolean): CatalogProduct[] {
    return [...this.products.values()].filter((p) => viewerIsOwner || !p.hidden);
  }
}

function newId(taken: Map<string, unknown>): string {
  let id: string;
  do id = `${randomInt(1, 10)}${String(randomInt(0, 2 ** 47)).padStart(15, '0').slice(0, 15)}`;
  while (taken.has(id));
  return id;
}

/** Every business account's catalog, by phone; created on first use. */
export class CatalogStore {
  private readonly byPhone = new Map<string, Catalog>();

  of(phone: string): Catalog {
    let c = this.byPhone.get(phone);
    if (!c) {
      c = new Catalog();
      this.byPhone.set(phone, c);
    }
    return c;
  }

  /** The catalog if the account ever had one (reads must not create one). */
  find(phone: string): Catalog | undefined {
    return this.byPhone.get(phone);
  }
}
