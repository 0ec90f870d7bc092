// What services may ask of the engine about WhatsApp Business catalogs: read a business's products
// (paged) and collections, change the account's own products, collections and cart setting, and
// tell whether the paired account is a business one. The Baileys engine is catalog-engine.ts.
import { errors } from '../../../errors.js';

/** A product as the network shows it. `price` is in thousandths of the currency unit (WhatsApp's unit). */
export interface CatalogProduct {
  id: string;
  name: string;
  description: string;
  price: string;
  currency: string;
  retailerId: string | null;
  url: string | null;
  /** Image URLs on the network's CDN. */
  images: string[];
  isHidden: boolean;
  /** The network's review of the product ("APPROVED", "PENDING", "REJECTED"). */
  reviewStatus: string | null;
}

export interface CatalogPage {
  cartEnabled: boolean;
  products: CatalogProduct[];
  /** Where the next page starts; null on the last page. */
  nextCursor: string | null;
}

export interface CatalogCollection {
  id: string;
  name: string;
  status: string;
  products: CatalogProduct[];
}

/** A product to create or change. `price` in thousandths; `images` are URLs or data URIs (fetched through the media guard). */
export interface ProductInput {
  name: string;
  description: string;
  price: number;
  currency: string;
  images: string[];
  isHidden: boolean;
  retailerId?: string;
  url?: string;
}

/** A product ready to be sent as a product message: its fields, and its first image's bytes. */
export interface ProductSnapshot {
  product: CatalogProduct;
  /** data URI of the product's first image, as the network serves it. */
  image: string;
}

export interface CatalogPort {
  /** The paired account is a WhatsApp Business one (the platform it reported at pairing). Needs the session. */
  isBusiness(instanceId: string): boolean;
  /** A business's catalog (`phone` null: the account's own). */
  products(instanceId: string, phone: string | null, cursor: string | null, limit: number): Promise<CatalogPage>;
  collections(instanceId: string, phone: string | null): Promise<CatalogCollection[]>;
  createProduct(instanceId: string, input: ProductInput): Promise<CatalogProduct>;
  updateProduct(instanceId: string, productId: string, input: ProductInput): Promise<CatalogProduct>;
  /** How many of the ids the network deleted. */
  deleteProducts(instanceId: string, productIds: readonly string[]): Promise<number>;
  /** Answers the new collection's id. */
  createCollection(instanceId: string, name: string, productIds: readonly string[]): Promise<string>;
  /** Renames and/or changes the products of a collection; answers its id afterwards (WhatsApp renews it when products change). */
  editCollection(instanceId: string, collectionId: string, change: { name?: string; add?: readonly string[]; remove?: readonly string[] }): Promise<string>;
  deleteCollection(instanceId: string, collectionId: string): Promise<void>;
  setCartEnabled(instanceId: string, enabled: boolean): Promise<void>;
  /** One product of a business's catalog with its image, for a product message. */
  productSnapshot(instanceId: string, phone: string, productId: string): Promise<ProductSnapshot>;
}

/** No engine: nothing is connected. */
export function offlineCatalog(): CatalogPort {
  const refuse = async (): Promise<never> => {
    throw errors.notConnected();
  };
  return {
    isBusiness: () => {
      throw errors.notConnected();
    },
    products: refuse,
    collections: refuse,
    createProduct: refuse,
    updateProduct: refuse,
    deleteProducts: refuse,
    createCollection: refuse,
    editCollection: refuse,
    deleteCollection: refuse,
    setCartEnabled: refuse,
    productSnapshot: refuse,
  };
}
