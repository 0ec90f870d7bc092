// CatalogService's rules without a network: input is refused before anything is asked of the engine,
// a personal account is refused before any change, prices go to the network in thousandths, and a
// catalog message is the wa.me/c link with the first product's picture.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DomainError } from '../../src/errors.js';
import { CatalogService } from '../../src/services/catalog-service.js';
import type { CatalogPort, CatalogProduct, ProductInput } from '../../src/sessions/families/catalog/catalog-port.js';
import type { OutgoingContent } from '../../src/domain/outgoing.js';
import type { Instance } from '../../src/domain/instance.js';

const PRODUCT: CatalogProduct = {
  id: '111222333444',
  name: 'Mouse',
  description: 'A mouse',
  price: '20000',
  currency: 'BRL',
  retailerId: '002',
  url: null,
  images: ['https://mmg.whatsapp.net/v/t62.product-24/a.enc'],
  isHidden: false,
  reviewStatus: 'APPROVED',
};

function fake(business: boolean) {
  const calls: string[] = [];
  const created: ProductInput[] = [];
  const sent: OutgoingContent[] = [];
  const port: CatalogPort = {
    isBusiness: () => business,
    products: async (_i, phone) => {
      calls.push(`products:${phone ?? 'own'}`);
      return { cartEnabled: true, products: [PRODUCT], nextCursor: null };
    },
    collections: async () => [],
    createProduct: async (_i, input) => {
      calls.push('create');
      created.push(input);
      return { ...PRODUCT, id: '999' };
    },
    updateProduct: async () => PRODUCT,
    deleteProducts: async () => 1,
    createCollection: async () => '1',
    editCollection: async () => '2',
    deleteCollection: async () => undefined,
    setCartEnabled: async () => {
      calls.push('cart');
    },
    productSnapshot: async () => ({ product: PRODUCT, image: 'data:image/jpeg;base64,AAAA' }),
  };
  const messages = {
    send: async (_inst: Instance, _c: unknown, content: OutgoingContent) => {
      sent.push(content);
      return { zaapId: 'z', messageId: 'm', id: 'm' };
    },
  };
  return { service: new CatalogService(port, messages), calls, created, sent };
}

const body = { name: 'Mouse', price: 20.5, currency: 'brl', description: ' A mouse ', images: ['https://example.com/a.jpg'] };

async function rejects(p: Promise<unknown>, code: string, what: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => e instanceof DomainError && e.code === code, what);
}

describe('CatalogService', () => {
  test('a product goes to the network with the price in thousandths and the currency upper-cased', async () => {
    const f = fake(true);
    assert.deepEqual(await f.service.saveProduct('i', body), { id: '999' });
    assert.deepEqual(f.created[0] && { price: f.created[0].price, currency: f.created[0].currency, description: f.created[0].description }, { price: 20500, currency: 'BRL', description: 'A mouse' });
  });

  test('bad input is refused (400) before the account or the network is asked', async () => {
    const f = fake(false);
    await rejects(f.service.saveProduct('i', { ...body, currency: 'R$' }), 'invalid_input', 'currency');
    await rejects(f.service.saveProduct('i', { ...body, images: ['ftp://x/a.jpg'] }), 'invalid_input', 'image scheme');
    await rejects(f.service.saveProduct('i', { ...body, id: 'abc' }), 'invalid_input', 'id');
    await rejects(f.service.createCollection('i', 'C', ['1', '1']), 'invalid_input', 'repeated ids');
    await rejects(f.service.products('i', null, 'not a cursor!'), 'invalid_input', 'cursor');
    assert.deepEqual(f.calls, [], 'nothing was asked of the network');
  });

  test('a personal account is refused (403) and nothing is changed; another business is still readable', async () => {
    const f = fake(false);
    await rejects(f.service.saveProduct('i', body), 'not_business', 'create');
    await rejects(f.service.setCart('i', false), 'not_business', 'cart');
    await rejects(f.service.products('i', null, undefined), 'not_business', 'own catalog');
    assert.deepEqual(f.calls, []);
    assert.equal((await f.service.products('i', '5511999999999', undefined)).products[0]?.id, PRODUCT.id);
  });

  test('send-catalog queues the wa.me/c link, titled per translation, with the first product\'s picture', async () => {
    const f = fake(false);
    await f.service.sendCatalog({ id: 'i' } as Instance, { phone: '5511888888888' }, { catalogPhone: '5511999999999', translation: 'PT' });
    assert.deepEqual(f.sent[0], {
      type: 'link',
      message: 'https://wa.me/c/5511999999999',
      linkUrl: 'https://wa.me/c/5511999999999',
      title: 'Ver catálogo',
      linkDescription: 'Confira produtos e serviços no WhatsApp',
      image: 'data:image/jpeg;base64,AAAA',
      linkType: 'SMALL',
    });
  });
});
