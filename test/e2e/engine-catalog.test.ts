// The business catalog end to end (gateway + Baileys + simnet): products created, changed and
// deleted through Z-API's endpoints are checked in the catalog simnet keeps; another business's
// seeded catalog is read by phone (paged, hidden products not shown); collections and the cart
// setting; product and catalog messages as the customer's phone decrypts them; and a personal
// account's refusals.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { startHarness, type Harness, type Instance } from '../helpers/engine-harness.js';

const BIZ = '5511900016001';
const SHOP = '5511900016002';
const PERSONAL = '5511900016003';
const CUSTOMER = '5511900016004';

async function jpeg(r: number, g: number, b: number): Promise<Buffer> {
  return sharp({ create: { width: 64, height: 48, channels: 3, background: { r, g, b } } }).jpeg().toBuffer();
}

describe('engine business catalog (gateway + Baileys + simnet)', () => {
  let h: Harness;
  let biz: Instance;
  let personal: Instance;
  let image = '';
  let productId = '';
  const shopIds: string[] = [];
  let hiddenShopId = '';

  const call = async (inst: Instance, method: string, path: string, body?: unknown, expect = 200) => {
    const r = await h.call(method, `${inst.prefix}/${path}`, body);
    assert.equal(r.status, expect, `${method} ${path}: ${r.body.toString().slice(0, 500)}`);
    // A send is queued behind a pacing gap (protocol time): jumped, not waited out.
    if (path.startsWith('send-') && r.status === 200) await h.sendQueued(inst);
    return r;
  };
  const shopProduct = (id: string) => h.admin.catalog(BIZ).then((c) => c.products.find((p) => p.id === id));

  before(async () => {
    h = await startHarness();
    await h.admin.createUser({ phone: BIZ, pushName: 'Biz', business: true });
    await h.admin.createUser({ phone: SHOP, pushName: 'Shop', business: true });
    await h.admin.createUser({ phone: CUSTOMER, pushName: 'Customer' });
    image = `data:image/jpeg;base64,${(await jpeg(200, 30, 30)).toString('base64')}`;
    // Another business's catalog, made on its phone: 55 products (one hidden) and a collection.
    const picture = (await jpeg(30, 30, 200)).toString('base64');
    for (let i = 0; i < 55; i++) {
      const p = await h.admin.seedProduct(SHOP, { name: `Item ${i}`, price: String((i + 1) * 1000), currency: 'BRL', imagesBase64: [picture], hidden: i === 54 });
      shopIds.push(p.id);
    }
    hiddenShopId = shopIds[54]!;
    biz = await h.pairNew(BIZ, 'catalog-biz');
    personal = await h.pairNew(PERSONAL, 'catalog-personal');
  });
  after(async () => {
    await h?.close();
  });

  test('POST /products creates a product in the catalog the network keeps, its image uploaded', async () => {
    const r = await call(biz, 'POST', 'products', { currency: 'BRL', description: 'A wireless mouse', images: [image], isHidden: false, name: 'Mouse', price: 20, salePrice: 18, retailerId: '002', url: 'https://shop.example/mouse' });
    productId = String(r.json.id);
    assert.match(productId, /^\d{10,}$/, JSON.stringify(r.json));
    const stored = await shopProduct(productId);
    assert.ok(stored, 'the product is in the catalog on the network');
    assert.deepEqual(
      { name: stored.name, description: stored.description, price: stored.price, currency: stored.currency, retailerId: stored.retailerId, url: stored.url, hidden: stored.hidden },
      { name: 'Mouse', description: 'A wireless mouse', price: '20000', currency: 'BRL', retailerId: '002', url: 'https://shop.example/mouse', hidden: false },
    );
    assert.equal(stored.images.length, 1, 'one image');
    const bytes = h.simnet.net.media?.get(stored.images[0]!);
    assert.ok(bytes, `the image was uploaded to the media host (${stored.images[0]})`);
    assert.equal((await sharp(bytes).metadata()).width, 64, 'the uploaded image is the picture sent');
  });

  test('GET /catalogs and GET /products/{id} read the account\'s own catalog, hidden products included', async () => {
    const hidden = await call(biz, 'POST', 'products', { currency: 'USD', description: 'Not for sale yet', images: [image], isHidden: true, name: 'Prototype', price: 1.5 });
    const list = await call(biz, 'GET', 'catalogs');
    const products = list.json.products as Record<string, unknown>[];
    assert.equal(list.json.cartEnabled, true);
    assert.equal(list.json.nextCursor, null);
    const mouse = products.find((p) => p.id === productId);
    assert.deepEqual(
      mouse && { name: mouse.name, price: mouse.price, currency: mouse.currency, retailerId: mouse.retailerId, availability: mouse.availability, isHidden: mouse.isHidden, salePrice: mouse.salePrice },
      { name: 'Mouse', price: '20000', currency: 'BRL', retailerId: '002', availability: 'in stock', isHidden: false, salePrice: null },
    );
    assert.match(String((mouse?.images as string[])[0]), /^https:\/\/mmg\.whatsapp\.net\//, 'images are the network\'s CDN URLs');
    assert.equal(products.find((p) => p.id === hidden.json.id)?.isHidden, true, 'the owner sees its hidden product');
    const one = await call(biz, 'GET', `products/${productId}`);
    assert.deepEqual([one.json.id, one.json.name, one.json.cartEnabled, one.json.catalogId], [productId, 'Mouse', true, null]);
    await call(biz, 'GET', 'products/999999999999', undefined, 404);
    await call(biz, 'DELETE', `products/${String(hidden.json.id)}`);
  });

  test('POST /products with an id changes that product; bad input changes nothing', async () => {
    await call(biz, 'POST', 'products', { id: productId, currency: 'BRL', description: 'A silent wireless mouse', images: [image], name: 'Mouse Pro', price: 25.5 });
    const stored = await shopProduct(productId);
    assert.deepEqual([stored?.name, stored?.description, stored?.price], ['Mouse Pro', 'A silent wireless mouse', '25500']);
    await call(biz, 'POST', 'products', { id: productId, currency: 'R$', description: 'x', images: [image], name: 'Broken', price: 1 }, 400);
    await call(biz, 'POST', 'products', { currency: 'BRL', description: 'x', images: ['ftp://example.com/a.jpg'], name: 'Broken', price: 1 }, 400);
    assert.equal((await shopProduct(productId))?.name, 'Mouse Pro', 'nothing changed');
    assert.equal((await h.admin.catalog(BIZ)).products.length, 1, 'nothing created');
  });

  test('another business\'s catalog by phone: paged (GET, then POST V2 with the cursor), hidden products not shown', async () => {
    const first = await call(personal, 'GET', `catalogs/${SHOP}`);
    const page1 = first.json.products as { id: string }[];
    assert.equal(page1.length, 50);
    assert.equal(typeof first.json.nextCursor, 'string', 'a next page');
    const second = await call(personal, 'POST', `catalogs/${SHOP}`, { nextCursor: first.json.nextCursor });
    const page2 = second.json.products as { id: string }[];
    assert.equal(second.json.nextCursor, null, 'the last page');
    const seen = [...page1, ...page2].map((p) => p.id);
    assert.deepEqual(seen, shopIds.slice(0, 54), 'every visible product once, in order');
    assert.ok(!seen.includes(hiddenShopId), 'the hidden product is not shown to others');
    const viaGet = await call(biz, 'GET', `catalogs/${SHOP}?nextCursor=${encodeURIComponent(String(first.json.nextCursor))}`);
    assert.deepEqual((viaGet.json.products as { id: string }[]).map((p) => p.id), page2.map((p) => p.id));
    // A personal number has no catalog.
    const none = await h.call('GET', `${biz.prefix}/catalogs/${PERSONAL}`);
    assert.equal(none.status, 422, none.body.toString());
    assert.match(String(none.json.message), /not a WhatsApp Business account/);
  });

  test('collections: create, list, rename, add and remove products (a new id each time), read by phone, delete', async () => {
    const second = await call(biz, 'POST', 'products', { currency: 'BRL', description: 'Pad', images: [image], name: 'Mouse pad', price: 5 });
    const padId = String(second.json.id);
    const created = await call(biz, 'POST', 'catalogs/collection', { name: 'Desk', productIds: [productId] });
    let id = String(created.json.collectionId);
    const onNet = async () => (await h.admin.catalog(BIZ)).collections;
    assert.deepEqual(await onNet(), [{ id, name: 'Desk', productIds: [productId] }]);
    const list = await call(biz, 'GET', 'catalogs/collection');
    assert.deepEqual(list.json, { nextCursor: null, collections: [{ id, name: 'Desk', status: 'APPROVED' }] });
    const renamed = await call(biz, 'POST', `catalogs/collection-edit/${id}`, { name: 'Desk setup' });
    assert.deepEqual(renamed.json, { success: true, collectionId: id });
    const added = await call(biz, 'POST', 'catalogs/collection/add-product', { collectionId: id, productIds: [padId] });
    assert.equal(added.json.success, true);
    assert.notEqual(added.json.collectionId, id, 'WhatsApp renews the id');
    id = String(added.json.collectionId);
    assert.deepEqual(await onNet(), [{ id, name: 'Desk setup', productIds: [productId, padId] }]);
    const products = await call(personal, 'GET', `catalogs/collection-products/${BIZ}?collectionId=${id}`);
    assert.deepEqual((JSON.parse(products.body.toString()) as { id: string; price: number }[]).map((p) => [p.id, p.price]), [[productId, 25500], [padId, 5000]]);
    const removed = await call(biz, 'POST', 'catalogs/collection/remove-product', { collectionId: id, productIds: [productId] });
    id = String(removed.json.collectionId);
    assert.deepEqual(await onNet(), [{ id, name: 'Desk setup', productIds: [padId] }]);
    await call(biz, 'POST', 'catalogs/collection/add-product', { collectionId: '123456789', productIds: [padId] }, 404);
    await call(biz, 'DELETE', `catalogs/collection/${id}`);
    assert.deepEqual(await onNet(), [], 'the collection is gone on the network');
    await call(biz, 'DELETE', `products/${padId}`);
  });

  test('POST /catalogs/config turns the cart off on the network and reads show it', async () => {
    assert.deepEqual((await call(biz, 'POST', 'catalogs/config', { cartEnabled: false })).json, { success: true });
    assert.equal((await h.admin.catalog(BIZ)).cartEnabled, false);
    assert.equal((await call(personal, 'GET', `catalogs/${BIZ}`)).json.cartEnabled, false);
    await call(biz, 'POST', 'catalogs/config', { cartEnabled: true });
    assert.equal((await h.admin.catalog(BIZ)).cartEnabled, true);
  });

  test('send-product: the customer\'s phone decrypts WhatsApp\'s product message', async () => {
    const r = await call(biz, 'POST', 'send-product', { phone: CUSTOMER, catalogPhone: BIZ, productId });
    assert.ok(r.json.zaapId && r.json.messageId === r.json.id, JSON.stringify(r.json));
    const got = await h.admin.waitForReceived(CUSTOMER, (m) => m.id === r.json.messageId, 20_000);
    const pm = got.raw.productMessage as { product?: Record<string, unknown>; businessOwnerJid?: string } | undefined;
    assert.ok(pm?.product, `a productMessage: ${JSON.stringify(got.raw).slice(0, 300)}`);
    assert.deepEqual(
      { id: pm.product.productId, title: pm.product.title, price: pm.product.priceAmount1000, currency: pm.product.currencyCode, retailerId: pm.product.retailerId, owner: pm.businessOwnerJid },
      { id: productId, title: 'Mouse Pro', price: 25500, currency: 'BRL', retailerId: '002', owner: `${BIZ}@s.whatsapp.net` },
    );
    const img = pm.product.productImage as { url?: string; mimetype?: string } | undefined;
    assert.ok(img?.url && img.mimetype === 'image/jpeg', `the product image was uploaded with the message: ${JSON.stringify(img).slice(0, 200)}`);
    // A product that is not in the catalog is refused before anything is queued.
    await call(biz, 'POST', 'send-product', { phone: CUSTOMER, catalogPhone: BIZ, productId: '424242424242' }, 404);
  });

  test('send-catalog: the customer gets the catalog link with its preview', async () => {
    const r = await call(personal, 'POST', 'send-catalog', { phone: CUSTOMER, catalogPhone: SHOP, message: 'Our shop', translation: 'PT' });
    const got = await h.admin.waitForReceived(CUSTOMER, (m) => m.id === r.json.messageId, 20_000);
    assert.equal(got.text, `Our shop\nhttps://wa.me/c/${SHOP}`);
    assert.equal(got.link?.title, 'Ver catálogo');
    assert.equal(got.link?.matchedText, `https://wa.me/c/${SHOP}`);
    assert.ok((got.link?.thumbnailBytes ?? 0) > 0, `the preview carries the first product's picture: ${JSON.stringify(got.link)}`);
    // A business without products has nothing to share.
    const empty = await h.call('POST', `${personal.prefix}/send-catalog`, { phone: CUSTOMER, catalogPhone: PERSONAL });
    assert.equal(empty.status, 422, empty.body.toString());
  });

  test('a personal account: its own catalog endpoints answer 403 and change nothing', async () => {
    const before = await h.admin.catalog(PERSONAL);
    for (const [method, path, body] of [
      ['GET', 'catalogs', undefined],
      ['POST', 'products', { currency: 'BRL', description: 'x', images: [image], name: 'Nope', price: 1 }],
      ['DELETE', `products/${productId}`, undefined],
      ['POST', 'catalogs/config', { cartEnabled: false }],
      ['POST', 'catalogs/collection', { name: 'Nope', productIds: [productId] }],
      ['GET', 'catalogs/collection', undefined],
    ] as const) {
      const r = await h.call(method, `${personal.prefix}/${path}`, body);
      assert.equal(r.status, 403, `${method} ${path}: ${r.body.toString()}`);
      assert.match(String(r.json.error), /WhatsApp Business account required/, `${method} ${path} says why`);
    }
    assert.deepEqual(await h.admin.catalog(PERSONAL), before, 'nothing changed on the network');
    assert.ok(await shopProduct(productId), 'the business\'s product is still there');
  });

  test('an instance that is not connected answers 409, as the group endpoints do', async () => {
    const idle = await h.createInstance('catalog-idle');
    for (const [method, path, body] of [
      ['GET', 'catalogs', undefined],
      ['GET', `catalogs/${SHOP}`, undefined],
      ['POST', 'products', { currency: 'BRL', description: 'x', images: [image], name: 'Nope', price: 1 }],
      ['POST', 'send-product', { phone: CUSTOMER, catalogPhone: SHOP, productId: shopIds[0] }],
    ] as const) {
      const r = await h.call(method, `${idle.prefix}/${path}`, body);
      assert.equal(r.status, 409, `${method} ${path}: ${r.body.toString()}`);
      assert.equal(r.json.error, 'Instance not connected');
    }
  });

  test('DELETE /products/{id} takes the product out of the network\'s catalog', async () => {
    assert.deepEqual((await call(biz, 'DELETE', `products/${productId}`)).json, { success: true });
    assert.equal(await shopProduct(productId), undefined, 'gone on the network');
    await call(biz, 'DELETE', `products/${productId}`, undefined, 404);
  });
});
